// MutateTileSize: move a factor between the parts of one split.
#include <algorithm>

#include "absl/strings/str_cat.h"
#include "common/base/status_macros.h"
#include "common/sketch/annotate_tile_size.h"
#include "common/sketch/annotate_validity.h"
#include "common/sketch/mutate_rules.h"

namespace pruner {
namespace {

// The bound on the innermost part of split step `i`: what the steps right
// after it do with that part decides (see MutateTileSize).
int64_t InnermostBound(const std::vector<Step>& steps, size_t i, DType dtype,
                       const DeviceProfile& device, const AnnotationOptions& options) {
  const Step& split = steps[i];
  const int innermost = split.iter + static_cast<int>(split.lengths.size());
  for (size_t j = i + 1; j < std::min(steps.size(), i + 3); ++j) {
    const Step& s = steps[j];
    if (s.kind != StepKind::kAnnotation || s.stage != split.stage || s.iter != innermost) continue;
    if (s.annotation == IterAnnotation::kThreadX && device.max_threads_per_block > 0) {
      return device.max_threads_per_block;
    }
    if (s.annotation == IterAnnotation::kVectorize) {
      return MaxVectorElements(device, dtype, options);
    }
  }
  return options.max_innermost_split_factor;
}

}  // namespace

absl::StatusOr<State> MutateTileSize(const State& state, const DeviceProfile& device, Rng& rng,
                                     const AnnotationOptions& options) {
  std::vector<Step> steps = state.steps();
  // Replay once to learn each split's element type (stage indices in steps
  // refer to the state of their time).
  State replay = State::Initial(state.original_dag());
  std::vector<size_t> eligible;
  std::vector<int64_t> bounds(steps.size(), 0);
  for (size_t i = 0; i < steps.size(); ++i) {
    const Step& s = steps[i];
    if (s.kind == StepKind::kSplit && s.IsDefined() && s.extent > 1 &&
        s.stage < replay.num_stages()) {
      bounds[i] = InnermostBound(steps, i, replay.stage(s.stage).op->dtype, device, options);
      if (*s.lengths.back() <= bounds[i]) eligible.push_back(i);
    }
    PRUNER_RETURN_IF_ERROR(replay.Apply(s));
  }
  if (eligible.empty()) return absl::FailedPreconditionError("no split to mutate");
  const size_t index = rng.Choice(eligible);
  Step& split = steps[index];
  const int n = static_cast<int>(split.lengths.size());
  // parts[0] is the outer part, parts[1..n] the lengths.
  std::vector<int64_t> parts(n + 1);
  int64_t inner = 1;
  for (int k = 0; k < n; ++k) {
    parts[k + 1] = *split.lengths[k];
    inner *= parts[k + 1];
  }
  parts[0] = (split.extent + inner - 1) / inner;
  const std::vector<int> order = rng.Permutation(n + 1);
  bool moved = false;
  for (int p = 0; p <= n && !moved; ++p) {
    const int src = order[p];
    const int dst = order[(p + 1) % (n + 1)];
    if (parts[src] <= 1) continue;
    std::vector<int64_t> factors;
    for (int64_t f : Divisors(parts[src])) {
      if (f == 1) continue;
      if (dst == n && f * parts[dst] > bounds[index]) continue;
      factors.push_back(f);
    }
    if (factors.empty()) continue;
    const int64_t f = rng.Choice(factors);
    parts[src] /= f;
    parts[dst] *= f;
    moved = true;
  }
  if (!moved) {
    return absl::FailedPreconditionError(
        absl::StrCat("no factor can move in '", StepToString(split), "'"));
  }
  for (int k = 0; k < n; ++k) split.lengths[k] = parts[k + 1];
  return ReplayValidSchedule(state.original_dag(), steps, device, options);
}

}  // namespace pruner
