// Compute stages for graph nodes: how one node of a fused group becomes
// stages of the group's ComputeDag.
//
// The stages follow the conventions of the operator library (common/ir/ops.h)
// exactly: the same stage order, axis extents, reduce kinds, {"op": ...}
// tags and body expressions. So a group holding only conv2d + bias_add +
// relu prints the same canonical text, and has the same WorkloadKey, as
// Conv2d with bias and relu; likewise dense (+bias, +relu/gelu),
// batch_matmul, pooling, 2-D softmax and 2-D layer norm. What ops.h lacks is
// built here in the same style: relu6, scale, global average pooling,
// poolings on NHWC tensors (NodeAttrs::channels_last), bias_add on any axis,
// and softmax / layer norm over the last axis of tensors of any rank >= 2.
#ifndef PRUNER_COMMON_GRAPH_STAGES_H_
#define PRUNER_COMMON_GRAPH_STAGES_H_

#include <functional>
#include <string>
#include <vector>

#include "absl/status/statusor.h"
#include "common/graph/graph.h"
#include "common/ir/compute_dag.h"

namespace pruner {

// Appends ops in order; a tensor's id is its position, as in ops.h.
class StageBuilder {
 public:
  using BodyFn = std::function<Expr(const std::vector<Expr>& vars)>;

  // layout_free: a weight of the network (Op::is_layout_free).
  int Placeholder(std::string name, std::vector<int64_t> shape, bool layout_free = false);
  // A stage over `axes` (and `reduce_axes` when reduce != kNone), tagged
  // attrs {"op": tag}. body gets the axis variables, spatial then reduce.
  int Compute(std::string name, std::vector<Axis> axes, std::vector<Axis> reduce_axes,
              ReduceKind reduce, std::string tag, const BodyFn& body);
  // An element-wise stage shaped like `input`: out[v] = fn(input[v], v).
  int Pointwise(std::string name, int input, std::string tag,
                const std::function<Expr(Expr value, const std::vector<Expr>& vars)>& fn);

  Expr Read(int tensor, std::vector<Expr> indices) const;
  const std::vector<int64_t>& Shape(int tensor) const { return ops_[tensor]->shape; }

  absl::StatusOr<ComputeDag> Build() &&;

  // Spatial axes named i, j, k, l, then ax4, ax5, ... (the ops.h names).
  static std::vector<Axis> AxesLike(const std::vector<int64_t>& shape);

 private:
  std::vector<OpRef> ops_;
};

// Appends the stages of `node` to `b`. `inputs[i]` is the builder tensor
// holding the node's i-th input, with that input's shape. Returns the
// builder tensor of the node's output. Layout nodes have no stages (they are
// views, see fusion.h) and give InvalidArgument.
absl::StatusOr<int> EmitNodeStages(StageBuilder& b, const GraphNode& node,
                                   const std::vector<int>& inputs);

}  // namespace pruner

#endif  // PRUNER_COMMON_GRAPH_STAGES_H_
