// NumPy .npy files as Tensors: how model inputs and reference outputs travel
// between PyTorch and Pruner (scripts/export_models.py writes them,
// `pruner run --input NAME=file.npy` reads them).
//
// Format version 1.0 and 2.0, C order, little-endian float32 (also float64,
// converted to float32, and int64 and int32, which keep their dtype with the
// values in the Tensor's float storage).
#ifndef PRUNER_COMMON_IR_NPY_H_
#define PRUNER_COMMON_IR_NPY_H_

#include <string>

#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "common/ir/tensor.h"

namespace pruner {

// Parses the bytes of a .npy file; `what` names it in errors.
absl::StatusOr<Tensor> ParseNpy(const std::string& bytes, const std::string& what);
absl::StatusOr<Tensor> ReadNpy(const std::string& path);

// Writes a float32 .npy (format 1.0) of the tensor's shape and values.
std::string SerializeNpy(const Tensor& t);
absl::Status WriteNpy(const std::string& path, const Tensor& t);

}  // namespace pruner

#endif  // PRUNER_COMMON_IR_NPY_H_
