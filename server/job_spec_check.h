// Checks a submitted JobSpec and turns it into what the engine runs: the
// tasks (from operator specs or a built-in network) and the tuning options.
// Every refusal is InvalidArgument (or NotFound for an unknown network)
// with a message that says what to change. The target device is resolved
// separately (it depends on which workers are registered).
//
// Pure: no server state, so the fuzz target calls it directly.
#ifndef PRUNER_SERVER_JOB_SPEC_CHECK_H_
#define PRUNER_SERVER_JOB_SPEC_CHECK_H_

#include <cstdint>
#include <vector>

#include "absl/status/statusor.h"
#include "common/search/search_policy.h"
#include "common/tune/job_tasks.h"
#include "common/tune/tuning_options.h"
#include "pruner/v1/tuning_service.pb.h"

namespace pruner {

struct JobLimits {
  int64_t max_trial_budget = 1000000;
  int max_measures_per_round = 1024;
  size_t max_name_bytes = 200;
  size_t max_op_spec_bytes = 1000;
  int max_model_tasks = kMaxOpsPerJob;
  size_t max_model_dag_bytes = 64 * 1024;
};

struct CheckedJob {
  TuningOptions options;  // name, strategy, budget, measure options, ...
  std::vector<SearchTask> tasks;
};

// What the spec leaves at zero/empty keeps TuningOptions' defaults (strategy,
// scheduler, per round, seed, TrialMeasureOptions' timing), except that
// search overlaps measurement unless the spec says otherwise. The trial
// budget has no default: zero is refused.
absl::StatusOr<CheckedJob> CheckJobSpec(const v1::JobSpec& spec, const JobLimits& limits = {});

}  // namespace pruner

#endif  // PRUNER_SERVER_JOB_SPEC_CHECK_H_
