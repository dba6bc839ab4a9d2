// PyTorch as the baseline of `pruner run --torchscript`: the model's frozen
// TorchScript export loaded by LibTorch and optimized for inference
// (torch::jit::optimize_for_inference), the fastest way a CPU user deploys
// it. The only client file that sees LibTorch's headers.
#ifndef PRUNER_CLIENT_TORCHSCRIPT_BASELINE_H_
#define PRUNER_CLIENT_TORCHSCRIPT_BASELINE_H_

#include <functional>
#include <memory>
#include <string>
#include <vector>

#include "absl/status/statusor.h"
#include "common/ir/tensor.h"

namespace pruner {

class TorchScriptBaseline {
 public:
  virtual ~TorchScriptBaseline() = default;
  // One forward pass on the inputs given to Load; its first output.
  virtual absl::StatusOr<Tensor> Run() = 0;
};

// FailedPrecondition when this build has no LibTorch.
absl::StatusOr<std::unique_ptr<TorchScriptBaseline>> LoadTorchScript(
    const std::string& path, const std::vector<Tensor>& inputs, int threads);

}  // namespace pruner

#endif  // PRUNER_CLIENT_TORCHSCRIPT_BASELINE_H_
