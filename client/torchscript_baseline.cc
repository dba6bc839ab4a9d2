#include "client/torchscript_baseline.h"

#include "absl/strings/str_cat.h"

#ifdef PRUNER_WITH_TORCH
#include <ATen/Parallel.h>
#include <torch/script.h>
#endif

namespace pruner {

#ifdef PRUNER_WITH_TORCH
namespace {

class LibTorchBaseline final : public TorchScriptBaseline {
 public:
  LibTorchBaseline(torch::jit::Module module, std::vector<torch::jit::IValue> inputs)
      : module_(std::move(module)), inputs_(std::move(inputs)) {}

  absl::StatusOr<Tensor> Run() override {
    try {
      torch::NoGradGuard no_grad;
      torch::jit::IValue out = module_.forward(inputs_);
      at::Tensor t = (out.isTuple() ? out.toTuple()->elements()[0] : out).toTensor().contiguous();
      Tensor result;
      result.shape.assign(t.sizes().begin(), t.sizes().end());
      result.data.assign(t.data_ptr<float>(), t.data_ptr<float>() + t.numel());
      return result;
    } catch (const std::exception& e) {
      return absl::InternalError(absl::StrCat("PyTorch forward failed: ", e.what()));
    }
  }

 private:
  torch::jit::Module module_;
  std::vector<torch::jit::IValue> inputs_;
};

}  // namespace

absl::StatusOr<std::unique_ptr<TorchScriptBaseline>> LoadTorchScript(
    const std::string& path, const std::vector<Tensor>& inputs, int threads) {
  try {
    if (threads > 0) at::set_num_threads(threads);
    torch::jit::Module module = torch::jit::load(path);
    // Frozen exports (scripts/export_models.py) are optimized here; a
    // module that is not frozen yet is frozen first by the same call.
    module = torch::jit::optimize_for_inference(module);
    std::vector<torch::jit::IValue> values;
    for (const Tensor& t : inputs) {
      at::Tensor value =
          torch::from_blob(const_cast<float*>(t.data.data()), t.shape, torch::kFloat32).clone();
      // Token ids and other indices: the Tensor holds them as exact floats.
      if (t.dtype == DType::kInt64) value = value.to(torch::kInt64);
      if (t.dtype == DType::kInt32) value = value.to(torch::kInt32);
      values.push_back(value);
    }
    return std::make_unique<LibTorchBaseline>(std::move(module), std::move(values));
  } catch (const std::exception& e) {
    return absl::InvalidArgumentError(absl::StrCat("cannot load TorchScript '", path, "': ", e.what()));
  }
}

#else

absl::StatusOr<std::unique_ptr<TorchScriptBaseline>> LoadTorchScript(const std::string&,
                                                                     const std::vector<Tensor>&, int) {
  return absl::FailedPreconditionError("this build has no LibTorch (PRUNER_WITH_TORCH=OFF)");
}

#endif

}  // namespace pruner
