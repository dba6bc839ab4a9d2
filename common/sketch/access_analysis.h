// Static access analysis of a compute DAG, the facts the sketch rules are
// derived from (ansor.md §1.1, TVM's AccessAnalyzer): which ops may always be
// inlined, which ones reuse data and so deserve multi-level tiling, and which
// producer/consumer pairs are element-wise.
//
// The analysis looks at one ComputeDag. A schedule's cache_read, cache_write
// and rfactor steps change the DAG, so rules analyse State::current_dag().
// Because State keeps one stage per op in DAG order, an op index here is
// also a stage index of that state.
#ifndef PRUNER_COMMON_SKETCH_ACCESS_ANALYSIS_H_
#define PRUNER_COMMON_SKETCH_ACCESS_ANALYSIS_H_

#include <vector>

#include "common/ir/compute_dag.h"
#include "common/schedule/state.h"

namespace pruner {

class AccessAnalysis {
 public:
  explicit AccessAnalysis(const ComputeDag& dag);

  // A compute op without reduction whose reads are all "simple" (every index
  // a constant or one of the op's axes plus a constant), with the axes in
  // order and none repeated, and whose body has no transcendental call and
  // no data-dependent branch. Inlining such an op never duplicates costly
  // work or breaks locality. Ops that read nothing are inlineable.
  //
  // Departures from Ansor, which rejects every Select and only counts `exp`
  // as expensive:
  //  - A select whose condition reads no tensor and whose branches are simple
  //    reads or constants (a bounds check, i.e. padding) is accepted. Padding
  //    is then inlined on CPU as on GPU instead of being left to the
  //    compute-location sampler, which keeps conv2d sketches free of a
  //    materialised padded copy.
  //  - Every transcendental call (exp, tanh, erf, sqrt, log, sigmoid) counts
  //    as expensive, not only exp: they cost alike, and inlining one into
  //    several consumers would recompute it.
  bool IsStrictlyInlineable(int op) const { return strictly_inlineable_[op]; }

  // Ansor's HasDataReuse: count the producers for which some spatial axis of
  // the op with extent > 1 appears in none of the indices used to read them
  // (each such element is reused along that axis). Tiling pays off when two
  // producers are reused, or one is and the op reduces.
  bool NeedsMultiLevelTiling(int op) const { return needs_tiling_[op]; }

  // Nobody reads the op.
  bool IsOutput(int op) const { return is_output_[op]; }

  // Follows the chain of single consumers from `op` to `target`: every hop
  // must keep the output shape and read its producer exactly at its own axes
  // (out[i, j] = f(in[i, j], ...)). Stricter than Ansor, which also accepts
  // constant shifts (in[i + 1, j]); a shifted read would make a fused
  // producer's region overhang its tile.
  bool ElementWiseMatch(int op, int target) const;

  int num_ops() const { return static_cast<int>(is_output_.size()); }

 private:
  std::vector<bool> strictly_inlineable_;
  std::vector<bool> needs_tiling_;
  std::vector<bool> is_output_;
  // For each op: its only direct consumer when that consumer reads it
  // element-wise with the same shape, else -1.
  std::vector<int> elementwise_next_;
};

// ---- Queries on a state, which know about inlined stages. ------------------

// The non-inlined stages that read `stage`, passing through inlined ones
// (an inlined consumer's readers read `stage` after inlining). Sorted.
std::vector<int> GetConsumers(const State& state, int stage);
// The non-inlined stages `stage` reads, passing through inlined ones. Sorted.
std::vector<int> GetProducers(const State& state, int stage);
// The stages `stage` reads directly, inlined or not. Sorted.
std::vector<int> GetDirectProducers(const State& state, int stage);

// Ansor's HasSingleElementwiseMatchedConsumer: exactly one (real) consumer,
// reached by an element-wise chain, not both reducing, and not a shared-
// memory cache. On success *target (if not null) is that consumer.
bool HasSingleElementwiseMatchedConsumer(const State& state, const AccessAnalysis& analysis,
                                         int stage, int* target);

}  // namespace pruner

#endif  // PRUNER_COMMON_SKETCH_ACCESS_ANALYSIS_H_
