// Operator fusion: cuts a Graph into groups, each of which becomes one
// ComputeDag (one kernel, one tuning task).
//
// The rule is TVM's "out-element-wise fusable" pattern, kept simple:
// - Anchors (conv2d, dense, batch_matmul, the poolings, softmax, layer_norm;
//   every one has a reduction) each start a group.
// - The group then absorbs the chain of element-wise ops that follow
//   (bias_add, relu, relu6, gelu, add, multiply, scale) as long as the
//   tensor at the end of the chain has exactly one consumer, that consumer
//   is element-wise, not yet in a group and of the same output shape (a
//   broadcast may not grow it), and the tensor is not a graph output. A binary op's other operand (a residual, say) becomes an input
//   of the group. An op with two fusible producers (ResNet's add of the main
//   path and the downsample path) joins the group of the anchor created
//   first in node order, i.e. the one listed first by the network.
// - Inverted-residual fusion (MobileNet-V2's expand -> depthwise), on
//   channels-last convolutions only, i.e. CPU layouts: a depthwise
//   convolution's group joins the group of the 1x1 convolution whose chain
//   computes its input, when that tensor has no other consumer and is not a
//   graph output. The expanded tensor is the largest of the block; fused,
//   a schedule can compute it a band of rows at a time next to the
//   depthwise convolution that reads it (window_seeds.h), so it never
//   leaves the cache. Such a group has two anchors: nodes[0] and the
//   depthwise convolution.
// - Element-wise ops left over (no anchor before them) form element-wise
//   groups by the same chain rule. They have no reduction, so task
//   extraction skips them unless asked (Ansor's include_simple_tasks).
// - Layout ops (reshape, transpose) are views: each is a group of its own of
//   kind kView that is never a task and never joins another group. A group
//   reading a view sees a placeholder with the view's shape, i.e. the data
//   is assumed to be laid out that way in memory already. That is exact for
//   reshape (a row-major reshape moves nothing); for transpose it assumes
//   the runtime materializes it as a copy outside the tuned kernels, which
//   is what TVM does too (a reduction-free injective task that
//   extract_tasks drops by default). This keeps e.g. BERT's batch_matmul
//   tasks plain [B, M, K] x [B, N, K] workloads, equal to ops.h BatchMatmul.
// Intermediates inside a group have one consumer, so nothing outside a group
// reads them, and grouping can never create a cycle.
#ifndef PRUNER_COMMON_GRAPH_FUSION_H_
#define PRUNER_COMMON_GRAPH_FUSION_H_

#include <vector>

#include "absl/status/statusor.h"
#include "common/graph/graph.h"
#include "common/ir/compute_dag.h"

namespace pruner {

enum class GroupKind : uint8_t { kAnchored, kElementwise, kView };

struct FusedGroup {
  GroupKind kind = GroupKind::kAnchored;
  std::vector<int> nodes;        // node ids, ascending; the (first) anchor first
  std::vector<TensorId> inputs;  // tensors read from outside, in first-use order
  TensorId output = -1;          // the last node's output

  // Every anchor has a reduction; element-wise ops and views have none.
  bool has_reduction() const { return kind == GroupKind::kAnchored; }
};

// The groups of `graph`, sorted by output node, which is a topological order
// of the groups (a group's inputs come from groups earlier in the list).
// Every node is in exactly one group.
std::vector<FusedGroup> FuseGraph(const Graph& graph);

// A group of one node (kView for layout nodes). Running every node as its
// own group is the unfused baseline.
FusedGroup SingleNodeGroup(const Graph& graph, int node);

// The group's ComputeDag: one placeholder per input (in `inputs` order,
// with the input tensor's name and shape), then each node's stages in node
// order (stages.h). The DAG's single output is the group's output. kView
// groups have no DAG (InvalidArgument).
absl::StatusOr<ComputeDag> GroupToDag(const Graph& graph, const FusedGroup& group);

}  // namespace pruner

#endif  // PRUNER_COMMON_GRAPH_FUSION_H_
