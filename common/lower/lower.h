// Lowering: schedule state -> loop-nest program.
//
// What the lowered program looks like (see program.h for the IR):
// - Placeholders are input buffers; root compute stages write global
//   buffers of their full shape; stages computed at a loop of another stage
//   (compute_at and cache stages) write buffers of their bound-inferred
//   region, allocated at the attach point and indexed relative to the
//   region's minimum. Inlined stages have no buffer: their bodies are
//   substituted into their readers.
// - Each stage's loops are its iterators in order; every root axis value is
//   rebuilt from the loops (ExpressRootsByLeaves) plus the region minimum.
//   Loops of extent 1 that bind nothing are not emitted (their variable is 0).
// - Points that a non-divisible split adds, and points of a region that lie
//   outside the stage's domain, are skipped by a guard placed directly
//   around the store (as TVM does), so guards never enclose attached stages
//   or barriers.
// - A reduction writes its identity in an init nest placed just before its
//   outermost reduce loop (re-creating the spatial loops that lie inside
//   that loop), then updates acc = combine(acc, body) in the main nest.
// - Stages attached at a loop are emitted at the start of the loop's body,
//   in stage order; on GPUs every run of consecutive shared-memory stages is
//   enclosed by barriers (before: the previous iteration's readers are done;
//   after: the tile is complete before anyone reads it).
// - GPU: one kernel per root stage, launched with the root stage's
//   blockIdx/threadIdx extents. CPU: one function with every root stage in
//   order.
//
// Schedules that cannot run are rejected with InvalidArgument, and the
// message starts "invalid schedule: stage <name>:" and names the limit (this
// is the error class the measurement layer reports as an invalid schedule):
// thread bindings on a CPU, parallel loops on a GPU, nested parallel loops,
// too many threads per block (or per block/grid dimension), too much shared
// memory, a vthread above max_vthread_extent, a vectorized loop wider than
// vector_unit_bytes, a root GPU stage whose loops run more than once with no
// blockIdx/threadIdx binding at all (a kernel that binds only threadIdx, as
// Ansor does for small stages, is accepted), a stage binding a thread axis
// its kernel's root does not bind or wider than the root's, blockIdx bound
// outside a kernel's root stage, a reduction that accumulates into shared or
// global memory outside any threadIdx loop of a multi-thread block (every
// thread would update the same elements), shared/local scope on a GPU root
// stage, an output computed at a loop, and a consumer computed outside its
// producer's attach point. Cross-thread reductions (a reduce loop bound to a
// thread axis) and loops fusing spatial with reduce iterators are not
// supported yet and give Unimplemented.
#ifndef PRUNER_COMMON_LOWER_LOWER_H_
#define PRUNER_COMMON_LOWER_LOWER_H_

#include "absl/status/statusor.h"
#include "common/device/device_profile.h"
#include "common/lower/program.h"
#include "common/schedule/state.h"

namespace pruner {

absl::StatusOr<Program> Lower(const State& state, const DeviceProfile& device);

}  // namespace pruner

#endif  // PRUNER_COMMON_LOWER_LOWER_H_
