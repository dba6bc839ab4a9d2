#include "common/sketch/seed_finish.h"

#include <utility>

#include "common/sketch/annotate_validity.h"

namespace pruner {

bool VectorizeInnermostLoops(State& state, const std::vector<int>& stages) {
  for (const int s : stages) {
    const int last = static_cast<int>(state.stage(s).iters.size()) - 1;
    if (!state.Apply(AnnotationStep(s, last, IterAnnotation::kVectorize)).ok()) return false;
  }
  return true;
}

std::optional<State> ReplaySeed(std::shared_ptr<const ComputeDag> dag,
                                const std::vector<Step>& steps, const DeviceProfile& device) {
  absl::StatusOr<State> valid = ReplayValidSchedule(std::move(dag), steps, device, {});
  if (!valid.ok()) return std::nullopt;
  return *std::move(valid);
}

}  // namespace pruner
