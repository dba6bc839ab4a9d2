// A small graph IR for whole networks: tensors with static shapes and
// nodes that name an operator kind, its attributes and its input tensors.
//
// A Graph is the intake format of the tuning service: built-in networks are
// written against GraphBuilder (graph_builder.h), and an ONNX importer will
// produce the same nodes. Fusion (fusion.h) cuts a Graph into groups and
// task extraction (tasks.h) turns each group into a ComputeDag.
//
// Tensors are of three kinds: inputs (data fed at run time), weights
// (parameters: built-in networks give only their shapes, imported models
// their values too) and intermediates (the output
// of exactly one node). Nodes are stored in creation order, which is a
// topological order because a node may only read tensors that already exist.
#ifndef PRUNER_COMMON_GRAPH_GRAPH_H_
#define PRUNER_COMMON_GRAPH_GRAPH_H_

#include <cstdint>
#include <memory>
#include <string>
#include <string_view>
#include <vector>

#include "common/ir/dtype.h"

namespace pruner {

using TensorId = int;

enum class NodeKind : uint8_t {
  // Anchors: ops with a reduction that start a fused group.
  kConv2d,           // (x [N,C,H,W], w [K,C/groups,R,S]) -> [N,K,OH,OW]; NHWC with
                     // attrs.channels_last; w [4,4,C,K] with attrs.winograd
  kDense,            // (x [M,K], w [N,K]) -> [M,N]
  kBatchMatmul,      // (a [B,M,K], b [B,K,N] or [B,N,K] with transpose_b) -> [B,M,N]
  kMaxPool2d,        // (x [N,C,H,W]) -> [N,C,OH,OW]; NHWC with attrs.channels_last
  kAvgPool2d,        // (x [N,C,H,W]) -> [N,C,OH,OW], padded zeros count; likewise
  kGlobalAvgPool2d,  // (x [N,C,H,W]) -> [N,C,1,1]; likewise
  kSoftmax,          // (x) -> same shape, over the last axis
  kLayerNorm,        // (x, [gamma [D], beta [D]]) -> same shape, over the last axis D
  // Element-wise ops: fused into the group of the anchor before them.
  kBiasAdd,   // (x, bias [x.shape[axis]]) -> x.shape
  kRelu,      // max(x, 0)
  kRelu6,     // min(max(x, 0), 6): clip(x, 0, 6) as in MobileNet-V2
  kGelu,      // 0.5 x (1 + erf(x / sqrt(2)))
  kAdd,       // a + b, e.g. a residual connection; numpy broadcasting
  kMultiply,  // a * b, broadcasting
  kSubtract,  // a - b, broadcasting
  kDivide,    // a / b, broadcasting
  kScale,     // x * attrs.scalar, e.g. attention's 1/sqrt(d)
  kErf,       // erf(x)
  kTanh,      // tanh(x)
  kSqrt,      // sqrt(x)
  kSigmoid,   // 1 / (1 + exp(-x))
  kPow,       // x ** attrs.scalar, for exponents 0.5, 1, 2 and 3
  // Layout ops: data movement, never part of a group (see fusion.h); the
  // compiled model's runtime runs them as copies (reshape: none at all).
  kReshape,    // (x) -> attrs.shape (one entry may be -1)
  kTranspose,  // (x) -> x.shape permuted by attrs.perm
  kGather,     // (table, indices int32/int64) -> table.shape with axis attrs.axis replaced
               // by indices.shape: an embedding lookup (axis 0) or a take along an axis;
               // a negative index counts from the end
  kConcat,     // (x0, x1, ...) -> joined along attrs.axis
  kSlice,      // (x) -> x[..., attrs.begin:attrs.end, ...] on axis attrs.axis (step 1)
};

// "conv2d", "dense", "batch_matmul", "max_pool2d", ..., "reshape", "transpose".
std::string_view NodeKindName(NodeKind kind);

enum class NodeClass : uint8_t { kAnchor, kElementwise, kLayout };
NodeClass ClassOf(NodeKind kind);

// Attributes of every kind in one struct; each kind reads only its own
// fields (listed per field) and ignores the others.
struct NodeAttrs {
  // conv2d, pooling: window geometry. conv2d takes its kernel size from the
  // weight shape; pooling from kernel_h / kernel_w.
  int64_t kernel_h = 0;
  int64_t kernel_w = 0;
  int64_t stride_h = 1;
  int64_t stride_w = 1;
  int64_t pad_h = 0;  // symmetric padding on both sides
  int64_t pad_w = 0;
  int64_t dilation_h = 1;  // conv2d only
  int64_t dilation_w = 1;
  int64_t groups = 1;          // conv2d only
  // conv2d and the three poolings: NHWC input and output ([N,H,W,C] ->
  // [N,OH,OW,K]; a conv's weight stays [K,C/groups,R,S]). Set by the
  // channels-last rewrite (channels_last.h), never by an importer.
  bool channels_last = false;
  // conv2d with channels_last, 3x3 and stride 1: Winograd F(m x m, 3x3)
  // (common/ir/winograd.h). The weight input is then the packed
  // [m+2,m+2,C,K] weight, not OIHW, and gives m. Set by the channels-last
  // rewrite, never by an importer.
  bool winograd = false;
  bool transpose_b = false;    // batch_matmul
  // bias_add: the axis the bias runs along; softmax: the last axis (or -1);
  // gather, concat, slice: the axis they work on (non-negative).
  int axis = 1;
  double scalar = 1.0;         // scale: the factor; pow: the exponent
  double eps = 1e-5;           // layer_norm
  std::vector<int64_t> shape;  // reshape: the new shape, one entry may be -1
  std::vector<int> perm;       // transpose: output axis i is input axis perm[i]
  int64_t begin = 0;           // slice: [begin, end) of attrs.axis, 0 <= begin < end <= extent
  int64_t end = 0;
};

enum class TensorKind : uint8_t { kInput, kWeight, kIntermediate };

struct GraphTensor {
  std::string name;
  std::vector<int64_t> shape;
  TensorKind kind = TensorKind::kIntermediate;
  // float32, except integer indices: inputs or weights read only as a
  // gather's indices (and reshapes of them).
  DType dtype = DType::kFloat32;
  int producer = -1;  // node id for intermediates, -1 otherwise
  // A weight's values, row-major, when the graph carries them (imported
  // models); null otherwise. Shared, so copying a Graph never copies weights,
  // and never part of a workload key: tasks depend on shapes only.
  std::shared_ptr<const std::vector<float>> data;
};

struct GraphNode {
  int id = -1;
  std::string name;
  NodeKind kind = NodeKind::kRelu;
  std::vector<TensorId> inputs;
  TensorId output = -1;
  NodeAttrs attrs;
};

class Graph {
 public:
  const std::string& name() const { return name_; }
  const std::vector<GraphTensor>& tensors() const { return tensors_; }
  const std::vector<GraphNode>& nodes() const { return nodes_; }
  const GraphTensor& tensor(TensorId id) const { return tensors_[id]; }
  const GraphNode& node(int id) const { return nodes_[id]; }
  int num_nodes() const { return static_cast<int>(nodes_.size()); }

  // Nodes reading tensor `id` (ascending, each once even if it reads the
  // tensor twice).
  const std::vector<int>& consumers(TensorId id) const { return consumers_[id]; }
  // Tensors the network returns: those marked as outputs, plus every
  // intermediate nobody reads.
  const std::vector<TensorId>& outputs() const { return outputs_; }
  bool is_output(TensorId id) const;

  // One line per node: "name = kind(input names) -> [shape]".
  std::string ToString() const;

 private:
  friend class GraphBuilder;
  // Derives consumers and outputs once the builder is done.
  void Finish(const std::vector<TensorId>& marked_outputs);

  std::string name_;
  std::vector<GraphTensor> tensors_;
  std::vector<GraphNode> nodes_;
  std::vector<std::vector<int>> consumers_;
  std::vector<TensorId> outputs_;
};

}  // namespace pruner

#endif  // PRUNER_COMMON_GRAPH_GRAPH_H_
