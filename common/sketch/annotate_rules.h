// The individual annotation rules that SampleSchedule chains (ansor.md
// §2.4). Each appends steps to a concrete state; an error means the draw is
// invalid. Internal to the annotation library, exposed for tests.
#ifndef PRUNER_COMMON_SKETCH_ANNOTATE_RULES_H_
#define PRUNER_COMMON_SKETCH_ANNOTATE_RULES_H_

#include <cstdint>
#include <vector>

#include "absl/status/status.h"
#include "common/device/device_profile.h"
#include "common/sketch/annotate.h"
#include "common/sketch/random.h"
#include "common/sketch/sketch.h"
#include "common/schedule/state.h"

namespace pruner {

// CPU InitParallel: for every root stage, fuse the outermost spatial loops
// until their product exceeds 16 x num_cores (or a reduce loop, an
// annotation or an attach point is met) and mark the fused loop parallel.
// When that prefix has extent 1 and ends at an attach point, the attached
// stages and the rest of the stage are parallelized instead. Departure: in
// that case Ansor still marks the extent-1 prefix parallel, which nests the
// inner parallel loops inside it and makes the state invalid; we leave it.
absl::Status AnnotateParallel(State* state, const DeviceProfile& device);

// InitUnroll: an auto_unroll_max_step pragma, drawn from `values`, on every
// non-inlined stage that has a reduce loop.
absl::Status AnnotateAutoUnroll(State* state, const std::vector<int64_t>& values, Rng& rng);

// CPU InitVectorization: fuse up to k innermost spatial, unannotated loops
// that hold no attach point (k <= 1 for tiled stages), covering at most
// MaxVectorElements elements, with k drawn from [1, count - 1] when more
// than one qualifies, and vectorize the result.
absl::Status AnnotateVectorization(State* state, const DeviceProfile& device,
                                   const AnnotationOptions& options, Rng& rng);

// GPU InitThreadBind, on a bound-inferred state, last stage to first:
// - a multi-level tiled root stage: fused ".0" loops -> blockIdx.x, ".1" ->
//   vthread (at most max_vthread_extent), ".2" -> threadIdx.x (at least a
//   warp, unless the whole output is at most two warps; at most
//   max_threads_per_block);
// - any other root stage: its leading spatial loops fused; a fused extent of
//   at most a warp -> threadIdx.x, else split by a thread count T ->
//   (blockIdx.x, threadIdx.x). Ansor always uses T = warp size and leaves
//   the rest to mutation; we draw T among warp x 2^k up to
//   max_threads_per_block (and at most the extent) for a more varied start;
// - a shared-memory cache attached in a tiled stage (cooperative fetching):
//   all loops fused, split by [v] with the inner part vectorized, the outer
//   part split by the consumer's thread-level tile sizes (FFSP level 1 over
//   its spatial splits) and bound to threadIdx.x. Ansor starts with v = 1;
//   we draw v among powers of two dividing the innermost region extent with
//   v elements fitting the device's vector width.
absl::Status BindGpuThreads(State* state, const SketchRecord& record, const DeviceProfile& device,
                            const AnnotationOptions& options, Rng& rng);

}  // namespace pruner

#endif  // PRUNER_COMMON_SKETCH_ANNOTATE_RULES_H_
