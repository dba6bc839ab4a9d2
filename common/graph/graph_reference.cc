#include "common/graph/graph_reference.h"

#include <algorithm>
#include <vector>

#include "absl/strings/str_cat.h"
#include "common/graph/fusion.h"
#include "common/base/status_macros.h"
#include "common/ir/reference.h"

namespace pruner {
namespace {

// out[i0, .., in] = x[index with out axis d placed at perm[d]].
Tensor TransposeTensor(const Tensor& x, const std::vector<int>& perm) {
  std::vector<int64_t> shape;
  for (int p : perm) shape.push_back(x.shape[p]);
  Tensor out = Tensor::Zeros(shape, x.dtype);
  const std::vector<int64_t> in_strides = x.strides();
  for (int64_t flat = 0; flat < out.num_elements(); ++flat) {
    const std::vector<int64_t> index = UnflattenIndex(flat, shape);
    int64_t src = 0;
    for (size_t d = 0; d < perm.size(); ++d) src += index[d] * in_strides[perm[d]];
    out.data[flat] = x.data[src];
  }
  return out;
}


absl::StatusOr<Tensor> RunLayout(const GraphNode& node, const std::vector<const Tensor*>& in,
                                 const std::vector<int64_t>& out_shape) {
  const Tensor& x = *in[0];
  const int axis = node.attrs.axis;
  Tensor out = Tensor::Zeros(out_shape, x.dtype);
  switch (node.kind) {
    case NodeKind::kTranspose: return TransposeTensor(x, node.attrs.perm);
    case NodeKind::kGather: {
      const Tensor& indices = *in[1];
      const int64_t outer = ExtentBefore(x.shape, axis), rows = x.shape[axis];
      const int64_t inner = ExtentAfter(x.shape, axis), count = indices.num_elements();
      for (int64_t i = 0; i < count; ++i) {
        int64_t row = static_cast<int64_t>(indices.data[i]);
        if (row < 0) row += rows;
        if (row < 0 || row >= rows) {
          return absl::InvalidArgumentError(absl::StrCat(
              "gather '", node.name, "': index ", indices.data[i], " is outside [", -rows, ", ",
              rows, ")"));
        }
        for (int64_t o = 0; o < outer; ++o) {
          std::copy_n(x.data.begin() + (o * rows + row) * inner, inner,
                      out.data.begin() + (o * count + i) * inner);
        }
      }
      return out;
    }
    case NodeKind::kConcat: {
      const int64_t outer = ExtentBefore(out_shape, axis);
      const int64_t out_row = out_shape[axis] * ExtentAfter(out_shape, axis);
      int64_t column = 0;
      for (const Tensor* t : in) {
        const int64_t row = t->shape[axis] * ExtentAfter(t->shape, axis);
        for (int64_t o = 0; o < outer; ++o) {
          std::copy_n(t->data.begin() + o * row, row, out.data.begin() + o * out_row + column);
        }
        column += row;
      }
      return out;
    }
    case NodeKind::kSlice: {
      const int64_t outer = ExtentBefore(x.shape, axis), inner = ExtentAfter(x.shape, axis);
      const int64_t in_row = x.shape[axis] * inner;
      const int64_t out_row = (node.attrs.end - node.attrs.begin) * inner;
      for (int64_t o = 0; o < outer; ++o) {
        std::copy_n(x.data.begin() + o * in_row + node.attrs.begin * inner, out_row,
                    out.data.begin() + o * out_row);
      }
      return out;
    }
    default: {
      out = x;  // a reshape: the same data
      out.shape = out_shape;
      return out;
    }
  }
}

}  // namespace

absl::StatusOr<std::map<TensorId, Tensor>> RunGraph(const Graph& graph,
                                                    const std::map<TensorId, Tensor>& feeds,
                                                    GraphRunMode mode) {
  std::map<TensorId, Tensor> values;
  for (TensorId id = 0; id < static_cast<TensorId>(graph.tensors().size()); ++id) {
    const GraphTensor& t = graph.tensor(id);
    if (t.kind == TensorKind::kIntermediate) continue;
    auto it = feeds.find(id);
    if (it == feeds.end() || it->second.shape != t.shape) {
      return absl::InvalidArgumentError(absl::StrCat(
          "RunGraph: no feed of shape ", ShapeToString(t.shape), " for tensor '", t.name, "'"));
    }
    values[id] = it->second;
  }
  std::vector<FusedGroup> groups;
  if (mode == GraphRunMode::kFused) {
    groups = FuseGraph(graph);
  } else {
    for (int n = 0; n < graph.num_nodes(); ++n) groups.push_back(SingleNodeGroup(graph, n));
  }
  for (const FusedGroup& group : groups) {
    std::vector<Tensor> inputs;
    for (TensorId in : group.inputs) {
      auto it = values.find(in);
      if (it == values.end()) {
        return absl::InternalError(absl::StrCat("RunGraph: tensor '", graph.tensor(in).name,
                                                "' is read before it is computed"));
      }
      inputs.push_back(it->second);
    }
    if (group.kind == GroupKind::kView) {
      // The node's own inputs: the group's are deduplicated (concat(x, x)).
      const GraphNode& node = graph.node(group.nodes[0]);
      std::vector<const Tensor*> node_inputs;
      for (TensorId in : node.inputs) node_inputs.push_back(&values.at(in));
      PRUNER_ASSIGN_OR_RETURN(Tensor out,
                              RunLayout(node, node_inputs, graph.tensor(group.output).shape));
      values[group.output] = std::move(out);
      continue;
    }
    PRUNER_ASSIGN_OR_RETURN(const ComputeDag dag, GroupToDag(graph, group));
    PRUNER_ASSIGN_OR_RETURN(std::vector<Tensor> outputs, RunReference(dag, inputs));
    if (outputs.size() != 1) {
      return absl::InternalError(absl::StrCat("RunGraph: the group of '",
                                              graph.node(group.nodes[0]).name, "' has ",
                                              outputs.size(), " outputs, expected 1"));
    }
    values[group.output] = std::move(outputs[0]);
  }
  return values;
}

std::map<TensorId, Tensor> RandomFeeds(const Graph& graph, uint64_t seed) {
  std::map<TensorId, Tensor> feeds;
  for (TensorId id = 0; id < static_cast<TensorId>(graph.tensors().size()); ++id) {
    const GraphTensor& t = graph.tensor(id);
    if (t.kind == TensorKind::kIntermediate) continue;
    feeds[id] = RandomTensor(t.shape, seed * 1000003 + static_cast<uint64_t>(id), t.dtype);
  }
  return feeds;
}

absl::StatusOr<std::map<TensorId, Tensor>> ModelFeeds(const Graph& graph,
                                                      const std::map<TensorId, Tensor>& inputs) {
  std::map<TensorId, Tensor> feeds = inputs;
  for (TensorId id = 0; id < static_cast<TensorId>(graph.tensors().size()); ++id) {
    const GraphTensor& t = graph.tensor(id);
    if (t.kind == TensorKind::kInput && feeds.count(id) == 0) {
      return absl::InvalidArgumentError(absl::StrCat("no value for input '", t.name, "'"));
    }
    if (t.kind != TensorKind::kWeight) continue;
    if (t.data == nullptr) {
      return absl::InvalidArgumentError(
          absl::StrCat("weight '", t.name, "' has no values (a built-in network?)"));
    }
    Tensor w;
    w.dtype = t.dtype;
    w.shape = t.shape;
    w.data = *t.data;
    feeds[id] = std::move(w);
  }
  return feeds;
}

}  // namespace pruner
