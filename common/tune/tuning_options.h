// What a tuning job is started with. Stored with the job (as JSON) so that a
// restarted job continues with exactly the options it began with.
#ifndef PRUNER_COMMON_TUNE_TUNING_OPTIONS_H_
#define PRUNER_COMMON_TUNE_TUNING_OPTIONS_H_

#include <cstdint>
#include <string>
#include <vector>

#include "absl/status/statusor.h"
#include "common/measure/measure_types.h"

namespace pruner {

// How a tuning trial is timed, wherever the job runs (in process, on the
// service's workers, in bench_tune): one warm-up call, then 3 repeats of at
// least 20 ms (one call for the slow early schedules, many for fast ones),
// and a candidate 10x slower than the batch's fastest so far on its checked
// call is timed by that call alone (hopeless_factor). MeasureOptions' own
// defaults are Ansor's LocalRunner (number 3, min_repeat_ms 100), which
// spends seconds on every slow early schedule; tuned finalists are
// re-measured at length anyway.
inline MeasureOptions TrialMeasureOptions() {
  MeasureOptions m;
  m.number = 1;
  m.repeat = 3;
  m.min_repeat_ms = 20;
  m.hopeless_factor = 10;
  return m;
}

struct TuningOptions {
  std::string name;  // free text shown by `pruner jobs`
  // How candidates are found: a name from KnownStrategySpecs()
  // (strategy_spec.h, which says what each is made of).
  std::string strategy = "ansor-xgb";
  // "gradient" (Ansor's task scheduler) or "round-robin".
  std::string scheduler = "gradient";
  int64_t trial_budget = 1000;  // measured programs, failures included
  int measures_per_round = 64;
  // Stop when this many trials pass without the objective improving (0: off).
  int64_t early_stopping = 0;
  // A task stops when this many of its trials pass without improving (0: off).
  int64_t per_task_early_stopping = 0;
  uint64_t seed = 1;

  // Evolutionary search (../shared/specs/ansor.md §3.1). num_iters < 0 means Ansor's
  // default for the model (StrategySpec::DefaultGenerations: 4, or 2 with
  // random scores).
  int population = 2048;
  int num_iters = -1;
  double eps_greedy = 0.05;

  // Measure each task's hand-shaped seed schedules (seed_schedules.h:
  // window reductions, Winograd convolutions, matrix products) before the
  // strategy's own picks. Off to compare search strategies on their own
  // (bench_search_efficiency); the random strategy never uses them.
  bool seed_schedules = true;

  // Learned models predict random scores until they have seen this many
  // records (0: n_tasks * measures_per_round, as Ansor's task scheduler sets).
  int num_warmup_samples = 0;

  // Propose the next round (for another task) while the current one is
  // measured, so search hides behind measurement. Off in process (`pruner
  // tune`): there the search would share the cores with the timed kernels.
  // The service turns it on: workers measure on their own hosts. The next
  // round's scores come from a model that has not seen the current round.
  bool overlap_search = false;

  // moa-pruner and pruner-offline: the device whose latest "pacm"
  // checkpoint in the records database (`pruner pretrain`) initializes the
  // model, e.g. records measured for another CPU or GPU. ansor-mtl-tlp: the
  // device whose records in the database train MTL-TLP's second head.
  std::string pretrained_device;

  // Verified bests: a round's result that would lower its task's best is
  // measured a second time (by another worker when the farm has one) and
  // counts only if the two agree within verify_tolerance (relative). A
  // disputed result never becomes a best (records_store.h).
  bool verify_bests = true;
  double verify_tolerance = 0.25;

  MeasureOptions measure = TrialMeasureOptions();
};

// InvalidArgument naming the bad field for anything out of range.
absl::Status ValidateTuningOptions(const TuningOptions& options);

// The stored form (StoredJob::options_json). Unknown keys are rejected, and
// missing keys keep their defaults so that older jobs still load.
std::string TuningOptionsToJson(const TuningOptions& options);
absl::StatusOr<TuningOptions> TuningOptionsFromJson(const std::string& json);

}  // namespace pruner

#endif  // PRUNER_COMMON_TUNE_TUNING_OPTIONS_H_
