// Top-k of learned cost models on a measured dataset (paper §6.5, Eq. 2,
// Table 11) and its training-size curve (Fig. 15).
//
// Split: workloads, never records, are held out, so every test workload is
// unseen in training. Two ways (FoldBy):
// - by group: leave one group (job, i.e. network) out, one fold per group
//   (TenSet's protocol: whole networks are the test set);
// - by workload: `folds` folds by workload key: workloads sorted by a fixed
//   hash (FNV-1a) of their key and dealt round-robin, so the split depends
//   on the keys alone.
// kAuto takes groups when there are at least two, else workloads.
// Each fold trains a fresh model on the other folds' records (one Update)
// and scores its own workloads' schedules; Top-k sums over every workload,
// each scored by the model that did not see it.
//
// Training fraction f: each training workload keeps max(1, ceil(f·n)) of its
// records, a prefix of one fixed shuffle per workload, so smaller fractions
// are subsets of larger ones and every training workload stays represented.
#ifndef PRUNER_BENCH_DATASET_MODEL_TOPK_H_
#define PRUNER_BENCH_DATASET_MODEL_TOPK_H_

#include <cstdint>
#include <functional>
#include <map>
#include <string>
#include <vector>

#include "bench/dataset/learned_models.h"
#include "bench/dataset/ranking_metrics.h"
#include "bench/dataset/replayed_dataset.h"
#include "common/device/device_profile.h"

namespace pruner::dataset {

struct Fold {
  std::string label;      // the group, or "fold i"
  std::vector<int> test;  // workload indices
};

enum class FoldBy { kAuto, kGroup, kWorkload };

// Needs at least two workloads (and two non-empty folds; by group: two
// groups); fewer give none. By group, `group_folds` > 0 deals the groups
// (sorted by the hash of their name) round-robin into that many folds, each
// holding out several whole networks; 0 leaves one group out per fold.
std::vector<Fold> MakeFolds(const ReplayedDataset& data, int folds, FoldBy by = FoldBy::kAuto,
                            int group_folds = 0);

// 64-bit FNV-1a, stable across platforms and runs (std::hash is neither).
uint64_t StableHash(const std::string& text);

// The training records of a workload at fraction f (indices into its states).
std::vector<int> TrainingSubset(const ReplayedWorkload& workload, double fraction, uint64_t seed);

struct TopKSettings {
  std::vector<double> fractions = {0.10, 0.25, 0.50, 1.00};
  // Models trained at other fractions than `fractions` (e.g. MTL-TLP only
  // at 7% of the target's data, where its second device matters most).
  std::map<std::string, std::vector<double>> model_fractions;
  uint64_t seed = 43;  // of the training subsets
  // Train only on workloads whose name matches this ECMAScript regex (empty:
  // all). The folds stay those of the whole dataset, so a family's held-out
  // workloads are the same as without it: a family's own model beside the
  // model of every family. Held-out workloads outside it are still scored.
  std::string train_matching;
  // Also score each fold's training workloads with its model (fold_fit_top1):
  // whether a model misses the held-out order because it cannot fit the
  // order it was shown, or because what it fitted does not carry over.
  bool report_fit = false;
  // Progress lines ("xgb f=0.25 fold 2/4: ..."); may be empty.
  std::function<void(const std::string&)> log;
};

struct TopKPoint {
  double fraction = 0;
  int64_t train_records = 0;  // summed over folds
  WeightedRatio top1, top5;   // over every workload, each scored by its fold's model
  // Each fold's own Top-k over its workloads: the spread between folds.
  std::vector<double> fold_top1, fold_top5;
  std::vector<double> fold_fit_top1;  // TopKSettings::report_fit: on its training workloads
  // Every workload as its fold's model scored it (parallel to the dataset's
  // workloads): where the pooled Top_1 is lost.
  std::vector<ScoredWorkload> scored;
  double train_s = 0;          // Update wall time, summed over folds
  double predict_s = 0;        // Predict wall time, summed over folds
  int64_t predicted_states = 0;
  double StatesPerSecond() const { return predict_s > 0 ? predicted_states / predict_s : 0; }
};

// Mean and sample standard deviation of the finite values.
struct Spread {
  double mean = 0;
  double sd = 0;
};
Spread SpreadOf(const std::vector<double>& values);

struct ModelTopK {
  std::string model;
  std::vector<TopKPoint> points;  // per fraction, in order
  std::string error;              // a failed Update: the points stop there
};

ModelTopK EvaluateModel(const LearnedModelFactory& factory, const ReplayedDataset& data,
                        const DeviceProfile& device, const std::vector<Fold>& folds,
                        const TopKSettings& settings);

}  // namespace pruner::dataset

#endif  // PRUNER_BENCH_DATASET_MODEL_TOPK_H_
