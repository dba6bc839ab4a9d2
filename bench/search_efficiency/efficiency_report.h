// Judging the runs by re-measured times: which best-so-far schedules to
// re-measure, the re-measured objective along each curve, the time each
// method needs to reach the ansor run's final re-measured best, and the
// per-round overheads of the search.
//
// The objective at a curve point is the job's: Σ weight × time of each
// task's best-so-far schedule (weights are 1 here), where the time is the
// interleaved re-measured median, not the tuner's own minimum.
//
// Which schedules are re-measured (bounded, so the interleaving stays
// short): of each run and task, the best-so-far schedules whose own
// weighted self-reported time is at most kRelevanceFactor × the largest
// final self-reported objective of the baseline runs (a slower one could
// not bring its point under any target unless the tuner's timing were off
// by more than that factor), and of those the last `per_run`; the run's
// final best of each task is always re-measured. A point whose
// best-so-far of some task is not re-measured counts as not reaching.
#ifndef PRUNER_BENCH_SEARCH_EFFICIENCY_EFFICIENCY_REPORT_H_
#define PRUNER_BENCH_SEARCH_EFFICIENCY_EFFICIENCY_REPORT_H_

#include <map>
#include <string>
#include <vector>

#include "bench/search_efficiency/remeasure.h"
#include "bench/search_efficiency/tuning_run.h"
#include "common/search/search_policy.h"

namespace pruner::bench {

inline constexpr double kRelevanceFactor = 2.0;

// Which improvements of each run are re-measured: per run, per task, a
// flag per improvement (see above).
using KeptImprovements = std::vector<std::vector<std::vector<bool>>>;
KeptImprovements ChooseImprovements(const std::vector<SearchTask>& tasks,
                                    const std::vector<RunTrace>& runs, int per_run,
                                    const std::string& baseline);

// Per task, the distinct sentences of the kept improvements.
std::vector<std::vector<std::string>> SentencesToRemeasure(const std::vector<RunTrace>& runs,
                                                           const KeptImprovements& kept,
                                                           size_t num_tasks);

// Per task: sentence -> re-measured time.
using RemeasuredTimes = std::vector<std::map<std::string, RemeasuredTime>>;

// How one run did against its seed's ansor run.
struct ReachResult {
  std::string strategy;
  uint64_t seed = 0;
  bool reached = false;
  double time_s = 0;       // earliest wall time whose re-measured objective <= target
  int64_t trials = 0;      // ... and its trial count
  double final_ratio = 0;  // final re-measured objective / target (< 1 = better)
  double time_ratio = 0;   // time_s / the ansor run's time_s (when both reached)
  double trials_ratio = 0;  // trials / the ansor run's trials to its own final best
  // The run's wall time when every workload first had a measured schedule
  // (the end of its warm-up) / the ansor run's time_s: the objective is a
  // sum over workloads, so no run can reach the target before that; the
  // smallest time_ratio this run could have had.
  double floor_ratio = 0;
};

struct Overheads {
  std::string strategy;
  int rounds = 0;
  double search_s = 0, draft_s = 0, verify_s = 0, predict_s = 0;  // per round, means
  double measure_s = 0, train_s = 0;
  double build_s = 0, run_s = 0;  // inside measure: compiler time (summed), sandbox runs
  double learned_scored = 0;  // states the learned model scored per round
  double drafter_scored = 0;  // states LSE scored per round (draft-verify only)
};

struct EfficiencySummary {
  std::vector<ReachResult> reach;  // one per run with an ansor run of its seed
  std::vector<Overheads> overheads;  // one per strategy, in first-seen order
};

// Prints the curves (self-reported and re-measured objective per round),
// the per-workload and whole-set time to reach the ansor run's final best,
// and the overheads; returns the numbers.
EfficiencySummary ReportEfficiency(const std::vector<SearchTask>& tasks,
                                   const std::vector<RunTrace>& runs,
                                   const KeptImprovements& kept, const RemeasuredTimes& times,
                                   const std::string& baseline);

// Geometric means over `strategy`'s runs: of the time and trial ratios of
// the runs that reached the target (0 when none did), and of every run's
// final ratio. `reached` / `runs` count them.
struct RatioMeans {
  int reached = 0;
  int runs = 0;
  double time_ratio = 0;
  double trials_ratio = 0;
  double final_ratio = 0;
  double floor_ratio = 0;  // over every run
};
RatioMeans GeoMeanRatios(const EfficiencySummary& s, const std::string& strategy);

}  // namespace pruner::bench

#endif  // PRUNER_BENCH_SEARCH_EFFICIENCY_EFFICIENCY_REPORT_H_
