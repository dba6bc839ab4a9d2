// CPU annotation rules: parallel outer loops and vectorized inner loops.
#include <algorithm>

#include "common/base/status_macros.h"
#include "common/sketch/annotate_rules.h"
#include "common/sketch/sketch_state_queries.h"

namespace pruner {
namespace {

absl::Status ParallelFrom(State* state, int stage, int first_iter, int64_t max_degree) {
  std::vector<int> to_fuse;
  int64_t degree = 1;
  int iter = first_iter;
  const int num_iters = static_cast<int>(state->stage(stage).iters.size());
  for (; iter < num_iters; ++iter) {
    const Stage& s = state->stage(stage);
    if (s.iter_kind(iter) != IterKind::kSpatial ||
        s.iters[iter].annotation != IterAnnotation::kNone) {
      break;
    }
    to_fuse.push_back(iter);
    degree *= std::max<int64_t>(1, s.iter_extent(iter));
    if (degree > max_degree) break;
    if (HasAttachedStages(*state, stage, iter)) break;
  }
  if (degree == 1) {
    // Nothing to share out here; look inside the attach point instead.
    if (iter < num_iters && HasAttachedStages(*state, stage, iter)) {
      for (int attached : state->AttachedStages(stage, state->stage(stage).iters[iter].node)) {
        PRUNER_RETURN_IF_ERROR(ParallelFrom(state, attached, 0, max_degree));
      }
      return ParallelFrom(state, stage, iter + 1, max_degree);
    }
    return absl::OkStatus();
  }
  if (to_fuse.size() > 1) {
    PRUNER_RETURN_IF_ERROR(state->Apply(FuseStep(stage, to_fuse)));
  }
  return state->Apply(AnnotationStep(stage, to_fuse.front(), IterAnnotation::kParallel));
}

}  // namespace

absl::Status AnnotateParallel(State* state, const DeviceProfile& device) {
  const int64_t max_degree = 16 * static_cast<int64_t>(std::max(1, device.num_cores));
  for (int stage = 0; stage < state->num_stages(); ++stage) {
    const Stage& s = state->stage(stage);
    if (s.is_placeholder() || s.compute_at != ComputeAtKind::kRoot) continue;
    PRUNER_RETURN_IF_ERROR(ParallelFrom(state, stage, 0, max_degree));
  }
  return absl::OkStatus();
}

absl::Status AnnotateVectorization(State* state, const DeviceProfile& device,
                                   const AnnotationOptions& options, Rng& rng) {
  for (int stage = 0; stage < state->num_stages(); ++stage) {
    const Stage& s = state->stage(stage);
    if (s.is_placeholder() || s.compute_at == ComputeAtKind::kInlined ||
        HasAnnotation(s, IterAnnotation::kVectorize)) {
      continue;
    }
    const int64_t max_elements = MaxVectorElements(device, s.op->dtype, options);
    const int num_iters = static_cast<int>(s.iters.size());
    int count = 0;
    int64_t product = 1;
    while (count < num_iters) {
      const int iter = num_iters - 1 - count;
      if (HasAttachedStages(*state, stage, iter)) break;
      if (s.iter_kind(iter) != IterKind::kSpatial ||
          s.iters[iter].annotation != IterAnnotation::kNone) {
        break;
      }
      // In a tiled stage only the innermost loop is known to be contiguous.
      if (IsTiled(s) && count != 0) break;
      product *= std::max<int64_t>(1, s.iter_extent(iter));
      if (product > max_elements) break;
      ++count;
    }
    if (count > 1) count = 1 + static_cast<int>(rng.Below(count - 1));
    if (count == 0) continue;
    const int first = num_iters - count;
    if (count > 1) {
      std::vector<int> loops;
      for (int i = first; i < num_iters; ++i) loops.push_back(i);
      PRUNER_RETURN_IF_ERROR(state->Apply(FuseStep(stage, loops)));
    }
    if (absl::Status st =
            state->Apply(AnnotationStep(stage, first, IterAnnotation::kVectorize));
        !st.ok()) {
      return st;
    }
  }
  return absl::OkStatus();
}

}  // namespace pruner
