// GPU annotation: thread binding and cooperative fetching.
#include <algorithm>

#include "absl/strings/str_cat.h"
#include "common/base/status_macros.h"
#include "common/sketch/annotate_rules.h"
#include "common/sketch/sketch_state_queries.h"

namespace pruner {
namespace {

absl::Status Bind(State* state, int stage, int iter, IterAnnotation annotation) {
  return state->Apply(AnnotationStep(stage, iter, annotation));
}

// Fuses loops [first, first + count) of `stage` (no step for one loop).
absl::Status FuseRange(State* state, int stage, int first, int count) {
  if (count <= 1) return absl::OkStatus();
  std::vector<int> loops;
  for (int i = first; i < first + count; ++i) loops.push_back(i);
  return state->Apply(FuseStep(stage, loops));
}

// Fuses the consecutive loops from `first` whose names end with `suffix`
// (one tile level of a multi-level tiled stage) and binds the result.
absl::StatusOr<int64_t> BindTileLevel(State* state, int stage, int first, const char* suffix,
                                      IterAnnotation annotation) {
  const Stage& s = state->stage(stage);
  int count = 0;
  while (first + count < static_cast<int>(s.iters.size()) &&
         count < static_cast<int>(s.op->axes.size()) &&
         s.iter_kind(first + count) == IterKind::kSpatial &&
         NameEndsWith(s.iter_name(first + count), suffix)) {
    ++count;
  }
  if (count == 0) {
    return absl::FailedPreconditionError(absl::StrCat(
        "stage '", s.op->name, "' has no '", suffix, "' tile level at loop ", first));
  }
  PRUNER_RETURN_IF_ERROR(FuseRange(state, stage, first, count));
  PRUNER_RETURN_IF_ERROR(Bind(state, stage, first, annotation));
  return state->stage(stage).iter_extent(first);
}

absl::Status BindTiledRoot(State* state, int stage, const DeviceProfile& device) {
  const Stage& s = state->stage(stage);
  int64_t total = 1;
  for (const Axis& axis : s.op->axes) total *= axis.extent;
  const std::string name = s.op->name;
  PRUNER_RETURN_IF_ERROR(BindTileLevel(state, stage, 0, ".0", IterAnnotation::kBlockX).status());
  PRUNER_ASSIGN_OR_RETURN(auto vthreads,
                          BindTileLevel(state, stage, 1, ".1", IterAnnotation::kVThread));
  if (device.max_vthread_extent > 0 && vthreads > device.max_vthread_extent) {
    return absl::OutOfRangeError(absl::StrCat("stage '", name, "': vthread extent ", vthreads,
                                              " exceeds ", device.max_vthread_extent));
  }
  PRUNER_ASSIGN_OR_RETURN(auto threads,
                          BindTileLevel(state, stage, 2, ".2", IterAnnotation::kThreadX));
  if (threads < device.warp_size && total > 2 * static_cast<int64_t>(device.warp_size)) {
    return absl::OutOfRangeError(absl::StrCat("stage '", name, "': ", threads,
                                              " threads per block, fewer than a warp"));
  }
  if (device.max_threads_per_block > 0 && threads > device.max_threads_per_block) {
    return absl::OutOfRangeError(absl::StrCat("stage '", name, "': ", threads,
                                              " threads per block exceed ",
                                              device.max_threads_per_block));
  }
  return absl::OkStatus();
}

absl::Status BindPlainRoot(State* state, int stage, const DeviceProfile& device, Rng& rng) {
  const Stage& s = state->stage(stage);
  int count = 0;
  while (count < static_cast<int>(s.iters.size()) &&
         s.iter_kind(count) == IterKind::kSpatial &&
         s.iters[count].annotation == IterAnnotation::kNone &&
         (count == 0 || !HasAttachedStages(*state, stage, count - 1))) {
    ++count;
  }
  // No spatial loop (a reduction to a scalar): one thread does it all.
  if (count == 0) return absl::OkStatus();
  PRUNER_RETURN_IF_ERROR(FuseRange(state, stage, 0, count));
  const int64_t extent = state->stage(stage).iter_extent(0);
  const int64_t warp = std::max(1, device.warp_size);
  if (extent <= warp) return Bind(state, stage, 0, IterAnnotation::kThreadX);
  std::vector<int64_t> thread_counts;
  const int64_t max_threads = std::max<int64_t>(warp, device.max_threads_per_block);
  for (int64_t t = warp; t <= max_threads && (t == warp || t <= extent); t *= 2) {
    thread_counts.push_back(t);
  }
  const int64_t threads = rng.Choice(thread_counts);
  PRUNER_RETURN_IF_ERROR(state->Apply(SplitStep(stage, 0, extent, {threads})));
  PRUNER_RETURN_IF_ERROR(Bind(state, stage, 0, IterAnnotation::kBlockX));
  return Bind(state, stage, 1, IterAnnotation::kThreadX);
}

absl::Status CooperativeFetch(State* state, int stage, const SketchRecord& record,
                              const DeviceProfile& device, const AnnotationOptions& options,
                              Rng& rng) {
  const Stage& s = state->stage(stage);
  const int consumer_tensor = state->stage(s.attach_stage).op->id;
  auto splits = record.tiled.find(consumer_tensor);
  if (splits == record.tiled.end()) {
    return absl::FailedPreconditionError(absl::StrCat(
        "shared stage '", s.op->name, "' is attached to a stage that was not tiled"));
  }
  // The innermost axis of the cached region is contiguous in memory; a
  // vector must not straddle two of its rows.
  const int64_t innermost = s.nodes[s.num_root_nodes() - 1].extent;
  const int64_t max_vector = MaxVectorElements(device, s.op->dtype, options);
  std::vector<int64_t> vector_lengths;
  for (int64_t v = 1; v <= max_vector; v *= 2) {
    if (innermost % v == 0) vector_lengths.push_back(v);
  }
  const int64_t vector = rng.Choice(vector_lengths);
  PRUNER_RETURN_IF_ERROR(FuseRange(state, stage, 0, static_cast<int>(s.iters.size())));
  const int64_t extent = state->stage(stage).iter_extent(0);
  PRUNER_RETURN_IF_ERROR(state->Apply(SplitStep(stage, 0, extent, {vector})));
  PRUNER_RETURN_IF_ERROR(Bind(state, stage, 1, IterAnnotation::kVectorize));
  if (absl::Status st = state->Apply(FollowFusedSplitStep(stage, 0, splits->second, 1, true));
      !st.ok()) {
    return st;
  }
  return Bind(state, stage, 1, IterAnnotation::kThreadX);
}

}  // namespace

absl::Status BindGpuThreads(State* state, const SketchRecord& record, const DeviceProfile& device,
                            const AnnotationOptions& options, Rng& rng) {
  for (int stage = state->num_stages() - 1; stage >= 0; --stage) {
    const Stage& s = state->stage(stage);
    if (s.is_placeholder() || s.compute_at == ComputeAtKind::kInlined ||
        HasAnnotation(s, IterAnnotation::kThreadX)) {
      continue;
    }
    absl::Status st;
    if (s.compute_at == ComputeAtKind::kRoot) {
      st = record.IsMultiLevelTiled(s.op->id) ? BindTiledRoot(state, stage, device)
                                               : BindPlainRoot(state, stage, device, rng);
    } else if (IsSharedCacheStage(s)) {
      st = CooperativeFetch(state, stage, record, device, options, rng);
    }
    if (!st.ok()) return st;
  }
  return absl::OkStatus();
}

}  // namespace pruner
