#include "common/graph/fusion.h"

#include <algorithm>
#include <cctype>
#include <map>
#include <string>

#include "absl/strings/str_cat.h"
#include "common/graph/stages.h"
#include "common/base/status_macros.h"

namespace pruner {
namespace {

// Tensor names like "layer1.0.conv2d_1.weight" become identifiers
// ("layer1_0_conv2d_1_weight") so that ComputeDag::ToString stays parseable.
std::string IdentifierFor(const std::string& name) {
  std::string out;
  for (char c : name) {
    out.push_back(std::isalnum(static_cast<unsigned char>(c)) || c == '_' ? c : '_');
  }
  if (out.empty() || std::isdigit(static_cast<unsigned char>(out[0]))) out = "t" + out;
  return out;
}

// Appends to `group` (number `index`) the element-wise chain that follows
// its last node, under the single-consumer rule of fusion.h.
void GrowChain(const Graph& graph, int index, FusedGroup& group, std::vector<int>& group_of) {
  while (true) {
    const TensorId end = graph.node(group.nodes.back()).output;
    if (graph.is_output(end)) return;
    const std::vector<int>& consumers = graph.consumers(end);
    if (consumers.size() != 1) return;
    const int next = consumers[0];
    if (ClassOf(graph.node(next).kind) != NodeClass::kElementwise || group_of[next] >= 0) return;
    // A broadcasting op that grows the chain's tensor (a bias added to a
    // row, say) would make the group's output larger than its anchor's.
    if (graph.tensor(graph.node(next).output).shape != graph.tensor(end).shape) return;
    group.nodes.push_back(next);
    group_of[next] = index;
  }
}

// The weight shape [K, C/groups, R, S] of a direct (not Winograd) conv2d on
// NHWC tensors; nullptr for any other node.
const std::vector<int64_t>* ChannelsLastConvWeight(const Graph& graph, const GraphNode& node) {
  if (node.kind != NodeKind::kConv2d || !node.attrs.channels_last || node.attrs.winograd) {
    return nullptr;
  }
  const std::vector<int64_t>& w = graph.tensor(node.inputs[1]).shape;
  return w.size() == 4 ? &w : nullptr;
}

// A 1x1 convolution over NHWC with stride 1 and no padding: a GEMM over the
// pixels (MobileNet-V2's expand).
bool IsPointwiseNhwcConv(const Graph& graph, const GraphNode& node) {
  const std::vector<int64_t>* w = ChannelsLastConvWeight(graph, node);
  const NodeAttrs& a = node.attrs;
  return w != nullptr && a.groups == 1 && (*w)[2] == 1 && (*w)[3] == 1 && a.stride_h == 1 &&
         a.stride_w == 1 && a.pad_h == 0 && a.pad_w == 0;
}

// A depthwise convolution over NHWC (one input channel per group).
bool IsDepthwiseNhwcConv(const Graph& graph, const GraphNode& node) {
  const std::vector<int64_t>* w = ChannelsLastConvWeight(graph, node);
  const NodeAttrs& a = node.attrs;
  return w != nullptr && a.groups > 1 && (*w)[1] == 1 && a.dilation_h == 1 && a.dilation_w == 1;
}

// Inverted-residual fusion (fusion.h): moves each depthwise group into the
// group of the 1x1 convolution whose chain ends in the depthwise's input.
// Groups left empty are erased.
void FuseExpandIntoDepthwise(const Graph& graph, std::vector<FusedGroup>& groups,
                             std::vector<int>& group_of) {
  for (int d = 0; d < static_cast<int>(groups.size()); ++d) {
    FusedGroup& dw = groups[d];
    if (dw.kind != GroupKind::kAnchored || dw.nodes.empty()) continue;
    const GraphNode& anchor = graph.node(dw.nodes[0]);
    if (!IsDepthwiseNhwcConv(graph, anchor)) continue;
    const TensorId x = anchor.inputs[0];
    const int producer = graph.tensor(x).producer;
    if (producer < 0 || graph.is_output(x) || graph.consumers(x).size() != 1) continue;
    const int e = group_of[producer];
    if (e < 0) continue;
    FusedGroup& expand = groups[e];
    if (expand.kind != GroupKind::kAnchored || expand.nodes.back() != producer ||
        !IsPointwiseNhwcConv(graph, graph.node(expand.nodes[0]))) {
      continue;
    }
    for (int n : dw.nodes) {
      expand.nodes.push_back(n);
      group_of[n] = e;
    }
    dw.nodes.clear();
  }
  std::vector<int> renumber(groups.size(), -1);
  std::vector<FusedGroup> kept;
  for (size_t i = 0; i < groups.size(); ++i) {
    if (groups[i].nodes.empty()) continue;
    renumber[i] = static_cast<int>(kept.size());
    kept.push_back(std::move(groups[i]));
  }
  for (int& g : group_of) {
    if (g >= 0) g = renumber[g];
  }
  groups = std::move(kept);
}

void FillInputsAndOutput(const Graph& graph, const std::vector<int>& group_of, int index,
                         FusedGroup& group) {
  for (int n : group.nodes) {
    for (TensorId in : graph.node(n).inputs) {
      const int producer = graph.tensor(in).producer;
      const bool inside = producer >= 0 && group_of[producer] == index;
      if (!inside &&
          std::find(group.inputs.begin(), group.inputs.end(), in) == group.inputs.end()) {
        group.inputs.push_back(in);
      }
    }
  }
  group.output = graph.node(group.nodes.back()).output;
}

}  // namespace

std::vector<FusedGroup> FuseGraph(const Graph& graph) {
  std::vector<int> group_of(graph.num_nodes(), -1);
  std::vector<FusedGroup> groups;
  auto start = [&](int node, GroupKind kind) {
    const int index = static_cast<int>(groups.size());
    groups.push_back(FusedGroup{kind, {node}, {}, -1});
    group_of[node] = index;
    if (kind != GroupKind::kView) GrowChain(graph, index, groups.back(), group_of);
  };
  // Anchors first, so that they claim the element-wise ops after them.
  for (const GraphNode& node : graph.nodes()) {
    if (ClassOf(node.kind) == NodeClass::kAnchor) start(node.id, GroupKind::kAnchored);
  }
  FuseExpandIntoDepthwise(graph, groups, group_of);
  for (const GraphNode& node : graph.nodes()) {
    if (group_of[node.id] >= 0) continue;
    start(node.id,
          ClassOf(node.kind) == NodeClass::kLayout ? GroupKind::kView : GroupKind::kElementwise);
  }
  for (int i = 0; i < static_cast<int>(groups.size()); ++i) {
    FillInputsAndOutput(graph, group_of, i, groups[i]);
  }
  std::sort(groups.begin(), groups.end(), [](const FusedGroup& a, const FusedGroup& b) {
    return a.nodes.back() < b.nodes.back();
  });
  return groups;
}

FusedGroup SingleNodeGroup(const Graph& graph, int node) {
  const GraphNode& n = graph.node(node);
  const NodeClass cls = ClassOf(n.kind);
  FusedGroup group{cls == NodeClass::kAnchor        ? GroupKind::kAnchored
                   : cls == NodeClass::kElementwise ? GroupKind::kElementwise
                                                    : GroupKind::kView,
                   {node},
                   {},
                   n.output};
  for (TensorId in : n.inputs) {
    if (std::find(group.inputs.begin(), group.inputs.end(), in) == group.inputs.end()) {
      group.inputs.push_back(in);
    }
  }
  return group;
}

absl::StatusOr<ComputeDag> GroupToDag(const Graph& graph, const FusedGroup& group) {
  if (group.kind == GroupKind::kView) {
    return absl::InvalidArgumentError(absl::StrCat("layout node '", graph.node(group.nodes[0]).name,
                                                   "' is a view and has no ComputeDag"));
  }
  StageBuilder b;
  std::map<TensorId, int> stage_of;
  for (TensorId in : group.inputs) {
    stage_of[in] = b.Placeholder(IdentifierFor(graph.tensor(in).name), graph.tensor(in).shape,
                                 graph.tensor(in).kind == TensorKind::kWeight);
  }
  for (int n : group.nodes) {
    const GraphNode& node = graph.node(n);
    std::vector<int> inputs;
    for (TensorId in : node.inputs) {
      auto it = stage_of.find(in);
      if (it == stage_of.end()) {
        return absl::InternalError(absl::StrCat("group of '", graph.node(group.nodes[0]).name,
                                                "': node '", node.name, "' reads '",
                                                graph.tensor(in).name,
                                                "', which is neither a group input nor computed "
                                                "earlier in the group"));
      }
      inputs.push_back(it->second);
    }
    PRUNER_ASSIGN_OR_RETURN(const int out, EmitNodeStages(b, node, inputs));
    stage_of[node.output] = out;
  }
  return std::move(b).Build();
}

}  // namespace pruner
