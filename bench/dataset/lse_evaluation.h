// LSE's draft quality on a measured dataset (paper §6.5, Table 10, Fig. 14).
//
// How S_spec is simulated from a finite dataset: the dataset plays the role
// of the explored space. Every measured schedule of a workload is lowered
// once and scored by the symbol analyzer (score = 1 / estimated latency;
// a schedule that does not lower or has no estimate ranks last); S_spec is
// the s best-scored of them (ties across the cut in expectation, see
// ranking_metrics.h), and Best_k looks up the true latencies of S_spec.
// Every analyzer variant ranks the same lowered programs.
//
// The random draft picks S_spec uniformly (scores ignored): reported both as
// the exact expectation of the denominator and as the paper's mean of the
// Best_k score over simulated draws.
#ifndef PRUNER_BENCH_DATASET_LSE_EVALUATION_H_
#define PRUNER_BENCH_DATASET_LSE_EVALUATION_H_

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "absl/status/statusor.h"
#include "common/analysis/issue_fit.h"
#include "bench/dataset/ranking_metrics.h"
#include "bench/dataset/replayed_dataset.h"
#include "common/analysis/analyzer_options.h"
#include "common/device/device_profile.h"

namespace pruner::dataset {

struct AnalyzerVariant {
  std::string label;
  AnalyzerOptions options;
  std::string result_key;  // prefix of its RESULT fields; "" = table only
  // Analyze for this profile instead of EvaluateLse's device (to show what
  // a profile that does not match the measurement does).
  std::optional<DeviceProfile> device;
};

// Table 10's rows and more: the paper's analyzer, the public code's, the
// calibrated one (the CPU issue model with its default constants; on GPUs
// the paper's), the paper's without its compute / memory penalties, and
// without each single penalty.
std::vector<AnalyzerVariant> Table10Variants();

// The machine the measured kernels ran on, as the analyzer should see it.
// A dataset measured with t OpenMP threads on a CPU of more cores (`pruner
// tune --threads 1`, for stable timings) never ran anything in parallel on
// more than t cores, while the stored profile promises num_cores of them and
// its parallel penalty (P_l2,c) would favour schedules that parallelize for
// speed-ups the measurement never had. For 0 < t < num_cores this returns
// the profile restricted to t cores: num_cores = t, physical cores at most
// t, and the peak (an estimate per physical core) scaled to match.
// Otherwise, and for GPUs, the profile as it is.
DeviceProfile AnalyzerDevice(const DeviceProfile& device, int kernel_threads);

// One way of choosing each workload's S_spec size.
struct SpecSize {
  std::string label;        // "128", "128/4000"
  std::string key;          // "s128", "s128of4000" (RESULT fields)
  int s = 0;                // the nominal size
  std::vector<int> counts;  // per workload, after clipping / scaling
};

// {50, 128, 256, 512} as given (clipped to each workload's count), and the
// same scaled to each workload's count as a share of a 4,000-schedule space.
std::vector<SpecSize> MakeSpecSizes(const ReplayedDataset& data, const std::vector<int>& sizes,
                                    bool proportional, int space = 4000);

struct BestKRow {
  std::string label;
  std::string result_key;                   // AnalyzerVariant::result_key
  std::vector<WeightedRatio> best1, best5;  // per SpecSize
  std::vector<double> spearman;             // per workload: estimate vs measured latency
  // Per workload: L* / (measured latency of the analyzer's favourite), the
  // per-workload Best_1 of a 1-schedule S_spec.
  std::vector<double> favourite;
  int64_t unscored = 0;                     // schedules without an estimate
};

struct LseEvaluation {
  std::vector<SpecSize> sizes;
  std::vector<BestKRow> analyzers;           // per variant, in order
  BestKRow random_expected;                  // exact expectation (no spearman)
  std::vector<DrawStats> random_draws_best1;  // per SpecSize
  std::vector<DrawStats> random_draws_best5;
  int64_t lowering_failures = 0;

  // CPU issue model fitted here (LseSettings::calibrate_folds > 0): one fit
  // per fold on the other folds' workloads (its row in `analyzers` scores
  // each workload with the constants fitted without it), and one on all.
  std::vector<IssueFit> fold_fits;
  IssueFit all_fit;
};

struct LseSettings {
  std::vector<AnalyzerVariant> variants = Table10Variants();
  std::vector<int> sizes = {50, 128, 256, 512};
  bool proportional_sizes = true;  // also the sizes scaled to a 4,000 space
  int draws = 5000;                // the paper's count
  uint64_t seed = 2025;
  int threads = 1;                 // lowering and analysis
  // > 0 on CPUs: fit the issue model's constants with this many folds over
  // the workloads (workload i is in fold i % k) and add the held-out row.
  int calibrate_folds = 0;
  // CPUs: whose code the issue model counts (every variant and the fits).
  CpuBackend codegen = CpuBackend::kLlvm;
};

// FailedPrecondition when the device profile lacks what the analyzer needs.
absl::StatusOr<LseEvaluation> EvaluateLse(const ReplayedDataset& data, const DeviceProfile& device,
                                          const LseSettings& settings);

}  // namespace pruner::dataset

#endif  // PRUNER_BENCH_DATASET_LSE_EVALUATION_H_
