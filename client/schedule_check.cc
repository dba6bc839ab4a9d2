#include "client/schedule_check.h"

#include <utility>
#include <vector>

#include "absl/strings/str_cat.h"
#include "common/base/status_macros.h"
#include "common/ir/ops.h"
#include "common/ir/reference.h"
#include "common/lower/interpreter.h"
#include "common/lower/lower.h"
#include "common/measure/local_measurer.h"
#include "common/schedule/step.h"
#include "common/sketch/annotate.h"
#include "common/sketch/random.h"
#include "common/sketch/seed_schedules.h"
#include "common/sketch/sketch.h"

namespace pruner {
namespace {

void KeepFailedSentence(const State& state, const std::string& why, int limit,
                        ScheduleCheckReport* report) {
  if (static_cast<int>(report->failed_sentences.size()) >= limit) return;
  report->failed_sentences.push_back(absl::StrCat(why, "\n      ", state.ToSentence()));
}

absl::StatusOr<std::vector<State>> StatesToCheck(const std::shared_ptr<const ComputeDag>& dag,
                                                 const DeviceProfile& device,
                                                 const ScheduleCheckOptions& options,
                                                 ScheduleCheckReport* report) {
  PRUNER_ASSIGN_OR_RETURN(auto sketches, GenerateSketches(dag, device));
  report->num_sketches = static_cast<int>(sketches.size());
  if (!options.steps.empty()) {
    PRUNER_ASSIGN_OR_RETURN(std::vector<Step> steps, ParseSteps(options.steps));
    PRUNER_ASSIGN_OR_RETURN(State state, State::Replay(dag, steps));
    return std::vector<State>{std::move(state)};
  }
  if (options.seeds) return SeedSchedules(sketches, device);
  Rng rng(options.seed);
  return SampleInitPopulation(sketches, device, options.num_schedules, rng);
}

// Builds and runs the schedules on this CPU: one timed call each, checked
// against the reference inside the sandbox.
void RunOnThisCpu(const std::shared_ptr<const ComputeDag>& dag, const DeviceProfile& device,
                  const std::vector<const State*>& states, const ScheduleCheckOptions& options,
                  ScheduleCheckReport* report) {
  std::vector<MeasureInput> inputs;
  for (const State* state : states) inputs.push_back({dag, state->steps(), device});
  MeasureOptions measure;
  // One given sentence, or a seed, is also timed as tuning times it;
  // sampled ones are only checked, one call each.
  const bool timed = !options.steps.empty() || options.seeds;
  if (!timed) {
    measure.number = 1;
    measure.repeat = 1;
    measure.min_repeat_ms = 0;
  }
  measure.num_threads = options.num_threads;
  measure.seed = options.seed;
  if (!options.march.empty()) measure.build.march = options.march;
  measure.build_timeout_s = options.build_timeout_s;
  measure.build.backend = options.backend;
  const std::vector<MeasureResult> results = MeasureBatch(inputs, measure);
  for (size_t i = 0; i < results.size(); ++i) {
    const MeasureResult& r = results[i];
    ++report->ran;
    if (options.seeds) {
      report->timed_seeds.emplace_back(states[i]->ToSentence(), r.ok() ? r.mean_s : 0);
    }
    if (r.ok()) {
      ++report->run_matched;
      if (!options.steps.empty()) report->run_mean_s = r.mean_s;  // the one sentence
      continue;
    }
    ++report->run_failures[absl::StrCat(std::string(MeasureErrorName(r.error)), " [", r.phase, "]")];
    KeepFailedSentence(*states[i], r.Describe(), options.max_failed_sentences, report);
  }
}

}  // namespace

absl::StatusOr<ScheduleCheckReport> CheckSchedules(std::shared_ptr<const ComputeDag> dag,
                                                   const DeviceProfile& device,
                                                   const ScheduleCheckOptions& options) {
  if (options.run && device.kind != DeviceKind::kCpu) {
    return absl::InvalidArgumentError(
        absl::StrCat("--run builds and runs on this CPU; ", device.name, " is not a CPU profile"));
  }
  if (options.seeds && !options.steps.empty()) {
    return absl::InvalidArgumentError("give --steps or --seeds, not both");
  }
  ScheduleCheckReport report;
  report.workload_key = dag->WorkloadKey();
  report.gflop = dag->FlopCount() / 1e9;
  PRUNER_ASSIGN_OR_RETURN(const std::vector<State> states,
                          StatesToCheck(dag, device, options, &report));
  report.sampled = static_cast<int>(states.size());

  const std::vector<Tensor> inputs = RandomInputs(*dag, options.seed);
  PRUNER_ASSIGN_OR_RETURN(auto want, RunReference(*dag, inputs));
  std::vector<const State*> lowered;
  for (const State& state : states) {
    auto program = Lower(state, device);
    if (!program.ok()) {
      const std::string why = absl::StrCat("lower: ", program.status().message());
      ++report.failures[why];
      KeepFailedSentence(state, why, options.max_failed_sentences, &report);
      continue;
    }
    ++report.lowered;
    lowered.push_back(&state);
    auto got = RunProgram(*program, inputs);
    if (!got.ok()) {
      const std::string why = absl::StrCat("interpret: ", got.status().message());
      ++report.failures[why];
      KeepFailedSentence(state, why, options.max_failed_sentences, &report);
      continue;
    }
    bool all_close = true;
    for (size_t i = 0; i < got->size() && all_close; ++i) {
      absl::Status close = CheckAllClose((*got)[i], want[i], 1e-3, 1e-4);
      if (!close.ok()) {
        const std::string why = absl::StrCat("mismatch: ", close.message());
        ++report.failures[why];
        KeepFailedSentence(state, why, options.max_failed_sentences, &report);
        all_close = false;
      }
    }
    if (!all_close) continue;
    ++report.matched;
    if (options.show_example && report.example.empty()) {
      report.example = absl::StrCat("sentence: ", state.ToSentence(), "\n\nloop state:\n",
                                    state.ToStr(), "\nlowered program:\n", program->ToString());
    }
  }
  if (options.run && !lowered.empty()) RunOnThisCpu(dag, device, lowered, options, &report);
  return report;
}

absl::StatusOr<ScheduleCheckReport> CheckRandomSchedules(const std::string& op_spec,
                                                         const DeviceProfile& device,
                                                         const ScheduleCheckOptions& options) {
  PRUNER_ASSIGN_OR_RETURN(auto built, BuildOperator(op_spec));
  return CheckSchedules(std::make_shared<const ComputeDag>(std::move(built)), device, options);
}

}  // namespace pruner
