// Offline pre-training of PaCM from stored records (../shared/specs/pruner.md §5.3,
// "Offline pre-training"; Pruner's pruner_train_model.py): what MoA's
// Siamese and offline mode load.
//
// Split: within each workload, the records in the order given (the records
// database's measurement order) are reversed and the first 90% of that
// order train, so the earliest-measured 10% are held out. Labels are
// normalized per workload over all its records, train and held out.
// Training: a fresh network with §5.3's schedule, keeping the epoch with the
// best smoothed training loss (the script saves a checkpoint whenever it
// improves). The held-out records only report how well it ranks.
#ifndef PRUNER_COMMON_MODEL_PACM_PRETRAIN_H_
#define PRUNER_COMMON_MODEL_PACM_PRETRAIN_H_

#include <cstdint>
#include <string>
#include <vector>

#include "absl/status/statusor.h"
#include "common/device/device_profile.h"
#include "common/model/cost_model.h"
#include "common/model/pacm_network.h"

namespace pruner {

struct PaCMPretrainOptions {
  PaCMNetworkShape network;
  PaCMTrainingParams training = [] {
    PaCMTrainingParams p;
    p.keep_best_epoch = true;
    return p;
  }();
  // Per workload, floor(n * holdout_fraction) of its records are held out.
  double holdout_fraction = 0.1;
  // Threads that lower and featurize states; 0 = hardware threads.
  int featurize_threads = 0;
};

struct PaCMPretrainResult {
  // A "pacm" checkpoint naming `device`; MakePaCMModel(any device,
  // {.mode = moa or offline})->Load(checkpoint) uses it.
  std::string checkpoint;
  int64_t train_programs = 0;
  int64_t holdout_programs = 0;
  int64_t unfeaturized_records = 0;  // lowering failed: labels only
  FitReport fit;
  // Over workloads with at least one held-out pair of different labels:
  // the mean fraction of such pairs the network orders like their labels
  // (0.5 is chance), and how many workloads that mean covers (0 when the
  // hold-out has no such pair; the accuracy is then 0).
  double holdout_pairwise_accuracy = 0;
  int holdout_workloads = 0;
};

// `records` are all measured on `device` (the features are extracted for
// it). FailedPrecondition when the training part has nothing to rank.
absl::StatusOr<PaCMPretrainResult> PretrainPaCM(const std::vector<MeasuredState>& records,
                                                const DeviceProfile& device,
                                                const PaCMPretrainOptions& options = {});

}  // namespace pruner

#endif  // PRUNER_COMMON_MODEL_PACM_PRETRAIN_H_
