#include "common/graph/tasks.h"

#include <map>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "common/base/status_macros.h"
#include "common/base/absl_compat.h"
#include "common/ir/winograd.h"

namespace pruner {
namespace {

// Short names of fused element-wise ops in task names.
std::string_view EpilogueName(NodeKind kind) {
  switch (kind) {
    case NodeKind::kBiasAdd: return "bias";
    case NodeKind::kMultiply: return "mul";
    default: return NodeKindName(kind);
  }
}

void AppendWindow(const NodeAttrs& a, std::string* out) {
  if (a.stride_h != 1 || a.stride_w != 1) {
    absl::StrAppend(out, "_stride", a.stride_h,
                    a.stride_h == a.stride_w ? "" : absl::StrCat("x", a.stride_w));
  }
  if (a.pad_h != 0 || a.pad_w != 0) {
    absl::StrAppend(out, "_pad", a.pad_h, a.pad_h == a.pad_w ? "" : absl::StrCat("x", a.pad_w));
  }
}

// A task name is "<kind><epilogue><shape>"; these are the first node's kind
// and shape parts, e.g. {"conv2d", "_N1_C64_H56_W56_K64_R3_S3_pad1"}.
struct HeadName {
  std::string kind;
  std::string shape;
};

HeadName HeadOf(const Graph& graph, const GraphNode& node) {
  const NodeAttrs& a = node.attrs;
  const std::vector<int64_t>& x = graph.tensor(node.inputs[0]).shape;
  const std::string kind(NodeKindName(node.kind));
  switch (node.kind) {
    case NodeKind::kConv2d: {
      const std::vector<int64_t>& w = graph.tensor(node.inputs[1]).shape;
      if (a.winograd) {  // NHWC x, packed w [m+2, m+2, C, K]
        HeadName head{absl::StrCat(kind, "_winograd"),
                      absl::StrCat("_N", x[0], "_C", x[3], "_H", x[1], "_W", x[2], "_K", w[3])};
        AppendWindow(a, &head.shape);
        // F(2x2, 3x3) names stay as they were before F(4x4, 3x3) existed.
        if (w[0] != kWinogradAlpha) absl::StrAppend(&head.shape, "_tile", w[0] - 2);
        absl::StrAppend(&head.shape, "_nhwc");
        return head;
      }
      const bool depthwise = a.groups > 1 && w[1] == 1;
      // Named by the NCHW sizes in either layout; "_nhwc" ends the name.
      const int64_t c = x[a.channels_last ? 3 : 1], h = x[a.channels_last ? 1 : 2],
                    wd = x[a.channels_last ? 2 : 3];
      HeadName head{absl::StrCat(depthwise      ? "depthwise_"
                                 : a.groups > 1 ? "group_"
                                                : "",
                                 kind),
                    absl::StrCat("_N", x[0], "_C", c, "_H", h, "_W", wd, "_K", w[0], "_R", w[2],
                                 "_S", w[3])};
      AppendWindow(a, &head.shape);
      if (a.dilation_h != 1 || a.dilation_w != 1) {
        absl::StrAppend(&head.shape, "_dilation", a.dilation_h, "x", a.dilation_w);
      }
      if (a.groups > 1 && !depthwise) absl::StrAppend(&head.shape, "_g", a.groups);
      if (a.channels_last) absl::StrAppend(&head.shape, "_nhwc");
      return head;
    }
    case NodeKind::kDense:
      return {kind,
              absl::StrCat("_M", x[0], "_K", x[1], "_N", graph.tensor(node.inputs[1]).shape[0])};
    case NodeKind::kBatchMatmul: {
      const std::vector<int64_t>& b = graph.tensor(node.inputs[1]).shape;
      return {kind, absl::StrCat("_B", x[0], "_M", x[1], "_K", x[2], "_N",
                                 a.transpose_b ? b[1] : b[2], a.transpose_b ? "_tb" : "")};
    }
    case NodeKind::kMaxPool2d:
    case NodeKind::kAvgPool2d: {
      const bool nhwc = a.channels_last;
      HeadName head{kind, absl::StrCat("_N", x[0], "_C", x[nhwc ? 3 : 1], "_H", x[nhwc ? 1 : 2],
                                       "_W", x[nhwc ? 2 : 3], "_R", a.kernel_h, "_S", a.kernel_w)};
      AppendWindow(a, &head.shape);
      if (nhwc) absl::StrAppend(&head.shape, "_nhwc");
      return head;
    }
    case NodeKind::kGlobalAvgPool2d: {
      const bool nhwc = a.channels_last;
      return {kind, absl::StrCat("_N", x[0], "_C", x[nhwc ? 3 : 1], "_H", x[nhwc ? 1 : 2], "_W",
                                 x[nhwc ? 2 : 3], nhwc ? "_nhwc" : "")};
    }
    default: return {kind, absl::StrCat("_", absl::StrJoin(x, "x"))};
  }
}

}  // namespace

std::string GroupName(const Graph& graph, const FusedGroup& group) {
  // One "<kind><epilogue><shape>" part per anchor, joined by "_into_" (an
  // inverted-residual group has two, fusion.h).
  std::string name;
  HeadName head;
  for (size_t i = 0; i < group.nodes.size(); ++i) {
    const GraphNode& node = graph.node(group.nodes[i]);
    if (i == 0 || ClassOf(node.kind) == NodeClass::kAnchor) {
      if (i > 0) absl::StrAppend(&name, head.shape, "_into_");
      head = HeadOf(graph, node);
      absl::StrAppend(&name, head.kind);
      continue;
    }
    absl::StrAppend(&name, "_", ToAbsl(EpilogueName(node.kind)));
  }
  return name + head.shape;
}

absl::StatusOr<std::vector<GraphTask>> ExtractTasks(const Graph& graph,
                                                    const ExtractOptions& options) {
  std::vector<GraphTask> tasks;
  std::map<std::string, size_t> task_of_key;
  std::map<std::string, int> name_uses;
  for (const FusedGroup& group : FuseGraph(graph)) {
    if (group.kind == GroupKind::kView) continue;
    if (!group.has_reduction() && !options.include_simple_tasks) continue;
    PRUNER_ASSIGN_OR_RETURN(ComputeDag dag, GroupToDag(graph, group));
    std::string key = dag.WorkloadKey();
    const std::string& first_node = graph.node(group.nodes[0]).name;
    if (auto it = task_of_key.find(key); it != task_of_key.end()) {
      GraphTask& task = tasks[it->second];
      ++task.weight;
      task.occurrences.push_back(first_node);
      continue;
    }
    GraphTask task;
    task.name = GroupName(graph, group);
    // Distinct DAGs whose names coincide (say, two layer norms that differ
    // only in eps) get "_v2", "_v3", ... in order of appearance.
    if (const int uses = name_uses[task.name]++; uses > 0) {
      absl::StrAppend(&task.name, "_v", uses + 1);
    }
    task.workload_key = key;
    task.flops = dag.FlopCount();
    task.dag = std::make_shared<const ComputeDag>(std::move(dag));
    task.weight = 1;
    task.occurrences.push_back(first_node);
    task_of_key.emplace(std::move(key), tasks.size());
    tasks.push_back(std::move(task));
  }
  return tasks;
}

double WeightedFlops(const std::vector<GraphTask>& tasks) {
  double total = 0;
  for (const GraphTask& t : tasks) total += t.weight * t.flops;
  return total;
}

}  // namespace pruner
