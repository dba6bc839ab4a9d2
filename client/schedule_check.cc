#include "client/schedule_check.h"

#include <memory>
#include <vector>

#include "absl/strings/str_cat.h"
#include "common/base/status_macros.h"
#include "common/ir/ops.h"
#include "common/ir/reference.h"
#include "common/lower/interpreter.h"
#include "common/lower/lower.h"
#include "common/sketch/annotate.h"
#include "common/sketch/random.h"
#include "common/sketch/sketch.h"

namespace pruner {

absl::StatusOr<ScheduleCheckReport> CheckRandomSchedules(const std::string& op_spec,
                                                         const DeviceProfile& device,
                                                         const ScheduleCheckOptions& options) {
  PRUNER_ASSIGN_OR_RETURN(auto built, BuildOperator(op_spec));
  auto dag = std::make_shared<const ComputeDag>(std::move(built));
  ScheduleCheckReport report;
  report.workload_key = dag->WorkloadKey();
  report.gflop = dag->FlopCount() / 1e9;

  PRUNER_ASSIGN_OR_RETURN(auto sketches, GenerateSketches(dag, device));
  report.num_sketches = static_cast<int>(sketches.size());

  const std::vector<Tensor> inputs = RandomInputs(*dag, options.seed);
  PRUNER_ASSIGN_OR_RETURN(auto want, RunReference(*dag, inputs));

  Rng rng(options.seed);
  const std::vector<State> states =
      SampleInitPopulation(sketches, device, options.num_schedules, rng);
  report.sampled = static_cast<int>(states.size());
  for (const State& state : states) {
    auto program = Lower(state, device);
    if (!program.ok()) {
      ++report.failures[absl::StrCat("lower: ", program.status().message())];
      continue;
    }
    ++report.lowered;
    auto got = RunProgram(*program, inputs);
    if (!got.ok()) {
      ++report.failures[absl::StrCat("interpret: ", got.status().message())];
      continue;
    }
    bool all_close = true;
    for (size_t i = 0; i < got->size() && all_close; ++i) {
      absl::Status close = CheckAllClose((*got)[i], want[i], 1e-3, 1e-4);
      if (!close.ok()) {
        ++report.failures[absl::StrCat("mismatch: ", close.message())];
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
  return report;
}

}  // namespace pruner
