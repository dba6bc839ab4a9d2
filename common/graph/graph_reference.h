// Runs a whole Graph on host tensors with the naive reference executor
// (common/ir/reference.h), either one node at a time or one fused group at a
// time. Comparing the two checks that fusion and the group DAGs compute what
// the unfused network computes. Meant for small shapes (tests, checks).
#ifndef PRUNER_COMMON_GRAPH_GRAPH_REFERENCE_H_
#define PRUNER_COMMON_GRAPH_GRAPH_REFERENCE_H_

#include <cstdint>
#include <map>

#include "absl/status/statusor.h"
#include "common/graph/graph.h"
#include "common/ir/tensor.h"

namespace pruner {

enum class GraphRunMode : uint8_t {
  kPerNode,  // every node its own DAG: the unfused baseline
  kFused,    // every group of FuseGraph its own DAG
};

// `feeds` holds a tensor for every input and weight of the graph, by id,
// with the tensor's shape. Returns every tensor the run computed (for
// kFused, group intermediates are not materialized), by id. Views run as
// copies: reshape keeps the data, transpose permutes it.
absl::StatusOr<std::map<TensorId, Tensor>> RunGraph(const Graph& graph,
                                                    const std::map<TensorId, Tensor>& feeds,
                                                    GraphRunMode mode);

// Random feeds (FillRandom) for every input and weight, seeded per tensor.
std::map<TensorId, Tensor> RandomFeeds(const Graph& graph, uint64_t seed);

// Feeds for a graph that carries its weights (an imported model): every
// weight's own values, plus `inputs` (by id). A weight without values or a
// missing input is InvalidArgument.
absl::StatusOr<std::map<TensorId, Tensor>> ModelFeeds(const Graph& graph,
                                                      const std::map<TensorId, Tensor>& inputs);

}  // namespace pruner

#endif  // PRUNER_COMMON_GRAPH_GRAPH_REFERENCE_H_
