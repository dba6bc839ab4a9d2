#include "common/model/xgb_model.h"

namespace pruner {

std::unique_ptr<CostModel> MakeXgbModel(const DeviceProfile& device,
                                        const XgbModelOptions& options) {
  XgbParams params = options.xgb;
  return std::make_unique<LearnedCostModel>(
      "xgb", device, options.training, [params] { return MakeXgbPackRegressor(params); });
}

}  // namespace pruner
