// The loop state of a schedule: what replaying a step list on a workload
// gives. Each stage owns an iterator graph (the op's axes as roots; split and
// fuse add nodes) whose current leaves, in order, are the stage's loops.
// Lowering turns a State into a loop-nest program; search mutates step lists
// and replays them.
#ifndef PRUNER_COMMON_SCHEDULE_STATE_H_
#define PRUNER_COMMON_SCHEDULE_STATE_H_

#include <cstdint>
#include <functional>
#include <memory>
#include <string>
#include <vector>

#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "common/ir/compute_dag.h"
#include "common/ir/expr.h"
#include "common/schedule/step.h"

namespace pruner {

enum class IterKind : uint8_t { kSpatial, kReduce, kMixed };

// A node of a stage's iterator graph. Extent -1 means "not known yet": a
// split length that is still open, or anything derived from one.
struct IterNode {
  std::string name;
  int64_t extent = -1;
  IterKind kind = IterKind::kSpatial;
};

// split: inputs = {parent}, outputs = parts outer→inner, lengths = the inner
//        parts' lengths (outputs[1..]); the outer part is ceil(parent/prod).
//        With nparts, the single length is the OUTER part's extent instead.
// fuse:  inputs = parts outer→inner, outputs = {fused}.
struct IterRelation {
  enum class Kind : uint8_t { kSplit, kFuse } kind = Kind::kSplit;
  std::vector<int> inputs;
  std::vector<int> outputs;
  std::vector<int64_t> lengths;  // split only; -1 = open
  bool nparts = false;           // split only
};

// A loop of the stage: a leaf of its iterator graph plus its annotation.
struct Iterator {
  int node = -1;
  IterAnnotation annotation = IterAnnotation::kNone;
};

enum class ComputeAtKind : uint8_t { kRoot, kInlined, kIter };

struct Stage {
  OpRef op;
  std::vector<IterNode> nodes;  // roots first: op axes, then reduce axes
  std::vector<IterRelation> relations;  // in the order they were applied
  std::vector<Iterator> iters;          // current loop order
  ComputeAtKind compute_at = ComputeAtKind::kRoot;
  int attach_stage = -1;  // kIter: the stage we are computed inside
  int attach_node = -1;   // kIter: the leaf node of attach_stage
  int64_t auto_unroll_max_step = 0;
  std::string scope = "global";  // global | shared | local

  const IterNode& node_of(int iter_index) const { return nodes[iters[iter_index].node]; }
  int64_t iter_extent(int iter_index) const { return node_of(iter_index).extent; }
  const std::string& iter_name(int iter_index) const { return node_of(iter_index).name; }
  IterKind iter_kind(int iter_index) const { return node_of(iter_index).kind; }
  // Position of the loop for this leaf node, or -1.
  int IterIndexOfNode(int node) const;
  int num_root_nodes() const { return op->num_axes(); }
  bool is_placeholder() const { return op->is_placeholder(); }
  bool has_reduce() const { return !op->reduce_axes.empty(); }
};

// Each root axis of a stage as an expression of its leaf loops, plus the
// conditions under which the leaves denote a real point (non-divisible
// splits overshoot the parent's extent).
struct RootIndexing {
  std::vector<Expr> root_values;  // one per root node (axis order)
  std::vector<Expr> guards;       // each must hold; empty when splits divide
};
// leaf_value(node) gives the expression for a leaf node. Extents used for the
// guards and strides are the graph's node extents (all must be known).
absl::StatusOr<RootIndexing> ExpressRootsByLeaves(
    const Stage& stage, const std::function<Expr(int node)>& leaf_value);

// Recomputes the extents of derived nodes from the root extents and the
// relations (used after bound inference changed the roots).
void PropagateExtents(Stage* stage);

class State {
 public:
  // One stage per op of the DAG, with the op's axes as loops.
  static State Initial(std::shared_ptr<const ComputeDag> dag);
  // Initial(dag) followed by Apply of each step.
  static absl::StatusOr<State> Replay(std::shared_ptr<const ComputeDag> dag,
                                      const std::vector<Step>& steps);

  // Applies a step (validating every index) and records it.
  absl::Status Apply(const Step& step);

  // The workload the schedule started from, and the current DAG with the
  // stages that cache_read/cache_write/rfactor inserted.
  const std::shared_ptr<const ComputeDag>& original_dag() const { return original_dag_; }
  const ComputeDag& current_dag() const { return *current_dag_; }
  const std::vector<Stage>& stages() const { return stages_; }
  const Stage& stage(int i) const { return stages_[i]; }
  Stage* mutable_stage(int i) { return &stages_[i]; }
  int num_stages() const { return static_cast<int>(stages_.size()); }
  const std::vector<Step>& steps() const { return steps_; }
  std::vector<Step>* mutable_steps() { return &steps_; }

  // True when every split length is chosen; only such states can lower.
  bool IsConcrete() const;
  // Stages attached at (stage, leaf node), in stage order.
  std::vector<int> AttachedStages(int stage, int node) const;
  // Stage index of the op with this tensor id in the current DAG, or -1.
  int StageOfTensor(int tensor_id) const;

  // Loop-nest print used to de-duplicate candidates: two step lists that
  // give the same nest print the same (ansor.md §1.2).
  std::string ToStr() const;
  // The sentence: StepsToString(steps()).
  std::string ToSentence() const { return StepsToString(steps_); }

 private:
  absl::Status ApplySplit(const Step& step, const std::vector<int64_t>& lengths, bool nparts);
  absl::Status ApplyReorder(const Step& step);
  absl::Status ApplyFuse(const Step& step);
  absl::Status ApplyAnnotation(const Step& step);
  absl::Status ApplyPragma(const Step& step);
  absl::Status ApplyComputeAt(const Step& step);
  absl::Status ApplyComputeInline(const Step& step);
  absl::Status ApplyComputeRoot(const Step& step);
  absl::Status ApplyCacheRead(const Step& step);
  absl::Status ApplyCacheWrite(const Step& step);
  absl::Status ApplyRfactor(const Step& step);
  absl::StatusOr<std::vector<int64_t>> FollowedLengths(const Step& step) const;
  // Inserts `stage` at `index`, shifting later stage indices in attachments.
  void InsertStage(int index, Stage stage);
  // The DAG of the current stages; an error (the step's) if they do not
  // form a valid program.
  absl::Status RebuildDag();
  absl::Status CheckStage(int stage) const;
  absl::Status CheckIter(int stage, int iter) const;

  std::shared_ptr<const ComputeDag> original_dag_;
  std::shared_ptr<const ComputeDag> current_dag_;
  std::vector<Stage> stages_;
  std::vector<Step> steps_;
};

// A fresh stage for an op: its axes (spatial, then reduce) as loops.
Stage MakeStage(OpRef op);

}  // namespace pruner

#endif  // PRUNER_COMMON_SCHEDULE_STATE_H_
