#include "common/sketch/annotate_validity.h"

#include "absl/strings/str_cat.h"
#include "common/base/status_macros.h"
#include "common/lower/bound_inference.h"
#include "common/sketch/sketch_state_queries.h"

namespace pruner {
namespace {

// The root stage whose nest `stage` is computed in.
int KernelRoot(const State& state, int stage) {
  while (state.stage(stage).compute_at == ComputeAtKind::kIter) {
    stage = state.stage(stage).attach_stage;
  }
  return stage;
}

absl::Status LimitError(const Stage& stage, const std::string& what) {
  return absl::OutOfRangeError(absl::StrCat("stage '", stage.op->name, "': ", what));
}

// True when some loop of an enclosing stage, at or outside the loop `stage`
// is attached at, is parallel.
bool InsideParallelLoop(const State& state, int stage) {
  while (state.stage(stage).compute_at == ComputeAtKind::kIter) {
    const Stage& s = state.stage(stage);
    const Stage& outer = state.stage(s.attach_stage);
    const int attach_iter = outer.IterIndexOfNode(s.attach_node);
    for (int i = 0; i <= attach_iter; ++i) {
      if (outer.iters[i].annotation == IterAnnotation::kParallel) return true;
    }
    stage = s.attach_stage;
  }
  return false;
}

absl::Status CheckGpu(const State& state, const DeviceProfile& device,
                      const AnnotationOptions& options) {
  std::vector<int64_t> shared_bytes(state.num_stages(), 0);
  for (int i = 0; i < state.num_stages(); ++i) {
    const Stage& s = state.stage(i);
    if (s.is_placeholder() || s.compute_at == ComputeAtKind::kInlined) continue;
    const int64_t max_vector = MaxVectorElements(device, s.op->dtype, options);
    for (size_t k = 0; k < s.iters.size(); ++k) {
      const IterAnnotation a = s.iters[k].annotation;
      const int64_t extent = s.iter_extent(static_cast<int>(k));
      if (a == IterAnnotation::kParallel) return LimitError(s, "parallel loop on a GPU");
      if (IsThreadIdxBinding(a) && device.max_threads_per_block > 0 &&
          extent > device.max_threads_per_block) {
        return LimitError(s, absl::StrCat(extent, " threads per block exceed ",
                                          device.max_threads_per_block));
      }
      if (a == IterAnnotation::kVThread && device.max_vthread_extent > 0 &&
          extent > device.max_vthread_extent) {
        return LimitError(s, absl::StrCat("vthread extent ", extent, " exceeds ",
                                          device.max_vthread_extent));
      }
      if (a == IterAnnotation::kVectorize && extent > max_vector) {
        return LimitError(s, absl::StrCat("vectorized loop of ", extent,
                                          " elements is wider than ", max_vector));
      }
    }
    if (s.scope == "shared") {
      int64_t elements = 1;
      for (int r = 0; r < s.num_root_nodes(); ++r) elements *= s.nodes[r].extent;
      shared_bytes[KernelRoot(state, i)] += elements * DTypeBytes(s.op->dtype);
    }
  }
  for (int i = 0; i < state.num_stages(); ++i) {
    if (device.max_shared_memory_per_block > 0 &&
        shared_bytes[i] > device.max_shared_memory_per_block) {
      return LimitError(state.stage(i),
                        absl::StrCat(shared_bytes[i], " bytes of shared memory exceed ",
                                     device.max_shared_memory_per_block));
    }
  }
  return absl::OkStatus();
}

absl::Status CheckCpu(const State& state, const DeviceProfile& device,
                      const AnnotationOptions& options) {
  for (int i = 0; i < state.num_stages(); ++i) {
    const Stage& s = state.stage(i);
    if (s.is_placeholder() || s.compute_at == ComputeAtKind::kInlined) continue;
    const int64_t max_vector = MaxVectorElements(device, s.op->dtype, options);
    bool has_parallel = false;
    for (size_t k = 0; k < s.iters.size(); ++k) {
      const IterAnnotation a = s.iters[k].annotation;
      if (IsThreadBinding(a)) return LimitError(s, "thread binding on a CPU");
      has_parallel |= a == IterAnnotation::kParallel;
      if (a == IterAnnotation::kVectorize && s.iter_extent(static_cast<int>(k)) > max_vector) {
        return LimitError(s, absl::StrCat("vectorized loop of ", s.iter_extent(static_cast<int>(k)),
                                          " elements is wider than ", max_vector));
      }
    }
    if (has_parallel && InsideParallelLoop(state, i)) {
      return LimitError(s, "parallel loop nested in a parallel loop");
    }
  }
  return absl::OkStatus();
}

}  // namespace

absl::Status CheckDeviceLimits(const State& state, const DeviceProfile& device,
                               const AnnotationOptions& options) {
  return device.IsGpu() ? CheckGpu(state, device, options) : CheckCpu(state, device, options);
}

absl::StatusOr<State> ReplayValidSchedule(std::shared_ptr<const ComputeDag> dag,
                                          const std::vector<Step>& steps,
                                          const DeviceProfile& device,
                                          const AnnotationOptions& options) {
  PRUNER_ASSIGN_OR_RETURN(auto replayed, State::Replay(std::move(dag), steps));
  if (!replayed.IsConcrete()) {
    return absl::FailedPreconditionError("the schedule has unchosen split lengths");
  }
  auto inferred = InferBound(replayed);
  if (!inferred.ok()) return inferred.status();
  PRUNER_RETURN_IF_ERROR(CheckDeviceLimits(*inferred, device, options));
  return inferred;
}

}  // namespace pruner
