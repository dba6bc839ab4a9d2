#include "common/model/tlp_model.h"

#include "absl/strings/str_cat.h"
#include "common/features/tlp_features.h"

namespace pruner {

namespace {

std::vector<float> Features(const std::vector<Step>& steps, bool gpu, const TlpFeatureShape& shape,
                            bool log_payload) {
  std::vector<float> matrix = TlpFeatures(steps, gpu, shape);
  if (log_payload) TlpLogPayload(shape, matrix);
  return matrix;
}

std::unique_ptr<CostModel> MakeModel(std::string name, const DeviceProfile& device,
                                     const TlpModelOptions& options,
                                     std::shared_ptr<const TlpAuxiliaryData> auxiliary) {
  const TlpFeatureShape shape = TlpShapeFor(device);
  const bool gpu = device.IsGpu();
  TlpParams params = options.tlp;
  params.rows = shape.rows;
  StateRows rows;
  rows.num_columns = shape.columns;
  const bool log_payload = options.log_payload;
  rows.rows = [gpu, shape, log_payload](const State& state) -> absl::StatusOr<std::vector<float>> {
    return Features(state.steps(), gpu, shape, log_payload);
  };
  if (options.log_payload) name += "-log";
  return std::make_unique<LearnedCostModel>(
      std::move(name), device, options.training,
      [params, auxiliary] { return MakeTlpPackRegressor(params, auxiliary); }, std::move(rows));
}

}  // namespace

std::unique_ptr<CostModel> MakeTlpModel(const DeviceProfile& device,
                                        const TlpModelOptions& options) {
  return MakeModel("tlp", device, options, nullptr);
}

absl::StatusOr<std::unique_ptr<CostModel>> MakeMtlTlpModel(
    const DeviceProfile& device, const TlpModelOptions& options,
    const DeviceProfile& auxiliary_device, const std::vector<MeasuredState>& auxiliary) {
  if (device.IsGpu() != auxiliary_device.IsGpu()) {
    return absl::InvalidArgumentError(absl::StrCat(
        "mtl-tlp: ", device.name, " and ", auxiliary_device.name,
        " are not the same platform (CPU and GPU schedules read as different step tables)"));
  }
  const TlpFeatureShape shape = TlpShapeFor(device);
  auto data = std::make_shared<TlpAuxiliaryData>();
  data->packs = PackedRows(shape.columns);
  const std::vector<float> labels = NormalizedThroughputLabels(auxiliary);
  bool any_ok = false;
  for (size_t i = 0; i < auxiliary.size(); ++i) {
    data->packs.AddPack(
        Features(auxiliary[i].state.steps(), device.IsGpu(), shape, options.log_payload));
    data->labels.push_back(labels[i]);
    any_ok = any_ok || labels[i] > 0;
  }
  if (!any_ok) {
    return absl::InvalidArgumentError(
        absl::StrCat("mtl-tlp: no ok record of ", auxiliary_device.name, " to learn from"));
  }
  return MakeModel("mtl-tlp", device, options, std::move(data));
}

}  // namespace pruner
