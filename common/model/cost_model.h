// Cost models score candidate schedules so that the search measures only the
// promising ones (../shared/specs/ansor.md §5.1). Higher scores are better; a state the
// model cannot score (its lowering or feature extraction failed) scores
// -infinity.
//
// Models are per device: a job tunes for one device and all of its tasks share
// one model instance, as Ansor's task scheduler does. Update() adds measured
// programs to the model's data set and retrains on everything it has seen.
#ifndef PRUNER_COMMON_MODEL_COST_MODEL_H_
#define PRUNER_COMMON_MODEL_COST_MODEL_H_

#include <cstdint>
#include <memory>
#include <string>
#include <string_view>
#include <unordered_map>
#include <vector>

#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "common/device/device_profile.h"
#include "common/schedule/state.h"

namespace pruner {

// One measured program, as the models learn from it.
struct MeasuredState {
  State state;               // replayed, concrete; state.original_dag() is its workload
  std::string workload_key;  // state.original_dag()->WorkloadKey(), kept to avoid rehashing
  // Mean of the repeat costs in seconds; <= 0 or a failed measurement means
  // "no valid time" (label 0, the way Ansor's 1e10 error cost works out).
  double mean_cost_s = 0;
  bool ok = false;
};

class CostModel {
 public:
  virtual ~CostModel() = default;

  // "random", "xgb", "mlp", ...
  virtual std::string Name() const = 0;

  // Adds `records` to the data set and retrains. Labels are normalized
  // throughput per workload: min cost of the workload / this cost, in (0, 1],
  // failures 0 (§5.2).
  virtual absl::Status Update(const std::vector<MeasuredState>& records) = 0;

  // One score per state, in order.
  virtual std::vector<double> Predict(const std::vector<State>& states) = 0;

  // Number of records the model has been trained on.
  virtual int64_t NumTrainingRecords() const = 0;

  // False while Predict answers only warm-up scores (uniform random: too
  // few records yet, and nothing to transfer from). A search that plans
  // many steps ahead on the scores (AutoTVM's annealing) draws at random
  // instead, as AutoTVM does before its first fit.
  virtual bool Ranks() const { return true; }

  // Checkpoints (stored in the records database). Models without parameters
  // save an empty blob.
  virtual absl::StatusOr<std::string> Save() const = 0;
  virtual absl::Status Load(std::string_view blob) = 0;
};

// Uniform random scores in [0, 1) (Ansor's RandomModel): turns the
// evolutionary search into a random walk, and is what the learned models
// answer until they have seen enough data (their warm-up).
std::unique_ptr<CostModel> MakeRandomModel(uint64_t seed);

// Labels of §5.2 for a set of records: per workload_key, min over ok records
// of mean_cost_s divided by each record's cost; 0 for failed records.
std::vector<float> NormalizedThroughputLabels(const std::vector<MeasuredState>& records);

// What the labels depend on, for callers that keep records without their
// states (the learned models keep features instead).
struct CostRecord {
  std::string workload_key;
  double mean_cost_s = 0;
  bool ok = false;
};
std::vector<float> NormalizedThroughputLabels(const std::vector<CostRecord>& records);

// The labels' normalizer: per workload_key, the least cost among the records
// with a usable one (ok, positive, finite); workloads without one are absent.
std::unordered_map<std::string, double> BestValidCosts(const std::vector<CostRecord>& records);

}  // namespace pruner

#endif  // PRUNER_COMMON_MODEL_COST_MODEL_H_
