#include "common/model/pacm_training_set.h"

#include <cmath>
#include <string_view>
#include <unordered_map>
#include <utility>

#include "common/model/state_featurizer.h"

namespace pruner {

void PaCMTrainingSet::Add(const std::vector<MeasuredState>& records, const DeviceProfile& device,
                          int threads, const SymbolAnalyzer* analyzer) {
  auto features = FeaturizePaCMStates(
      static_cast<int>(records.size()), [&](int i) -> const State& { return records[i].state; },
      device, threads, analyzer);
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
  const std::unordered_map<std::string, double> best_cost = BestValidCosts(records_);
  PaCMLabeledBatch out;
  std::unordered_map<std::string_view, int> workload_ids;
  auto add = [&](int r) {
    if (!features_[r].has_value()) return;
    out.batch.Add(*features_[r]);
    out.labels.push_back(labels[r]);
    out.record.push_back(r);
    const std::string_view key = records_[r].workload_key;
    const auto [it, fresh] = workload_ids.try_emplace(key, workload_ids.size());
    if (fresh) {
      const auto best = best_cost.find(records_[r].workload_key);
      out.workload_best_cost.push_back(best == best_cost.end() ? 0.0 : best->second);
    }
    out.workload.push_back(it->second);
  };
  if (which == nullptr) {
    for (int r = 0; r < static_cast<int>(records_.size()); ++r) add(r);
  } else {
    for (int r : *which) add(r);
  }
  return out;
}

std::vector<float> BestCostListWeights(const std::vector<double>& workload_best_cost,
                                       double power) {
  double sum = 0;
  int n = 0;
  for (double c : workload_best_cost) {
    if (c <= 0) continue;
    sum += c;
    ++n;
  }
  std::vector<float> weights(workload_best_cost.size(), 0.0f);
  if (n == 0) return weights;
  const double mean_cost = sum / n;
  double weight_sum = 0;
  for (size_t w = 0; w < weights.size(); ++w) {
    if (workload_best_cost[w] <= 0) continue;
    weights[w] = static_cast<float>(std::pow(workload_best_cost[w] / mean_cost, power));
    weight_sum += weights[w];
  }
  for (float& weight : weights) weight = static_cast<float>(weight * n / weight_sum);
  return weights;
}

}  // namespace pruner
