// The tables bench_dataset_metrics prints, and its RESULT line's fields.
#ifndef PRUNER_BENCH_DATASET_METRICS_REPORT_H_
#define PRUNER_BENCH_DATASET_METRICS_REPORT_H_

#include <string>
#include <utility>
#include <vector>

#include "bench/dataset/dataset_loader.h"
#include "bench/dataset/lse_evaluation.h"
#include "bench/dataset/model_topk.h"
#include "bench/dataset/replayed_dataset.h"

namespace pruner::dataset {

// key=value pairs in insertion order, printed as "RESULT <name> k=v ...".
class ResultFields {
 public:
  void Add(const std::string& key, const std::string& value);
  void Add(const std::string& key, double value);  // %.4g; NaN prints "nan"
  std::string Line(const std::string& name) const;

 private:
  std::vector<std::pair<std::string, std::string>> fields_;
};

// Per workload: group, weight, schedules, best / median latency.
void PrintDataset(const Dataset& data, const ReplayedDataset& replayed);

// Best-1 and Best-5 per analyzer variant and S_spec size (with the sizes
// each workload actually got), the random draft, and Spearman's rho.
void PrintLse(const LseEvaluation& lse, const ReplayedDataset& data);
void AddLseResults(const LseEvaluation& lse, ResultFields* result);
// The issue-model constants fitted per fold and on everything (nothing when
// no fit ran).
void PrintIssueFits(const LseEvaluation& lse);

// The Table 11 / Fig. 15 table of one split ("held-out workloads", ...).
void PrintTopK(const std::string& title, const std::vector<ModelTopK>& models,
               const std::vector<Fold>& folds, const ReplayedDataset& data);
// Where each model's pooled Top_1 (fraction 1) goes: Top_1 = 1 - Σ_i
// w_i (pick_i - best_i) / Σ_j w_j pick_j, so each workload's term is its
// share of the loss. Prints the `worst` largest shares per model and the
// unweighted mean of best_i / pick_i (every workload counted once).
void PrintTopOneLosses(const std::string& title, const std::vector<ModelTopK>& models,
                       const ReplayedDataset& data, int worst);
// The unweighted mean of best / pick over the workloads of a fraction-1 point.
double MeanTopOneRatio(const TopKPoint& point);
// <prefix><model>_top1, _top5 (fraction 1; '-' in names becomes '_'),
// _top1_sd (between folds), _top1_per_workload (MeanTopOneRatio), _train_s, _states_per_s, and _top1_f<percent>
// for the other fractions.
void AddTopKResults(const std::vector<ModelTopK>& models, const std::string& prefix,
                    ResultFields* result);

}  // namespace pruner::dataset

#endif  // PRUNER_BENCH_DATASET_METRICS_REPORT_H_
