// The channels-last rewrite: a Graph whose convolutions run on NHWC tensors.
//
// PyTorch exports NCHW. On a CPU, NCHW puts the image width innermost, so a
// depthwise convolution over a 7x7 or 14x14 map vectorizes over 7 or 14
// lanes and reads its padding through selects; in NHWC the channels are
// innermost (96 to 1280 of them in MobileNet-V2), every convolution
// vectorizes over its output channels, and a 1x1 convolution is a plain
// [H*W, C] x [C, K] matrix product. TVM's x86 backend and oneDNN convert
// layouts for the same reason.
//
// Every 4-D conv2d becomes a channels_last conv2d (NodeAttrs::channels_last;
// the weights keep their OIHW shape and values: the compiled kernel reads
// them through its own layout). Poolings of an NHWC tensor, and element-wise
// nodes whose 4-D inputs are all at hand in NHWC, follow into NHWC
// (bias_add's axis 1 becomes 3). Every other node
// reads NCHW, through one Transpose per tensor where it is needed, and the
// graph's outputs are NCHW as before, so the rewritten graph computes the
// same values under the same output tensors (by `tensor_map`). A transpose
// that only moves axes of extent 1 is a Reshape: a view, no copy.
#ifndef PRUNER_COMMON_GRAPH_CHANNELS_LAST_H_
#define PRUNER_COMMON_GRAPH_CHANNELS_LAST_H_

#include <vector>

#include "absl/status/statusor.h"
#include "common/graph/graph.h"

namespace pruner {

struct ChannelsLastOptions {
  // 3x3 stride-1 convolutions of a weight the graph holds, whose transformed
  // tiles fit in cache, become Winograd F(m x m, 3x3) convolutions
  // (NodeAttrs::winograd) with the tile m that ChooseWinogradTile picks,
  // reading a packed [m+2, m+2, C, K] weight "<weight>.winograd" (m = 2) or
  // "<weight>.winograd4", packed here when the graph carries the weight's
  // values: 16 multiplies per 2x2 output tile and channel pair instead of
  // 36, or 36 per 4x4 tile instead of 144, as TVM's CPU schedules do for
  // ResNet's 3x3 convolutions.
  bool winograd = false;
  // Every 3x3 stride-1 convolution, not only those where Winograd is
  // expected to pay (ChooseWinogradTile in common/ir/winograd.h): for tests
  // and comparisons. Where no tile pays, m = 2.
  bool winograd_everywhere = false;
  // 2 or 4: only this tile, where its transformed tiles fit in cache
  // (WinogradPays), instead of the one ChooseWinogradTile picks; 0: the one
  // it picks. 2 is session 19's layout (bench/README.md). For comparisons.
  int64_t winograd_tile = 0;
};

struct ChannelsLastGraph {
  Graph graph;
  // For each tensor of the original graph, the tensor of `graph` holding the
  // same values in the same (original) layout; -1 where the rewritten graph
  // has no such tensor (an intermediate only ever needed in NHWC).
  // Inputs, weights and outputs always have one.
  std::vector<TensorId> tensor_map;
  int convs_rewritten = 0;
  int winograd_convs = 0;  // of convs_rewritten
  int transposes_added = 0;  // copies; reshapes (views) are not counted
};

absl::StatusOr<ChannelsLastGraph> ToChannelsLast(const Graph& graph,
                                                  const ChannelsLastOptions& options = {});

}  // namespace pruner

#endif  // PRUNER_COMMON_GRAPH_CHANNELS_LAST_H_
