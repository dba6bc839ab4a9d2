// MutateParallel (CPU): change the granularity of a fused parallel loop.
#include "common/base/status_macros.h"
#include "common/sketch/annotate_validity.h"
#include "common/sketch/mutate_rules.h"
#include "common/sketch/sketch_state_queries.h"

namespace pruner {
namespace {

// A parallel annotation of loop 0 right after a fuse that starts at loop 0.
bool IsFusedParallel(const std::vector<Step>& steps, size_t i) {
  if (i == 0) return false;
  const Step& an = steps[i];
  const Step& fu = steps[i - 1];
  return an.kind == StepKind::kAnnotation && an.annotation == IterAnnotation::kParallel &&
         an.iter == 0 && fu.kind == StepKind::kFuse && fu.stage == an.stage &&
         !fu.ints.empty() && fu.ints[0] == 0;
}

}  // namespace

absl::StatusOr<State> MutateParallel(const State& state, const DeviceProfile& device, Rng& rng,
                                     const AnnotationOptions& options) {
  const std::vector<Step>& steps = state.steps();
  std::vector<size_t> candidates;
  for (size_t i = 0; i < steps.size(); ++i) {
    if (IsFusedParallel(steps, i)) candidates.push_back(i);
  }
  if (candidates.empty()) return absl::FailedPreconditionError("no fused parallel loop");
  const size_t index = rng.Choice(candidates);
  const int stage = steps[index].stage;
  const int old_count = static_cast<int>(steps[index - 1].ints.size());

  std::vector<Step> mutated(steps.begin(), steps.begin() + (index - 1));
  PRUNER_ASSIGN_OR_RETURN(auto prefix, State::Replay(state.original_dag(), mutated));
  const Stage& s = prefix.stage(stage);
  int max_fusable = 0;
  while (max_fusable < static_cast<int>(s.iters.size()) &&
         s.iter_kind(max_fusable) == IterKind::kSpatial &&
         s.iters[max_fusable].annotation == IterAnnotation::kNone &&
         !HasAttachedStages(prefix, stage, max_fusable)) {
    ++max_fusable;
  }
  if (max_fusable == 0) return absl::FailedPreconditionError("nothing can be fused");
  const int new_count = 1 + static_cast<int>(rng.Below(max_fusable));
  const int shift = old_count - new_count;
  if (shift == 0) return absl::FailedPreconditionError("the same granularity was drawn");

  std::vector<int> fused;
  for (int i = 0; i < new_count; ++i) fused.push_back(i);
  mutated.push_back(FuseStep(stage, fused));
  mutated.push_back(steps[index]);
  for (size_t j = index + 1; j < steps.size(); ++j) {
    Step step = steps[j];
    if (step.ChangesDag()) {
      return absl::FailedPreconditionError("a later step inserts a stage");
    }
    if (step.kind == StepKind::kComputeAt && step.target_stage == stage) {
      return absl::FailedPreconditionError("a later step attaches to the mutated stage");
    }
    if (step.stage == stage) {
      if (step.kind != StepKind::kAnnotation && step.kind != StepKind::kPragma) {
        return absl::FailedPreconditionError("a later step reshapes the mutated stage");
      }
      if (step.iter != 0) step.iter += shift;
    }
    mutated.push_back(step);
  }
  return ReplayValidSchedule(state.original_dag(), mutated, device, options);
}

}  // namespace pruner
