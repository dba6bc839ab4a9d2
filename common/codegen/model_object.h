// The data of a compiled model as an object file: the plan, the weights
// and the kernel table that model_runtime.cc reads (pruner_model.h's plan
// format), emitted with LLVM so that tens of megabytes of weights become
// read-only data without a C compiler ever parsing them.
#ifndef PRUNER_COMMON_CODEGEN_MODEL_OBJECT_H_
#define PRUNER_COMMON_CODEGEN_MODEL_OBJECT_H_

#include <cstdint>
#include <string>
#include <vector>

#include "absl/status/statusor.h"
#include "common/codegen/cpu_llvm_codegen.h"

namespace pruner {

struct ModelData {
  std::vector<int64_t> plan;                // pruner_model_plan
  std::string weights;                      // pruner_model_weights, 64-byte aligned
  std::vector<std::string> kernel_symbols;  // pruner_model_kernels, in plan order
};

// An ELF relocatable object (position independent) defining the globals
// model_runtime.cc declares, for `target`'s CPU.
absl::StatusOr<std::string> EmitModelDataObject(const ModelData& data,
                                                const LlvmCpuTarget& target);

}  // namespace pruner

#endif  // PRUNER_COMMON_CODEGEN_MODEL_OBJECT_H_
