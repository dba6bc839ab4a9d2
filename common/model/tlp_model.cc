#include "common/model/tlp_model.h"

#include "common/features/tlp_features.h"

namespace pruner {

std::unique_ptr<CostModel> MakeTlpModel(const DeviceProfile& device,
                                        const TlpModelOptions& options) {
  const TlpFeatureShape shape = TlpShapeFor(device);
  const bool gpu = device.IsGpu();
  TlpParams params = options.tlp;
  params.rows = shape.rows;
  StateRows rows;
  rows.num_columns = shape.columns;
  rows.rows = [gpu, shape](const State& state) -> absl::StatusOr<std::vector<float>> {
    return TlpFeatures(state.steps(), gpu, shape);
  };
  return std::make_unique<LearnedCostModel>(
      "tlp", device, options.training, [params] { return MakeTlpPackRegressor(params); },
      std::move(rows));
}

}  // namespace pruner
