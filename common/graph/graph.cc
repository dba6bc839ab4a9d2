#include "common/graph/graph.h"

#include <algorithm>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "common/base/absl_compat.h"
#include "common/ir/tensor.h"

namespace pruner {

std::string_view NodeKindName(NodeKind kind) {
  switch (kind) {
    case NodeKind::kConv2d: return "conv2d";
    case NodeKind::kDense: return "dense";
    case NodeKind::kBatchMatmul: return "batch_matmul";
    case NodeKind::kMaxPool2d: return "max_pool2d";
    case NodeKind::kAvgPool2d: return "avg_pool2d";
    case NodeKind::kGlobalAvgPool2d: return "global_avg_pool2d";
    case NodeKind::kSoftmax: return "softmax";
    case NodeKind::kLayerNorm: return "layer_norm";
    case NodeKind::kBiasAdd: return "bias_add";
    case NodeKind::kRelu: return "relu";
    case NodeKind::kRelu6: return "relu6";
    case NodeKind::kGelu: return "gelu";
    case NodeKind::kAdd: return "add";
    case NodeKind::kMultiply: return "multiply";
    case NodeKind::kSubtract: return "subtract";
    case NodeKind::kDivide: return "divide";
    case NodeKind::kScale: return "scale";
    case NodeKind::kErf: return "erf";
    case NodeKind::kTanh: return "tanh";
    case NodeKind::kSqrt: return "sqrt";
    case NodeKind::kSigmoid: return "sigmoid";
    case NodeKind::kPow: return "pow";
    case NodeKind::kReshape: return "reshape";
    case NodeKind::kTranspose: return "transpose";
    case NodeKind::kGather: return "gather";
    case NodeKind::kConcat: return "concat";
    case NodeKind::kSlice: return "slice";
  }
  return "?";
}

NodeClass ClassOf(NodeKind kind) {
  switch (kind) {
    case NodeKind::kConv2d:
    case NodeKind::kDense:
    case NodeKind::kBatchMatmul:
    case NodeKind::kMaxPool2d:
    case NodeKind::kAvgPool2d:
    case NodeKind::kGlobalAvgPool2d:
    case NodeKind::kSoftmax:
    case NodeKind::kLayerNorm: return NodeClass::kAnchor;
    case NodeKind::kReshape:
    case NodeKind::kTranspose:
    case NodeKind::kGather:
    case NodeKind::kConcat:
    case NodeKind::kSlice: return NodeClass::kLayout;
    default: return NodeClass::kElementwise;
  }
}

bool Graph::is_output(TensorId id) const {
  return std::find(outputs_.begin(), outputs_.end(), id) != outputs_.end();
}

void Graph::Finish(const std::vector<TensorId>& marked_outputs) {
  consumers_.assign(tensors_.size(), {});
  for (const GraphNode& node : nodes_) {
    for (TensorId in : node.inputs) {
      std::vector<int>& c = consumers_[in];
      if (c.empty() || c.back() != node.id) c.push_back(node.id);
    }
  }
  outputs_.clear();
  for (TensorId id = 0; id < static_cast<TensorId>(tensors_.size()); ++id) {
    const bool marked =
        std::find(marked_outputs.begin(), marked_outputs.end(), id) != marked_outputs.end();
    const bool dangling = tensors_[id].kind == TensorKind::kIntermediate && consumers_[id].empty();
    if (marked || dangling) outputs_.push_back(id);
  }
}

std::string Graph::ToString() const {
  std::string out = absl::StrCat("graph ", name_, "\n");
  for (const GraphNode& node : nodes_) {
    std::vector<std::string> inputs;
    for (TensorId in : node.inputs) inputs.push_back(tensors_[in].name);
    absl::StrAppend(&out, node.name, " = ", ToAbsl(NodeKindName(node.kind)), "(",
                    absl::StrJoin(inputs, ", "), ") -> ",
                    ShapeToString(tensors_[node.output].shape), "\n");
  }
  return out;
}

}  // namespace pruner
