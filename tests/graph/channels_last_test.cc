// The channels-last rewrite computes what the NCHW graph computes, with its
// convolutions (and the element-wise work after them) on NHWC tensors and a
// transpose only where an NCHW consumer needs one.
#include "common/graph/channels_last.h"

#include <map>
#include <memory>
#include <string>

#include "absl/strings/match.h"
#include "absl/strings/str_cat.h"
#include "common/graph/graph_builder.h"
#include "common/graph/graph_reference.h"
#include "common/graph/tasks.h"
#include "common/ir/tensor.h"
#include "gmock/gmock.h"
#include "gtest/gtest.h"

namespace pruner {
namespace {

// A MobileNet-V2 block and its head: conv 3x3, depthwise 3x3, projecting
// 1x1 conv, a residual add with the block's input, global pooling and a
// classifier, plus a per-channel scale that broadcasts across the layouts.
Graph InvertedResidualNet() {
  GraphBuilder b("block");
  const TensorId x = b.Input("x", {1, 8, 12, 12});
  TensorId y = b.Relu6(b.BiasAdd(b.Conv2d(x, 16, 3, 1, 1)));
  y = b.Relu6(b.BiasAdd(b.Conv2d(y, 16, 3, 1, 1, /*groups=*/16)));
  y = b.BiasAdd(b.Conv2d(y, 8, 1));
  y = b.Add(y, x);
  y = b.Multiply(y, b.Weight("channel_scale", {1, 8, 1, 1}));
  y = b.GlobalAvgPool2d(y);
  b.BiasAdd(b.Dense(b.Reshape(y, {1, 8}), 10));
  absl::StatusOr<Graph> g = std::move(b).Build();
  EXPECT_TRUE(g.ok()) << g.status();
  return g.ok() ? *std::move(g) : Graph();
}

int CountNodes(const Graph& g, NodeKind kind) {
  int n = 0;
  for (const GraphNode& node : g.nodes()) n += node.kind == kind ? 1 : 0;
  return n;
}

TEST(ChannelsLastTest, ComputesTheSameOutputs) {
  const Graph nchw = InvertedResidualNet();
  absl::StatusOr<ChannelsLastGraph> rewritten = ToChannelsLast(nchw);
  ASSERT_TRUE(rewritten.ok()) << rewritten.status();
  const Graph& nhwc = rewritten->graph;

  std::map<TensorId, Tensor> feeds = RandomFeeds(nchw, 100);
  std::map<TensorId, Tensor> mapped_feeds;
  for (const auto& [id, value] : feeds) mapped_feeds[rewritten->tensor_map[id]] = value;
  absl::StatusOr<std::map<TensorId, Tensor>> want = RunGraph(nchw, feeds, GraphRunMode::kFused);
  absl::StatusOr<std::map<TensorId, Tensor>> got =
      RunGraph(nhwc, mapped_feeds, GraphRunMode::kFused);
  ASSERT_TRUE(want.ok()) << want.status();
  ASSERT_TRUE(got.ok()) << got.status();
  ASSERT_EQ(nchw.outputs().size(), 1u);
  ASSERT_EQ(nhwc.outputs().size(), 1u);
  const TensorId out = nchw.outputs()[0];
  EXPECT_EQ(rewritten->tensor_map[out], nhwc.outputs()[0]);
  const absl::Status close = CheckAllClose(got->at(nhwc.outputs()[0]), want->at(out), 1e-5, 1e-5);
  EXPECT_TRUE(close.ok()) << close;
}

TEST(ChannelsLastTest, TransposesOnlyWhereAnNchwConsumerNeedsIt) {
  absl::StatusOr<ChannelsLastGraph> rewritten = ToChannelsLast(InvertedResidualNet());
  ASSERT_TRUE(rewritten.ok()) << rewritten.status();
  const Graph& g = rewritten->graph;
  EXPECT_EQ(rewritten->convs_rewritten, 3);
  // The input into NHWC (read by the first conv and, from the same copy, by
  // the residual add), and the add's result back to NCHW for the scale,
  // which broadcasts a [1, 8, 1, 1] weight. Global pooling then reads NCHW.
  EXPECT_EQ(rewritten->transposes_added, 2);
  EXPECT_EQ(CountNodes(g, NodeKind::kTranspose), 2);
  for (const GraphNode& node : g.nodes()) {
    if (node.kind == NodeKind::kConv2d) EXPECT_TRUE(node.attrs.channels_last) << node.name;
    if (node.kind == NodeKind::kAdd) {
      EXPECT_EQ(g.tensor(node.output).shape, (std::vector<int64_t>{1, 12, 12, 8}));
    }
  }
  absl::StatusOr<std::vector<GraphTask>> tasks = ExtractTasks(g);
  ASSERT_TRUE(tasks.ok()) << tasks.status();
  std::vector<std::string> names;
  for (const GraphTask& t : *tasks) names.push_back(t.name);
  EXPECT_THAT(names, ::testing::IsSupersetOf(
                         {"conv2d_bias_relu6_N1_C8_H12_W12_K16_R3_S3_pad1_nhwc",
                          "depthwise_conv2d_bias_relu6_N1_C16_H12_W12_K16_R3_S3_pad1_nhwc",
                          "conv2d_bias_add_N1_C16_H12_W12_K8_R1_S1_nhwc"}));
}

TEST(ChannelsLastTest, AGraphWithoutConvolutionsKeepsItsTasks) {
  GraphBuilder b("mlp");
  b.Relu(b.BiasAdd(b.Dense(b.Input("x", {4, 32}), 16)));
  absl::StatusOr<Graph> g = std::move(b).Build();
  ASSERT_TRUE(g.ok()) << g.status();
  absl::StatusOr<ChannelsLastGraph> rewritten = ToChannelsLast(*g);
  ASSERT_TRUE(rewritten.ok()) << rewritten.status();
  EXPECT_EQ(rewritten->convs_rewritten, 0);
  EXPECT_EQ(rewritten->transposes_added, 0);
  absl::StatusOr<std::vector<GraphTask>> before = ExtractTasks(*g);
  absl::StatusOr<std::vector<GraphTask>> after = ExtractTasks(rewritten->graph);
  ASSERT_TRUE(before.ok() && after.ok());
  ASSERT_EQ(before->size(), after->size());
  for (size_t i = 0; i < before->size(); ++i) {
    EXPECT_EQ((*before)[i].dag->WorkloadKey(), (*after)[i].dag->WorkloadKey());
  }
}

TEST(ChannelsLastTest, PoolingsFollowIntoNhwcAndAPermutationOfUnitAxesIsAView) {
  // A max pool and a global pool after a conv: both run NHWC, and the pooled
  // [1, 1, 1, 8] is [1, 8, 1, 1] in memory already, so the reshape to [1, 8]
  // reads it through a view.
  GraphBuilder b("pool");
  const TensorId y = b.Relu(b.BiasAdd(b.Conv2d(b.Input("x", {1, 4, 6, 6}), 8, 3, 1, 1)));
  const TensorId pooled = b.GlobalAvgPool2d(b.MaxPool2d(y, 3, 2, 1));
  b.Dense(b.Reshape(pooled, {1, 8}), 3);
  absl::StatusOr<Graph> g = std::move(b).Build();
  ASSERT_TRUE(g.ok()) << g.status();
  absl::StatusOr<ChannelsLastGraph> rewritten = ToChannelsLast(*g);
  ASSERT_TRUE(rewritten.ok()) << rewritten.status();
  EXPECT_EQ(rewritten->transposes_added, 1);  // the input
  for (const GraphNode& node : rewritten->graph.nodes()) {
    if (node.kind == NodeKind::kMaxPool2d || node.kind == NodeKind::kGlobalAvgPool2d) {
      EXPECT_TRUE(node.attrs.channels_last) << node.name;
    }
  }
  std::map<TensorId, Tensor> feeds = RandomFeeds(*g, 100);
  std::map<TensorId, Tensor> mapped_feeds;
  for (const auto& [id, value] : feeds) mapped_feeds[rewritten->tensor_map[id]] = value;
  absl::StatusOr<std::map<TensorId, Tensor>> want = RunGraph(*g, feeds, GraphRunMode::kFused);
  absl::StatusOr<std::map<TensorId, Tensor>> got =
      RunGraph(rewritten->graph, mapped_feeds, GraphRunMode::kFused);
  ASSERT_TRUE(want.ok() && got.ok()) << want.status() << got.status();
  const TensorId out = g->outputs()[0];
  EXPECT_TRUE(CheckAllClose(got->at(rewritten->tensor_map[out]), want->at(out), 1e-5, 1e-5).ok());
  // With one channel, NCHW [1, 1, 5, 5] is NHWC [1, 5, 5, 1] in memory: both
  // changes of layout are reshapes (views), no copies.
  GraphBuilder one("one_channel");
  one.Relu(one.Conv2d(one.Input("x", {1, 1, 5, 5}), 1, 3, 1, 1));
  absl::StatusOr<Graph> g1 = std::move(one).Build();
  ASSERT_TRUE(g1.ok()) << g1.status();
  absl::StatusOr<ChannelsLastGraph> r1 = ToChannelsLast(*g1);
  ASSERT_TRUE(r1.ok()) << r1.status();
  EXPECT_EQ(r1->transposes_added, 0);
  EXPECT_EQ(CountNodes(r1->graph, NodeKind::kReshape), 2);
}

// A ResNet basic block on a 7x7 map (odd, so the last Winograd tiles are
// partial) whose weights carry values, plus a stride-2 and a grouped 3x3
// conv, which have no Winograd form.
Graph BasicBlockWithValues() {
  GraphBuilder b("basic_block");
  int weights = 0;
  auto conv = [&](TensorId x, int64_t in_channels, int64_t out_channels, int64_t stride,
                  int64_t groups) {
    Tensor w = Tensor::Zeros({out_channels, in_channels / groups, 3, 3});
    FillRandom(&w, 500 + weights);
    const TensorId weight =
        b.Weight(absl::StrCat("w", weights++), w.shape,
                 std::make_shared<const std::vector<float>>(std::move(w.data)));
    NodeAttrs a;
    a.stride_h = a.stride_w = stride;
    a.pad_h = a.pad_w = 1;
    a.groups = groups;
    return b.AddNode(NodeKind::kConv2d, {x, weight}, a);
  };
  const TensorId x = b.Input("x", {1, 8, 7, 7});
  TensorId y = b.Relu(b.BiasAdd(conv(x, 8, 8, 1, 1)));
  y = b.Relu(b.Add(b.BiasAdd(conv(y, 8, 8, 1, 1)), x));
  y = b.Relu(conv(y, 8, 16, 2, 1));
  conv(y, 16, 16, 1, 4);
  absl::StatusOr<Graph> g = std::move(b).Build();
  EXPECT_TRUE(g.ok()) << g.status();
  return g.ok() ? *std::move(g) : Graph();
}

class WinogradTileTest : public ::testing::TestWithParam<int64_t> {};

// With each tile forced: F(2x2, 3x3) keeps the names and weights it had
// before F(4x4, 3x3) existed; F(4x4, 3x3)'s names end in "_tile4".
TEST_P(WinogradTileTest, ComputeTheSameOutputsFromPackedWeights) {
  const int64_t tile = GetParam();
  const Graph nchw = BasicBlockWithValues();
  absl::StatusOr<ChannelsLastGraph> rewritten =
      ToChannelsLast(nchw, {.winograd = true, .winograd_tile = tile});
  ASSERT_TRUE(rewritten.ok()) << rewritten.status();
  EXPECT_EQ(rewritten->convs_rewritten, 4);
  EXPECT_EQ(rewritten->winograd_convs, 2);
  const Graph& g = rewritten->graph;
  for (const GraphNode& node : g.nodes()) {
    if (node.kind != NodeKind::kConv2d || !node.attrs.winograd) continue;
    EXPECT_EQ(g.tensor(node.inputs[1]).shape,
              (std::vector<int64_t>{tile + 2, tile + 2, 8, 8}));
    EXPECT_TRUE(absl::EndsWith(g.tensor(node.inputs[1]).name,
                               tile == 2 ? ".winograd" : ".winograd4"));
  }
  absl::StatusOr<std::vector<GraphTask>> tasks = ExtractTasks(g);
  ASSERT_TRUE(tasks.ok()) << tasks.status();
  std::vector<std::string> names;
  for (const GraphTask& t : *tasks) names.push_back(t.name);
  const std::string suffix = tile == 2 ? "_nhwc" : "_tile4_nhwc";
  EXPECT_THAT(names, ::testing::IsSupersetOf(std::vector<std::string>{
                         "conv2d_winograd_bias_relu_N1_C8_H7_W7_K8_pad1" + suffix,
                         "conv2d_winograd_bias_add_relu_N1_C8_H7_W7_K8_pad1" + suffix,
                         "conv2d_relu_N1_C8_H7_W7_K16_R3_S3_stride2_pad1_nhwc",
                         "group_conv2d_N1_C16_H4_W4_K16_R3_S3_pad1_g4_nhwc"}));

  // Both graphs run on the same random feeds, except that the conv weights
  // keep their own values, from which the packed weights were made.
  std::map<TensorId, Tensor> feeds = RandomFeeds(nchw, 100);
  for (auto& [id, value] : feeds) {
    if (nchw.tensor(id).data != nullptr) value.data = *nchw.tensor(id).data;
  }
  std::map<TensorId, Tensor> mapped_feeds;
  for (const auto& [id, value] : feeds) mapped_feeds[rewritten->tensor_map[id]] = value;
  for (TensorId id = 0; id < static_cast<TensorId>(g.tensors().size()); ++id) {
    const GraphTensor& t = g.tensor(id);
    if (t.kind != TensorKind::kWeight || mapped_feeds.count(id) != 0) continue;
    ASSERT_NE(t.data, nullptr) << t.name;
    Tensor packed = Tensor::Zeros(t.shape);
    packed.data = *t.data;
    mapped_feeds[id] = std::move(packed);
  }
  absl::StatusOr<std::map<TensorId, Tensor>> want = RunGraph(nchw, feeds, GraphRunMode::kFused);
  absl::StatusOr<std::map<TensorId, Tensor>> got = RunGraph(g, mapped_feeds, GraphRunMode::kFused);
  ASSERT_TRUE(want.ok() && got.ok()) << want.status() << got.status();
  const TensorId out = nchw.outputs()[0];
  const absl::Status close =
      CheckAllClose(got->at(rewritten->tensor_map[out]), want->at(out), 1e-4, 1e-4);
  EXPECT_TRUE(close.ok()) << close;
}

INSTANTIATE_TEST_SUITE_P(Tiles, WinogradTileTest, ::testing::Values(2, 4));

TEST(ChannelsLastTest, WinogradOnlyWhereItsTilesFitInCache) {
  // ResNet-18's first block as F(4x4, 3x3): 36 x 196 tiles x 64 channels is
  // 1.8 MB of transformed tiles, within ChooseWinogradTile's 2 MiB; its
  // third stage's F(4x4, 3x3) weight would be 9.4 MB, so it takes
  // F(2x2, 3x3) (0.8 MB of tiles); 64 channels at 112x112 take neither.
  GraphBuilder b("three_blocks");
  b.Conv2d(b.Input("x", {1, 64, 56, 56}), 64, 3, 1, 1);
  b.Conv2d(b.Input("y", {1, 256, 14, 14}), 256, 3, 1, 1);
  b.Conv2d(b.Input("z", {1, 64, 112, 112}), 64, 3, 1, 1);
  absl::StatusOr<Graph> g = std::move(b).Build();
  ASSERT_TRUE(g.ok()) << g.status();
  absl::StatusOr<ChannelsLastGraph> paying = ToChannelsLast(*g, {.winograd = true});
  absl::StatusOr<ChannelsLastGraph> all =
      ToChannelsLast(*g, {.winograd = true, .winograd_everywhere = true});
  ASSERT_TRUE(paying.ok() && all.ok());
  EXPECT_EQ(paying->winograd_convs, 2);
  EXPECT_EQ(all->winograd_convs, 3);
  std::map<int64_t, int64_t> alpha_by_width;  // input width -> packed weight's first extent
  for (const GraphNode& node : paying->graph.nodes()) {
    if (node.kind != NodeKind::kConv2d) continue;
    const int64_t width = paying->graph.tensor(node.inputs[0]).shape[2];
    alpha_by_width[width] =
        node.attrs.winograd ? paying->graph.tensor(node.inputs[1]).shape[0] : 0;
  }
  EXPECT_THAT(alpha_by_width,
              ::testing::ElementsAre(::testing::Pair(14, 4), ::testing::Pair(56, 6),
                                     ::testing::Pair(112, 0)));
}

}  // namespace
}  // namespace pruner
