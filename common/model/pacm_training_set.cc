#include "common/model/pacm_training_set.h"

#include <string_view>
#include <unordered_map>
#include <utility>

#include "common/model/state_featurizer.h"

namespace pruner {

void PaCMTrainingSet::Add(const std::vector<MeasuredState>& records, const DeviceProfile& device,
                          int threads) {
  auto features = FeaturizePaCMStates(
      static_cast<int>(records.size()), [&](int i) -> const State& { return records[i].state; },
      device, threads);
  for (size_t i = 0; i < records.size(); ++i) {
    records_.push_back({records[i].workload_key, records[i].mean_cost_s, records[i].ok});
    if (features[i].ok()) {
      features_.emplace_back(*std::move(features[i]));
    } else {
      features_.emplace_back(std::nullopt);
      ++num_unfeaturized_;
    }
  }
}

PaCMLabeledBatch PaCMTrainingSet::Batch(const std::vector<int>* which) const {
  const std::vector<float> labels = NormalizedThroughputLabels(records_);
  PaCMLabeledBatch out;
  std::unordered_map<std::string_view, int> workload_ids;
  auto add = [&](int r) {
    if (!features_[r].has_value()) return;
    out.batch.Add(*features_[r]);
    out.labels.push_back(labels[r]);
    out.record.push_back(r);
    out.workload.push_back(
        workload_ids.try_emplace(records_[r].workload_key, workload_ids.size()).first->second);
  };
  if (which == nullptr) {
    for (int r = 0; r < static_cast<int>(records_.size()); ++r) add(r);
  } else {
    for (int r : *which) add(r);
  }
  return out;
}

}  // namespace pruner
