// One strategy's tuning run over the benchmark's workloads, kept as a
// curve: after every round, the job's wall time, its trials, and for each
// task the schedule that was best so far by the tuner's own (sandboxed,
// self-reported) timing, plus what the round's search did.
//
// The curve names schedules, not just costs, so that the best-so-far
// schedules can later be re-measured together, interleaved, and the curve
// judged by those times instead of the self-reported minima.
//
// Runs fork sandbox children (from the measurer's own thread) and run no
// generated kernel in this process: all runs come before any re-measuring.
#ifndef PRUNER_BENCH_SEARCH_EFFICIENCY_TUNING_RUN_H_
#define PRUNER_BENCH_SEARCH_EFFICIENCY_TUNING_RUN_H_

#include <atomic>
#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "common/device/device_profile.h"
#include "common/search/draft_verify_policy.h"
#include "common/search/search_counters.h"
#include "common/search/search_policy.h"
#include "common/store/records_store.h"
#include "common/measure/measurer.h"
#include "common/tune/tuning_job.h"
#include "common/tune/tuning_options.h"

namespace pruner::bench {

// The knobs every run shares; the rest are TuningOptions' defaults
// (gradient scheduler, 2 parallel builds).
struct RunSettings {
  int64_t trials = 200;  // the whole job's budget, over all workloads
  int per_round = 16;
  int population = 2048;
  int threads = 1;  // OpenMP threads of the measured kernels
  // Off by default: the strategies are compared on their own search; the
  // hand-shaped seed schedules would hand each the same head start.
  bool seed_schedules = false;
};
TuningOptions MakeRunOptions(const RunSettings& settings, const std::string& strategy,
                             uint64_t seed, const std::string& pretrained_device);

// A schedule that became some task's best (self-reported) in a round.
struct Improvement {
  std::string sentence;
  double self_s = 0;  // the tuner's own mean
  int point = 0;      // index of the round (RunTrace::points) that found it
};

struct RoundPoint {
  int task = -1;
  int measured = 0;
  int64_t trials = 0;
  double wall_s = 0;  // job wall time at the end of the round
  // Per task: index into RunTrace::improvements[task] of the best so far
  // (-1: no valid schedule yet).
  std::vector<int> best;
  RoundTime time;
  SearchCounters search;
  std::optional<DraftVerifyRoundStats> draft_verify;
};

struct RunTrace {
  std::string strategy;
  uint64_t seed = 0;
  bool ok = false;
  std::string error;
  double wall_s = 0;
  int64_t trials = 0;
  std::vector<RoundPoint> points;
  std::vector<std::vector<Improvement>> improvements;  // per task, in order found
};

// Runs one TuningJob over `tasks` in `store` with `measurer`, printing a
// line per round when `verbose`. A set `*stop` ends it after the round.
RunTrace RunStrategy(RecordsStore* store, Measurer* measurer, const std::vector<SearchTask>& tasks,
                     const DeviceProfile& device, const TuningOptions& options,
                     const std::atomic<bool>* stop, bool verbose);

}  // namespace pruner::bench

#endif  // PRUNER_BENCH_SEARCH_EFFICIENCY_TUNING_RUN_H_
