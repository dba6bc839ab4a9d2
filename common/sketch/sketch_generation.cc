// The derivation engine (ansor.md §2.1) and Sketch printing.
#include <deque>
#include <utility>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "common/sketch/sketch.h"
#include "common/sketch/sketch_rules.h"

namespace pruner {
namespace {

// Guards against a rule that keeps revisiting a stage without changing it.
constexpr int kMaxDerivationSteps = 100000;

Sketch FinishSketch(SketchCandidate c, std::shared_ptr<const ComputeDag> dag, DeviceKind kind) {
  Sketch sketch;
  sketch.dag = std::move(dag);
  sketch.device_kind = kind;
  sketch.steps = c.state.steps();
  // Reopen the rfactor splits that were built with length 1.
  for (int step : c.record.rfactor_splits) {
    for (auto& length : sketch.steps[step].lengths) length.reset();
  }
  sketch.record = std::move(c.record);
  sketch.state = std::move(c.state);
  return sketch;
}

}  // namespace

absl::StatusOr<std::vector<Sketch>> GenerateSketches(std::shared_ptr<const ComputeDag> dag,
                                                     const DeviceProfile& device,
                                                     const SketchOptions& options) {
  if (dag == nullptr) return absl::InvalidArgumentError("GenerateSketches: null DAG");
  const SketchRuleList rules = device.IsGpu() ? GpuSketchRules() : CpuSketchRules();
  std::vector<Sketch> sketches;
  // Breadth first, like Ansor: all candidates at one depth, then the next.
  std::deque<SketchCandidate> pending;
  pending.push_back(SketchCandidate{State::Initial(dag), {}, dag->num_ops() - 1});
  int derivation_steps = 0;
  while (!pending.empty()) {
    if (++derivation_steps > kMaxDerivationSteps) {
      return absl::InternalError("sketch derivation does not terminate");
    }
    SketchCandidate in = std::move(pending.front());
    pending.pop_front();
    if (in.stage < 0) {
      sketches.push_back(FinishSketch(std::move(in), dag, device.kind));
      continue;
    }
    const AccessAnalysis analysis(in.state.current_dag());
    const SketchContext ctx{device, options, analysis};
    for (const auto& rule : rules) {
      const RuleCondition condition = rule->MeetCondition(ctx, in);
      if (condition == RuleCondition::kSkip) continue;
      SketchCandidate input = in;
      input.record.trace.push_back(absl::StrCat(rule->name(), "@", in.stage));
      auto derived = rule->Apply(ctx, input);
      if (!derived.ok()) {
        return absl::InternalError(absl::StrCat("sketch rule ", rule->name(), " on stage ",
                                                in.stage, " ('", in.state.stage(in.stage).op->name,
                                                "') failed: ", derived.status().message()));
      }
      for (SketchCandidate& c : *derived) pending.push_back(std::move(c));
      if (condition == RuleCondition::kApplyAndSkipRest) break;
    }
  }
  return sketches;
}

std::string Sketch::ToString() const {
  std::string out = absl::StrCat("sketch (", std::string(DeviceKindName(device_kind)), "): ",
                                 absl::StrJoin(record.trace, " -> "), "\n");
  absl::StrAppend(&out, "steps: ", StepsToString(steps), "\n");
  for (const auto& [tensor, splits] : record.tiled) {
    const int stage = state.StageOfTensor(tensor);
    absl::StrAppend(&out, "tiled: ", stage >= 0 ? state.stage(stage).op->name : "?",
                    " spatial splits [", absl::StrJoin(splits, ","), "]\n");
  }
  for (const auto& [tensor, splits] : record.followers) {
    const int stage = state.StageOfTensor(tensor);
    absl::StrAppend(&out, "follows: ", stage >= 0 ? state.stage(stage).op->name : "?",
                    " splits [", absl::StrJoin(splits, ","), "]\n");
  }
  if (!record.rfactor_splits.empty()) {
    absl::StrAppend(&out, "rfactor splits: [", absl::StrJoin(record.rfactor_splits, ","), "]\n");
  }
  absl::StrAppend(&out, state.ToStr());
  return out;
}

}  // namespace pruner
