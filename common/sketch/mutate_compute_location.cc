// MutateComputeLocation (CPU): move one freely placed stage elsewhere.
#include <utility>

#include "common/base/status_macros.h"
#include "common/lower/bound_inference.h"
#include "common/sketch/annotate_compute_location.h"
#include "common/sketch/annotate_validity.h"
#include "common/sketch/mutate_rules.h"

namespace pruner {

absl::StatusOr<State> MutateComputeLocation(const State& state, const DeviceProfile& device,
                                            Rng& rng, const AnnotationOptions& options) {
  std::vector<Step> steps = state.steps();
  // The state just before each eligible compute_at step.
  std::vector<std::pair<size_t, State>> eligible;
  State replay = State::Initial(state.original_dag());
  for (size_t i = 0; i < steps.size(); ++i) {
    const Step& s = steps[i];
    if (s.kind == StepKind::kComputeAt && s.stage < replay.num_stages() &&
        HasFreeComputeLocation(replay, s.stage)) {
      eligible.emplace_back(i, replay);
    }
    PRUNER_RETURN_IF_ERROR(replay.Apply(s));
  }
  if (eligible.empty()) return absl::FailedPreconditionError("no compute_at step to mutate");
  const auto& [index, before] = eligible[rng.Below(eligible.size())];
  Step& step = steps[index];
  // Candidates skip extent-1 loops, which needs the regions of attached
  // targets; a prefix that cannot be bound-inferred still has usable
  // (whole-domain) extents.
  auto inferred = InferBound(before);
  const State& where = inferred.ok() ? *inferred : before;
  std::vector<std::pair<int, int>> candidates;
  for (const auto& c : ComputeLocationCandidates(where, step.stage)) {
    if (c.first != step.target_stage || c.second != step.target_iter) candidates.push_back(c);
  }
  if (candidates.empty()) return absl::FailedPreconditionError("no other compute location");
  const auto [target, iter] = rng.Choice(candidates);
  step.target_stage = target;
  step.target_iter = iter;
  return ReplayValidSchedule(state.original_dag(), steps, device, options);
}

}  // namespace pruner
