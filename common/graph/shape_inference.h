// Output shapes of graph nodes, with errors that name the node.
#ifndef PRUNER_COMMON_GRAPH_SHAPE_INFERENCE_H_
#define PRUNER_COMMON_GRAPH_SHAPE_INFERENCE_H_

#include <cstdint>
#include <string_view>
#include <vector>

#include "absl/status/statusor.h"
#include "common/graph/graph.h"

namespace pruner {

// The output shape of a node of `kind` with these attributes and input
// shapes. Checks arity, ranks, that dimensions agree (channels against the
// weight, shapes that broadcast for add/multiply/subtract/divide, bias length, matmul K), windows that
// fit, reshape element counts and transpose permutations. Errors are
// InvalidArgument, prefixed "<kind> '<node_name>': ", e.g.
//   conv2d 'layer1.0.conv2d_1': input [1, 32, 56, 56] has 32 channels but
//   weight [64, 64, 3, 3] expects 64 (64 per group x 1 groups)
// For reshape the result has attrs.shape's -1 entry (if any) resolved.
absl::StatusOr<std::vector<int64_t>> InferShape(NodeKind kind, std::string_view node_name,
                                                const NodeAttrs& attrs,
                                                const std::vector<std::vector<int64_t>>& inputs);

// Numpy broadcasting: shapes aligned from the right, where a dimension of 1
// (or a missing leading one) stretches to the other's. InvalidArgument when
// two dimensions differ and neither is 1.
absl::StatusOr<std::vector<int64_t>> BroadcastShapes(const std::vector<int64_t>& a,
                                                     const std::vector<int64_t>& b);

}  // namespace pruner

#endif  // PRUNER_COMMON_GRAPH_SHAPE_INFERENCE_H_
