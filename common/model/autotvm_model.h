// AutoTVM's statistical cost model (../shared/specs/autotvm.md §4, §6) as a
// CostModel named "autotvm":
//
// - Local model: XGBoost on the loop-variable features of the lowered
//   program (autotvm_features.h) with the pairwise rank objective (the
//   paper's default; TVM v0.6-v0.12) and TVM's hyper-parameters (depth 3,
//   eta 0.3, gamma 1e-4, ...), up to 8,000 rounds with TVM's early stopping:
//   a-recall@64 on the training data itself, checked every second round,
//   patience 20. TVM fits one model per task; a job here shares one model
//   among its tasks, so every workload is its own query group (pairs never
//   compare two workloads) and labels are each workload's throughput over
//   its best (TVM's y / max y).
// - Transfer (§6): given other workloads' records (`history`, at least 500
//   ok), a base model on the relation ("curve") features, which carry
//   across operator types, with at most 400 rounds, patience 100 and
//   a-recall@128. The local model boosts from the base's margin times a
//   discount 2^(-n/64), n = the local records of that workload, dropped for
//   good below 0.05 (n > ~277), so each workload leans on the base only
//   until it has data of its own. With no local model yet the base alone
//   scores.
// - Warm-up: before `num_warmup_sample` local records and without a base
//   model, uniform random scores (TVM's first plan is random too).
// Failed measurements train with label 0, as TVM's do.
#ifndef PRUNER_COMMON_MODEL_AUTOTVM_MODEL_H_
#define PRUNER_COMMON_MODEL_AUTOTVM_MODEL_H_

#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include "absl/status/statusor.h"
#include "common/device/device_profile.h"
#include "common/model/cost_model.h"

namespace pruner {

struct AutotvmXgbParams {
  bool rank = true;  // rank:pairwise; false: reg:squarederror (TVM >= v0.13)
  int max_depth = 3;
  double gamma = 1e-4;
  double min_child_weight = 1;
  double eta = 0.3;
  double lambda = 1;
  int max_rounds = 8000;
  int early_stopping_rounds = 20;
  int recall_at = 64;  // a-recall@N of the early stopping (N = the plan size)
  int nthread = 0;     // 0: DefaultXgbThreads()
  uint64_t seed = 43;
};

struct AutotvmModelOptions {
  AutotvmXgbParams local;
  AutotvmXgbParams base = {.max_rounds = 400, .early_stopping_rounds = 100, .recall_at = 128};
  int num_warmup_sample = 64;
  int plan_size = 64;                 // the discount halves every plan_size local records
  double min_discount = 0.05;         // below it the base is dropped for the workload
  int min_history_records = 500;      // fewer ok history records: no transfer
  int featurize_threads = 0;          // 0: hardware threads
  uint64_t seed = 43;                 // warm-up scores
};

// `history`: records of other workloads on this device for the transfer
// base model (may be empty: no transfer). Errors only when fitting the
// base model fails.
absl::StatusOr<std::unique_ptr<CostModel>> MakeAutotvmModel(
    const DeviceProfile& device, const AutotvmModelOptions& options = {},
    const std::vector<MeasuredState>& history = {});

// TVM's early-stopping metric on one query group: order the points by
// prediction (descending), take each one's true rank r_i (0 = best label),
// recall(i) = |{j < i : r_j <= i}| / (i + 1), averaged over i < n.
double AverageRecallAtN(const std::vector<float>& predictions, const std::vector<float>& labels,
                        int n);

// 2^(-local_records / plan_size), or 0 once it falls below min_discount.
double TransferDiscount(int64_t local_records, int plan_size, double min_discount);

}  // namespace pruner

#endif  // PRUNER_COMMON_MODEL_AUTOTVM_MODEL_H_
