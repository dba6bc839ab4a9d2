// The dataset metrics of the Pruner paper's §6.5, as pure functions of
// measured latencies and model scores (no schedules, no models here).
//
// For each workload i with weight w_i (its occurrences in the network) and
// measured latencies L_i,1..n (all > 0), L*_i = min_j L_i,j:
//
//   Top_k  (Eq. 2) = Σ w_i L*_i / Σ w_i min(L_i,j : j among the k schedules
//                    the model scores highest)
//   Best_k (Eq. 3) = Σ w_i L*_i / Σ w_i (k-th smallest latency among the s
//                    schedules the model scores highest, "S_spec")
//
// Both are 1 for a model that finds each workload's fastest schedule (Best_k
// for k > 1 stays below 1 even then: it compares the k-th best of S_spec with
// the best of all).
//
// Chance, handled exactly: when scores tie across the cut (the k-th or s-th
// place), which tied schedules make it in is a uniform random choice, and a
// workload's denominator term is its EXPECTED value over that choice,
// computed in closed form (the chosen tied schedules are a hypergeometric
// draw). A random draft is the limit case where all scores tie, so
// ExpectedBestK with constant scores is the random baseline's expectation
// (Σ w L* / Σ w E[L̂]); RandomDraftBestK instead averages the Best_k score
// itself over simulated draws, as the paper reports its GA/random baseline
// ("an average of 5000 repeated").
//
// Sizes are clipped: s (or k in Top_k) larger than a workload's count takes
// all its schedules. A workload whose S_spec holds fewer than k schedules has
// no k-th best and is left out of Best_k entirely (numerator and
// denominator: Eq. 3 sums over i with L̂_i,k present); the result says how
// many were left out.
#ifndef PRUNER_BENCH_DATASET_RANKING_METRICS_H_
#define PRUNER_BENCH_DATASET_RANKING_METRICS_H_

#include <cstdint>
#include <vector>

#include "common/base/rank_correlation.h"

namespace pruner::dataset {

// One workload as the metrics see it.
struct ScoredWorkload {
  double weight = 1;
  std::vector<double> latency_s;  // measured, all > 0
  // Parallel to latency_s; higher = predicted faster. -infinity (or NaN):
  // the model could not score it; such schedules rank last, tied. Empty:
  // no model, every schedule ties (a random draft).
  std::vector<double> score;
};

struct WeightedRatio {
  double value = 0;     // Σ w L* / Σ w L̂; NaN when no workload counts
  int workloads = 0;    // workloads in the sums
  int left_out = 0;     // workloads without a k-th best in S_spec
};

// Expected k-th smallest latency among the `take` highest-scored schedules,
// ties at the cut broken uniformly at random (an empty `score` ties them
// all). take is clipped to the count; NaN when fewer than k schedules are
// taken. k >= 1, take >= 1.
double ExpectedKthBestOfTop(const std::vector<double>& latency_s,
                            const std::vector<double>& score, int take, int k);

// The count of S_spec for a workload of n schedules: min(s, n).
int ClippedSize(int s, int n);

// Eq. 3 with S_spec = the s_i highest-scored schedules of workload i
// (spec_sizes parallel to workloads).
WeightedRatio ExpectedBestK(const std::vector<ScoredWorkload>& workloads,
                            const std::vector<int>& spec_sizes, int k);
// The same s for every workload.
WeightedRatio ExpectedBestK(const std::vector<ScoredWorkload>& workloads, int s, int k);

// S_spec sizes for a draft of s schedules out of an explored space of
// `space` (the paper: 4,000 per subgraph), scaled to each workload's count:
// max(1, round(n_i * s / space)). With a few hundred schedules per workload
// an absolute s of 256 or 512 keeps everything (Best_1 = 1 by construction);
// the scaled sizes keep the paper's proportions instead.
std::vector<int> ProportionalSpecSizes(const std::vector<ScoredWorkload>& workloads, int s,
                                       int space);

// Eq. 2.
WeightedRatio ExpectedTopK(const std::vector<ScoredWorkload>& workloads, int k);

struct DrawStats {
  double mean = 0;    // mean over draws of the Best_k score
  double stddev = 0;  // its standard deviation over draws
  int draws = 0;
  int workloads = 0;
  int left_out = 0;
};

// The paper's random baseline: `draws` times, S_spec of each workload is
// min(s, n) schedules drawn uniformly without replacement; the Best_k score
// of each draw is averaged. Scores are ignored. Deterministic for a seed.
DrawStats RandomDraftBestK(const std::vector<ScoredWorkload>& workloads,
                           const std::vector<int>& spec_sizes, int k, int draws, uint64_t seed);

// SpearmanCorrelation: common/base/rank_correlation.h.

}  // namespace pruner::dataset

#endif  // PRUNER_BENCH_DATASET_RANKING_METRICS_H_
