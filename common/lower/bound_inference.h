// Bound inference: how much of each stage a schedule computes, and where.
//
// A root stage computes its whole domain. A stage computed at a loop of
// another stage (compute_at, cache stages) computes, on each iteration of
// that loop, only the region its consumers read during that iteration: the
// union of every consumer read (following reads through inlined stages),
// with the loops enclosing the attach point fixed and every loop inside it
// ranging over its full extent. The region's minimum is therefore a
// symbolic expression over the enclosing loop variables, and its extent a
// constant.
//
// Thread-bound loops enclosing the attach point are relaxed by storage
// scope as in TVM: a shared buffer serves the whole thread block, so the
// threadIdx and vthread loops above it range fully (the region is the
// block's tile); a local buffer is private to one thread, so nothing is
// relaxed; a global buffer relaxes every binding. A stage whose scope is
// "global" but which is attached inside thread bindings takes the default
// scope of the innermost binding kind (threadIdx or vthread: local,
// blockIdx: shared), again as TVM does.
//
// Index arithmetic is exact for sums of loop variables times constants;
// floordiv/floormod of loop variables (fused loops) are bounded by interval
// arithmetic; when reads are not boundable or do not share one symbolic
// base, the region falls back to the producer's full extent for that
// dimension (and `exact` records it). Regions are clamped to the producer's
// domain only when their minimum is a constant; otherwise lowering guards
// the producer's points that fall outside its domain.
//
// Thread relaxation follows the bindings present in the state: before
// threads are bound (e.g. while sketch rules still annotate), nothing is
// relaxed and a shared stage's region is that of one iteration of the
// unbound loops, as in TVM.
//
// Derived loop extents are recomputed with TVM's tightening (PassDownDomain):
// an inner split part never exceeds what is left of its parent unless a
// thread-bound loop derives from it. State's PropagateExtents does not
// tighten, so a cache stage whose region is one thread's tile would
// otherwise keep loops over the vthread and thread factors its split lengths
// were chosen for.
#ifndef PRUNER_COMMON_LOWER_BOUND_INFERENCE_H_
#define PRUNER_COMMON_LOWER_BOUND_INFERENCE_H_

#include <cstdint>
#include <string>
#include <vector>

#include "absl/status/statusor.h"
#include "common/ir/expr.h"
#include "common/lower/program.h"
#include "common/schedule/state.h"

namespace pruner {

// One loop variable per (stage, loop position) of a state: the ids that
// region minimums and lowered programs use. Ids are dense, stage-major, so
// outer loops of a stage get smaller ids than its inner loops.
class LoopVarTable {
 public:
  LoopVarTable() = default;
  explicit LoopVarTable(const State& state);

  int id(int stage, int iter) const { return offsets_[stage] + iter; }
  int stage_of(int id) const { return stage_of_[id]; }
  int iter_of(int id) const { return id - offsets_[stage_of_[id]]; }
  const std::string& name(int id) const { return names_[id]; }
  Expr var(int stage, int iter) const;
  int size() const { return static_cast<int>(names_.size()); }

 private:
  std::vector<int> offsets_;
  std::vector<int> stage_of_;
  std::vector<std::string> names_;
};

// Where one stage is computed and which region of its root axes.
struct StageRegion {
  // Placeholders and inlined stages have no region (empty vectors).
  bool materialized = false;
  bool attached = false;
  int attach_stage = -1;
  int attach_iter = -1;  // loop position in attach_stage
  // The storage scope the stage's buffer gets (see the file comment).
  MemScope scope = MemScope::kGlobal;
  // Per root node (spatial axes, then reduce axes). `min` is over the loop
  // variables of LoopVarTable that enclose the attach point; IntImm(0) for
  // root stages and reduce axes.
  std::vector<Expr> min;
  std::vector<int64_t> extent;
  // Per spatial axis: false where the region fell back to the full extent.
  std::vector<bool> exact;
  // Per spatial axis: the region may reach outside the stage's domain
  // (lowering guards those points).
  std::vector<bool> may_overshoot;
  // Per spatial axis: the global coordinate may be negative.
  std::vector<bool> may_undershoot;
  // Loop variable ids enclosing the stage's nest (its attach path), outermost
  // first. Empty for root stages.
  std::vector<int> enclosing_loops;
};

struct BoundResult {
  // The input state with every attached stage's root extents replaced by its
  // region extents and derived extents recomputed.
  State state;
  LoopVarTable loops;
  std::vector<StageRegion> regions;  // per stage
};

// The full form that lowering uses. Root stages keep their full domain (min
// 0); their derived extents are tightened too. Fails (InvalidArgument) on states that
// cannot be lowered: not concrete, attach points that do not exist, consumers
// computed outside the attach point of their producer, cyclic attachments.
absl::StatusOr<BoundResult> InferBoundDetailed(const State& state);

// A copy of `state` whose attached stages' root extents are the inferred
// region extents, with derived extents propagated.
absl::StatusOr<State> InferBound(const State& state);

// TVM's storage ranks: global 0, shared 1, local 3; thread ranks: blockIdx 0,
// threadIdx and vthread 1; -1 for other annotations.
int ScopeRank(MemScope scope);
int ThreadRank(IterAnnotation annotation);

}  // namespace pruner

#endif  // PRUNER_COMMON_LOWER_BOUND_INFERENCE_H_
