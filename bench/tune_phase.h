// The tuning half of bench_tune: one TuningJob per workload on the local
// CPU, a tuning-curve line per round, the job's best distinct records as
// finalists, and the Table-1 breakdown of where the wall time went.
//
// Everything here forks sandbox children (from the measurer's own thread)
// and runs no generated kernel in this process, so it must come before any
// in-process timing (see inprocess_kernel.h).
#ifndef PRUNER_BENCH_TUNE_PHASE_H_
#define PRUNER_BENCH_TUNE_PHASE_H_

#include <atomic>
#include <cstdint>
#include <string>
#include <vector>

#include "common/codegen/cpu_compiler.h"
#include "common/device/device_profile.h"
#include "common/tune/tuning_job.h"
#include "common/tune/tuning_options.h"

namespace pruner::bench {

// The benchmark's knobs; everything else keeps TuningOptions' defaults
// (gradient scheduler, Ansor's measure options: number 3, repeat 3,
// min_repeat_ms 100, 2 parallel builds).
struct TuneSettings {
  int64_t trials = 1000;  // per workload
  int per_round = 64;
  std::string strategy = "ansor-xgb";
  int population = 2048;
  CpuBackend backend = CpuBackend::kLlvm;  // the tuner's builds and the re-measurement's
  double hopeless_factor = TrialMeasureOptions().hopeless_factor;  // 0: every trial timed in full
};
TuningOptions MakeTuningOptions(const TuneSettings& settings);

struct TuneRequest {
  std::string name;  // "dense", "conv2d"
  std::string spec;  // BuildOperator spec
};

struct Finalist {
  std::string sentence;
  double tuned_s = 0;  // the record's mean cost, as the tuner measured it
};

struct TuneOutcome {
  std::string name;
  bool ok = false;  // the job ran and has at least one valid record
  bool interrupted = false;  // *stop was set during or before this job
  std::string error;
  int64_t trials = 0;
  int rounds = 0;
  double wall_s = 0;       // TuningJob::Run wall time
  RoundTime time;          // summed over the rounds
  double best_gflops = 0;  // the tuner's own best (from its sandboxed timing)
  std::vector<Finalist> finalists;  // lowest mean first, distinct sentences
};

// Tunes each request in its own job (so each gets the whole budget), all in
// the records store at `db_path`, with one measurer that is destroyed before
// returning. A set `*stop` ends the current job after its round and skips
// the rest. One outcome per request, in order.
std::vector<TuneOutcome> TuneAll(const std::vector<TuneRequest>& requests,
                                 const DeviceProfile& device, const TuneSettings& settings,
                                 const std::string& db_path, int finalists,
                                 const std::atomic<bool>* stop);

// Tuning wall time and its parts, summed over outcomes.
struct TimeTotals {
  double wall_s = 0;
  RoundTime time;
  // Builds run before the (serial) runs in every batch, so the measure wall
  // time minus the run time is the wall time spent lowering and building.
  double BuildWall() const;
  double Other() const;  // wall not in search, train, measure or db
  double Frac(double seconds) const { return wall_s > 0 ? seconds / wall_s : 0; }
};

// Prints the breakdown per workload and in total; returns the total.
TimeTotals PrintTimeBreakdown(const std::vector<TuneOutcome>& outcomes);

}  // namespace pruner::bench

#endif  // PRUNER_BENCH_TUNE_PHASE_H_
