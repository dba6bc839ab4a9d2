#include "common/model/mlp_model.h"

namespace pruner {

std::unique_ptr<CostModel> MakeMlpModel(const DeviceProfile& device,
                                        const MlpModelOptions& options) {
  MlpParams params = options.mlp;
  return std::make_unique<LearnedCostModel>(
      "mlp", device, options.training, [params] { return MakeMlpPackRegressor(params); });
}

}  // namespace pruner
