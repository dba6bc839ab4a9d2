// A CostModel around a PackRegressor: what the XGBoost and MLP models share.
//
// - Update featurizes the new records once (the features are cached with the
//   data set), recomputes every label over the whole data set (§5.2: labels
//   stay relative to the best cost seen so far per workload) and retrains
//   the regressor from scratch on everything, as upstream does. Records whose
//   featurization fails stay in the label computation but give no pack.
// - Warm-up (§5.3): nothing is trained until `num_warmup_sample` records
//   exist, and while no regressor is trained Predict answers uniform random
//   scores without featurizing (upstream returns random scores then too).
// - Adaptive training (apache/tvm#7197, optional): once trained, retrain only
//   when the data set grew by at least `adaptive_ratio` since the last fit.
// - Predict scores a program as the regressor's pack score; a state whose
//   lowering or featurization fails, or that has no statement rows, scores
//   -infinity.
// - Save/Load: the regressor's parameters in a checkpoint (checkpoint.h)
//   that also names the model and the device. The data set is not saved:
//   records live in the records database. A loaded model predicts at once
//   (no warm-up) and starts an empty data set; once Updates after it have
//   brought num_warmup_sample records, the model retrains on those alone,
//   so a resumed job passes its records to Update again.
// Not thread-safe: one caller at a time (Predict and Update use threads of
// their own for featurization).
#ifndef PRUNER_COMMON_MODEL_LEARNED_MODEL_H_
#define PRUNER_COMMON_MODEL_LEARNED_MODEL_H_

#include <cstdint>
#include <functional>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "common/model/cost_model.h"
#include "common/model/pack_regressor.h"
#include "common/model/packed_rows.h"

namespace pruner {

struct LearnedModelOptions {
  // Ansor's default; its task scheduler passes n_tasks × 64.
  int num_warmup_sample = 100;
  // Off by default, as upstream.
  bool adaptive_training = false;
  double adaptive_ratio = 0.2;
  // Threads that lower and featurize states; 0 = hardware threads.
  int featurize_threads = 0;
  // Seed of the warm-up random scores.
  uint64_t seed = 43;
};

// How a model reads a state when it does not read Ansor's statement rows:
// its own rows of `num_columns` values (e.g. TLP's step matrix, or the
// statement rows with the analyzer's vector). `rows` runs on
// featurize_threads threads, so it must be safe to call concurrently.
struct StateRows {
  int num_columns = 0;
  std::function<absl::StatusOr<std::vector<float>>(const State&)> rows;
};

class LearnedCostModel final : public CostModel {
 public:
  using RegressorFactory = std::function<std::unique_ptr<PackRegressor>()>;

  // `state_rows` unset: Ansor's statement features of the lowered program
  // (featurized on featurize_threads threads).
  LearnedCostModel(std::string name, const DeviceProfile& device,
                   const LearnedModelOptions& options, RegressorFactory make_regressor,
                   StateRows state_rows = {});

  std::string Name() const override { return name_; }
  absl::Status Update(const std::vector<MeasuredState>& records) override;
  std::vector<double> Predict(const std::vector<State>& states) override;
  // Records in the data set (all records passed to Update), or, after Load
  // and before any Update, the count saved in the checkpoint.
  int64_t NumTrainingRecords() const override;
  bool Ranks() const override { return IsTrained(); }
  absl::StatusOr<std::string> Save() const override;
  absl::Status Load(std::string_view blob) override;

  // True once the regressor was trained or loaded (warm-up is over).
  bool IsTrained() const { return regressor_->IsTrained(); }
  // The last successful retraining, if any, and the data-set size it saw.
  const std::optional<FitReport>& last_fit() const { return last_fit_; }
  int64_t last_fit_size() const { return last_fit_size_; }
  // Records whose state could not be featurized (kept for labels only).
  int64_t num_unfeaturized_records() const { return num_unfeaturized_; }

 private:
  bool ShouldRetrain() const;
  // The rows of states 0..n-1 (empty or an error: unscorable).
  std::vector<absl::StatusOr<std::vector<float>>> Featurize(
      int n, const std::function<const State&(int)>& state_at) const;

  std::string name_;
  DeviceProfile device_;
  LearnedModelOptions options_;
  RegressorFactory make_regressor_;
  StateRows state_rows_;
  int num_columns_;
  std::unique_ptr<PackRegressor> regressor_;
  std::unique_ptr<CostModel> warmup_;  // random scores until trained

  std::vector<CostRecord> records_;   // every record, for the labels
  PackedRows packs_;                  // featurized records only
  std::vector<int> record_of_pack_;   // packs_ index -> records_ index
  int64_t num_unfeaturized_ = 0;
  int64_t last_fit_size_ = 0;         // records_.size() at the last fit
  int64_t loaded_records_ = 0;
  std::optional<FitReport> last_fit_;
};

}  // namespace pruner

#endif  // PRUNER_COMMON_MODEL_LEARNED_MODEL_H_
