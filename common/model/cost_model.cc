// The parameter-free pieces of the cost-model layer: Ansor's RandomModel and
// the normalized-throughput labels every learned model trains on.
#include "common/model/cost_model.h"

#include <cmath>
#include <limits>
#include <random>
#include <unordered_map>

#include "absl/strings/str_cat.h"

namespace pruner {
namespace {

// A usable measurement: ok and a positive, finite mean time. Anything else is
// treated like Ansor's 1e10 error cost, i.e. label 0.
bool HasValidCost(const CostRecord& r) {
  return r.ok && r.mean_cost_s > 0 && std::isfinite(r.mean_cost_s);
}

class RandomModel : public CostModel {
 public:
  explicit RandomModel(uint64_t seed) : engine_(seed) {}

  std::string Name() const override { return "random"; }

  absl::Status Update(const std::vector<MeasuredState>& records) override {
    num_records_ += static_cast<int64_t>(records.size());
    return absl::OkStatus();
  }

  std::vector<double> Predict(const std::vector<State>& states) override {
    std::vector<double> scores(states.size());
    // The top 53 bits scaled by 2^-53: uniform in [0, 1) and, unlike
    // std::uniform_real_distribution, the same sequence on every standard
    // library, so a seed reproduces a search everywhere.
    for (double& s : scores) s = static_cast<double>(engine_() >> 11) * 0x1.0p-53;
    return scores;
  }

  int64_t NumTrainingRecords() const override { return num_records_; }
  bool Ranks() const override { return false; }

  absl::StatusOr<std::string> Save() const override { return std::string(); }

  absl::Status Load(std::string_view blob) override {
    if (!blob.empty()) {
      return absl::InvalidArgumentError(
          absl::StrCat("random model: expected an empty checkpoint, got ", blob.size(), " bytes"));
    }
    return absl::OkStatus();
  }

 private:
  std::mt19937_64 engine_;
  int64_t num_records_ = 0;
};

}  // namespace

std::unique_ptr<CostModel> MakeRandomModel(uint64_t seed) {
  return std::make_unique<RandomModel>(seed);
}

std::unordered_map<std::string, double> BestValidCosts(const std::vector<CostRecord>& records) {
  std::unordered_map<std::string, double> min_cost;
  for (const CostRecord& r : records) {
    if (!HasValidCost(r)) continue;
    auto [it, inserted] = min_cost.emplace(r.workload_key, r.mean_cost_s);
    if (!inserted && r.mean_cost_s < it->second) it->second = r.mean_cost_s;
  }
  return min_cost;
}

std::vector<float> NormalizedThroughputLabels(const std::vector<CostRecord>& records) {
  // Minimum valid cost per workload over the records passed in (§5.2). The
  // models pass every record they hold, so labels stay relative to the best
  // program seen so far, as TenSet's Dataset rescales them.
  const std::unordered_map<std::string, double> min_cost = BestValidCosts(records);
  std::vector<float> labels(records.size(), 0.0f);
  for (size_t i = 0; i < records.size(); ++i) {
    if (!HasValidCost(records[i])) continue;
    labels[i] = static_cast<float>(min_cost.at(records[i].workload_key) / records[i].mean_cost_s);
  }
  return labels;
}

std::vector<float> NormalizedThroughputLabels(const std::vector<MeasuredState>& records) {
  std::vector<CostRecord> costs;
  costs.reserve(records.size());
  for (const MeasuredState& r : records) costs.push_back({r.workload_key, r.mean_cost_s, r.ok});
  return NormalizedThroughputLabels(costs);
}

}  // namespace pruner
