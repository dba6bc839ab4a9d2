// The measured programs a PaCM network learns from, featurized once when
// they arrive (lowering plus extraction costs far more than a training
// epoch), with what their labels depend on.
#ifndef PRUNER_COMMON_MODEL_PACM_TRAINING_SET_H_
#define PRUNER_COMMON_MODEL_PACM_TRAINING_SET_H_

#include <cstdint>
#include <optional>
#include <vector>

#include "common/analysis/symbol_analyzer.h"
#include "common/device/device_profile.h"
#include "common/features/pacm_batch.h"
#include "common/features/pacm_features.h"
#include "common/model/cost_model.h"

namespace pruner {

// A batch of featurized records with their labels.
struct PaCMLabeledBatch {
  PaCMBatch batch;            // raw features, every program valid
  std::vector<float> labels;  // one per program
  std::vector<int> record;    // the record index of every program
  std::vector<int> workload;  // every program's workload, numbered from 0
  // Per workload number: the best cost among its ok records (all records,
  // as the labels), 0 if none is ok.
  std::vector<double> workload_best_cost;
};

// RankTrainingSchedule::list_weight_power's weights, one per workload
// number: (best cost / mean best cost)^power, normalized to mean 1 over the
// workloads with an ok record (those without one get 0: every label is 0,
// nothing to rank).
std::vector<float> BestCostListWeights(const std::vector<double>& workload_best_cost, double power);

class PaCMTrainingSet {
 public:
  // Featurizes `records` for `device` on up to `threads` threads (0 =
  // hardware threads) and appends them. A record whose lowering fails is
  // kept for the labels (it can still be its workload's best) but gives no
  // training program. With an `analyzer`, the features carry the analyzer
  // vector too (FeaturizePaCMStates).
  void Add(const std::vector<MeasuredState>& records, const DeviceProfile& device, int threads,
           const SymbolAnalyzer* analyzer = nullptr);

  int64_t size() const { return static_cast<int64_t>(records_.size()); }
  int64_t num_unfeaturized() const { return num_unfeaturized_; }
  const std::vector<CostRecord>& records() const { return records_; }

  // The featurized records among `which` (record indices; every record
  // when null), in that order. Labels are ../shared/specs/pruner.md §5.2's: per
  // workload, the best cost among *all* records over this record's cost,
  // 0 for failed measurements, so they are rescaled whenever a workload
  // gets a new best.
  PaCMLabeledBatch Batch(const std::vector<int>* which = nullptr) const;

 private:
  std::vector<CostRecord> records_;
  std::vector<std::optional<PaCMFeatures>> features_;  // per record
  int64_t num_unfeaturized_ = 0;
};

}  // namespace pruner

#endif  // PRUNER_COMMON_MODEL_PACM_TRAINING_SET_H_
