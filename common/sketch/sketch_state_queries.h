// Small questions about stages and loops that sketch rules, annotation and
// mutation all ask.
#ifndef PRUNER_COMMON_SKETCH_SKETCH_STATE_QUERIES_H_
#define PRUNER_COMMON_SKETCH_SKETCH_STATE_QUERIES_H_

#include <cstdint>
#include <set>
#include <utility>

#include "common/schedule/state.h"

namespace pruner {

// Ansor's IsTiled: the stage's loops are no longer exactly its axes (some
// split or fuse happened).
inline bool IsTiled(const Stage& stage) {
  return static_cast<int>(stage.iters.size()) != stage.op->num_axes();
}

// No step has touched the stage's loops and it is computed at root.
inline bool IsUntransformedRoot(const Stage& stage) {
  return stage.relations.empty() && stage.compute_at == ComputeAtKind::kRoot;
}

// Some loop of the stage is a reduction loop.
bool HasReduceIter(const Stage& stage);

// Products of the extents of the spatial loops and of the reduce loops
// (Ansor's GetCumulativeSpaceAndReductionLength). Unknown extents count 1.
std::pair<int64_t, int64_t> SpaceAndReduceLength(const Stage& stage);

// The root nodes (axes) node `node` is derived from.
std::set<int> RootAxesOf(const Stage& stage, int node);

// The loop that ends the outermost reduce tile: walking the loops outside
// in, the first reduce loop by which every reduce axis has been seen. This is
// where GPU shared-memory caches attach. -1 when the stage has no reduce
// loop.
int LastReduceIterInOutermostReduceTile(const Stage& stage);

// Some stage is attached at loop `iter` of stage `stage`.
inline bool HasAttachedStages(const State& state, int stage, int iter) {
  return !state.AttachedStages(stage, state.stage(stage).iters[iter].node).empty();
}

inline bool IsSharedCacheStage(const Stage& stage) { return stage.scope == "shared"; }

// Some loop of the stage carries this annotation.
bool HasAnnotation(const Stage& stage, IterAnnotation annotation);

// The name ends with `suffix` (".0" marks the outermost tile level).
bool NameEndsWith(const std::string& name, const char* suffix);

}  // namespace pruner

#endif  // PRUNER_COMMON_SKETCH_SKETCH_STATE_QUERIES_H_
