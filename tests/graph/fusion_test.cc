// Fusion: which nodes end up in which group, and that running the fused
// groups computes exactly what running every node on its own computes.
#include "common/graph/fusion.h"

#include <algorithm>
#include <set>

#include "common/graph/channels_last.h"
#include "common/graph/graph_builder.h"
#include "common/graph/graph_reference.h"
#include "common/graph/networks.h"
#include "common/graph/tasks.h"
#include "gmock/gmock.h"
#include "gtest/gtest.h"

namespace pruner {
namespace {

using ::testing::ElementsAre;

Graph BuildOrDie(GraphBuilder&& b) {
  absl::StatusOr<Graph> g = std::move(b).Build();
  EXPECT_TRUE(g.ok()) << g.status();
  return g.ok() ? *std::move(g) : Graph();
}

std::vector<NodeKind> KindsOf(const Graph& g, const FusedGroup& group) {
  std::vector<NodeKind> kinds;
  for (int n : group.nodes) kinds.push_back(g.node(n).kind);
  return kinds;
}

// Every node in exactly one group, and groups in an order where each input
// is computed (or fed) before the group reads it.
void ExpectPartitionInTopologicalOrder(const Graph& g, const std::vector<FusedGroup>& groups) {
  std::vector<int> seen(g.num_nodes(), 0);
  std::set<TensorId> available;
  for (TensorId id = 0; id < static_cast<TensorId>(g.tensors().size()); ++id) {
    if (g.tensor(id).kind != TensorKind::kIntermediate) available.insert(id);
  }
  for (const FusedGroup& group : groups) {
    for (int n : group.nodes) ++seen[n];
    for (TensorId in : group.inputs) EXPECT_TRUE(available.count(in)) << g.tensor(in).name;
    available.insert(group.output);
  }
  for (int n = 0; n < g.num_nodes(); ++n) EXPECT_EQ(seen[n], 1) << g.node(n).name;
}

TEST(FusionTest, ConvBiasReluIsOneGroup) {
  GraphBuilder b;
  const TensorId x = b.Input("x", {1, 8, 10, 10});
  b.Relu(b.BiasAdd(b.Conv2d(x, 16, 3, 1, 1)));
  const Graph g = BuildOrDie(std::move(b));
  const std::vector<FusedGroup> groups = FuseGraph(g);
  ASSERT_EQ(groups.size(), 1u);
  EXPECT_EQ(groups[0].kind, GroupKind::kAnchored);
  EXPECT_THAT(KindsOf(g, groups[0]),
              ElementsAre(NodeKind::kConv2d, NodeKind::kBiasAdd, NodeKind::kRelu));
  // Inputs: data, conv weight, bias, in first-use order.
  ASSERT_EQ(groups[0].inputs.size(), 3u);
  EXPECT_EQ(groups[0].inputs[0], x);
  EXPECT_EQ(g.tensor(groups[0].inputs[2]).name, "bias_add_0.bias");
  EXPECT_EQ(groups[0].output, g.outputs()[0]);
  EXPECT_EQ(GroupName(g, groups[0]), "conv2d_bias_relu_N1_C8_H10_W10_K16_R3_S3_pad1");
}

TEST(FusionTest, ResidualAddJoinsTheGroup) {
  GraphBuilder b;
  const TensorId x = b.Input("x", {1, 8, 6, 6});
  const TensorId y = b.Relu(b.Add(b.BiasAdd(b.Conv2d(x, 8, 3, 1, 1)), x));
  const Graph g = BuildOrDie(std::move(b));
  const std::vector<FusedGroup> groups = FuseGraph(g);
  ASSERT_EQ(groups.size(), 1u);
  EXPECT_THAT(KindsOf(g, groups[0]),
              ElementsAre(NodeKind::kConv2d, NodeKind::kBiasAdd, NodeKind::kAdd, NodeKind::kRelu));
  EXPECT_EQ(groups[0].output, y);
  // x is read twice (conv and add) but is one input of the group.
  EXPECT_EQ(std::count(groups[0].inputs.begin(), groups[0].inputs.end(), x), 1);
  absl::StatusOr<ComputeDag> dag = GroupToDag(g, groups[0]);
  ASSERT_TRUE(dag.ok()) << dag.status();
  EXPECT_EQ(dag->InputIndices().size(), 3u);  // x, weight, bias
  EXPECT_EQ(dag->OutputIndices().size(), 1u);
}

TEST(FusionTest, TensorWithTwoConsumersStopsFusion) {
  GraphBuilder b;
  const TensorId x = b.Input("x", {4, 16});
  const TensorId h = b.BiasAdd(b.Dense(x, 16));
  b.Add(b.Relu(h), h);  // h feeds relu and add
  const Graph g = BuildOrDie(std::move(b));
  const std::vector<FusedGroup> groups = FuseGraph(g);
  ASSERT_EQ(groups.size(), 2u);
  EXPECT_THAT(KindsOf(g, groups[0]), ElementsAre(NodeKind::kDense, NodeKind::kBiasAdd));
  EXPECT_EQ(groups[1].kind, GroupKind::kElementwise);
  EXPECT_THAT(KindsOf(g, groups[1]), ElementsAre(NodeKind::kRelu, NodeKind::kAdd));
  EXPECT_FALSE(groups[1].has_reduction());
  // Only the dense group is a task unless simple tasks are asked for.
  absl::StatusOr<std::vector<GraphTask>> tasks = ExtractTasks(g);
  ASSERT_TRUE(tasks.ok());
  EXPECT_EQ(tasks->size(), 1u);
  tasks = ExtractTasks(g, ExtractOptions{.include_simple_tasks = true});
  ASSERT_TRUE(tasks.ok());
  ASSERT_EQ(tasks->size(), 2u);
  EXPECT_EQ((*tasks)[1].name, "relu_add_4x16");
}

TEST(FusionTest, MarkedOutputStopsFusion) {
  GraphBuilder b;
  const TensorId h = b.Dense(b.Input("x", {4, 16}), 8);
  b.Relu(h);
  b.MarkOutput(h);
  const Graph g = BuildOrDie(std::move(b));
  const std::vector<FusedGroup> groups = FuseGraph(g);
  ASSERT_EQ(groups.size(), 2u);
  EXPECT_THAT(KindsOf(g, groups[0]), ElementsAre(NodeKind::kDense));
}

TEST(FusionTest, AnAnchorNeverJoinsAnotherGroup) {
  GraphBuilder b;
  b.Softmax(b.Scale(b.Dense(b.Input("x", {4, 16}), 8), 0.5));
  const Graph g = BuildOrDie(std::move(b));
  const std::vector<FusedGroup> groups = FuseGraph(g);
  ASSERT_EQ(groups.size(), 2u);
  EXPECT_THAT(KindsOf(g, groups[0]), ElementsAre(NodeKind::kDense, NodeKind::kScale));
  EXPECT_THAT(KindsOf(g, groups[1]), ElementsAre(NodeKind::kSoftmax));
}

TEST(FusionTest, ResNetAddJoinsTheMainPathNotTheDownsample) {
  absl::StatusOr<Graph> g = BuildResNet50();
  ASSERT_TRUE(g.ok()) << g.status();
  const std::vector<FusedGroup> groups = FuseGraph(*g);
  ExpectPartitionInTopologicalOrder(*g, groups);
  bool saw_main = false, saw_downsample = false;
  for (const FusedGroup& group : groups) {
    const std::string& first = g->node(group.nodes[0]).name;
    if (first == "layer1.0.conv2d_2") {
      saw_main = true;
      EXPECT_THAT(KindsOf(*g, group), ElementsAre(NodeKind::kConv2d, NodeKind::kBiasAdd,
                                                  NodeKind::kAdd, NodeKind::kRelu));
    }
    if (first == "layer1.0.downsample.conv2d_0") {
      saw_downsample = true;
      EXPECT_THAT(KindsOf(*g, group), ElementsAre(NodeKind::kConv2d, NodeKind::kBiasAdd));
    }
  }
  EXPECT_TRUE(saw_main);
  EXPECT_TRUE(saw_downsample);
}

TEST(FusionTest, LayoutOpsAreViewsThatFeedPlaceholders) {
  BertConfig c;
  c.layers = 1;
  c.hidden = 16;
  c.heads = 2;
  c.ffn = 32;
  c.seq = 8;
  absl::StatusOr<Graph> g = BuildBert(c);
  ASSERT_TRUE(g.ok()) << g.status();
  const std::vector<FusedGroup> groups = FuseGraph(*g);
  ExpectPartitionInTopologicalOrder(*g, groups);
  int views = 0;
  for (const FusedGroup& group : groups) {
    const NodeKind head = g->node(group.nodes[0]).kind;
    const bool layout = head == NodeKind::kReshape || head == NodeKind::kTranspose;
    EXPECT_EQ(group.kind == GroupKind::kView, layout);
    if (layout) {
      ++views;
      EXPECT_EQ(group.nodes.size(), 1u);
    }
    if (head == NodeKind::kBatchMatmul && g->node(group.nodes[0]).attrs.transpose_b) {
      // Q and K arrive through reshape/transpose views as [heads, seq, d].
      absl::StatusOr<ComputeDag> dag = GroupToDag(*g, group);
      ASSERT_TRUE(dag.ok()) << dag.status();
      EXPECT_THAT(dag->op(0).shape, ElementsAre(2, 8, 8));
      EXPECT_THAT(dag->op(1).shape, ElementsAre(2, 8, 8));
      EXPECT_EQ(g->node(g->tensor(group.inputs[0]).producer).kind, NodeKind::kReshape);
    }
  }
  // Q, K, V split (3 views each) and the context merge (3 views).
  EXPECT_EQ(views, 12);
}

TEST(FusionTest, TasksAreDeduplicatedByKeyWithUniqueNames) {
  GraphBuilder b;
  TensorId x = b.Input("x", {4, 8});
  x = b.Relu(b.Dense(x, 8));
  x = b.Relu(b.Dense(x, 8));  // same workload as the first dense
  x = b.LayerNorm(x, 1e-5);
  b.LayerNorm(x, 1e-6);  // same shape, another eps: another workload
  const Graph g = BuildOrDie(std::move(b));
  absl::StatusOr<std::vector<GraphTask>> tasks = ExtractTasks(g);
  ASSERT_TRUE(tasks.ok()) << tasks.status();
  ASSERT_EQ(tasks->size(), 3u);
  EXPECT_EQ((*tasks)[0].name, "dense_relu_M4_K8_N8");
  EXPECT_EQ((*tasks)[0].weight, 2);
  EXPECT_THAT((*tasks)[0].occurrences, ElementsAre("dense_0", "dense_1"));
  EXPECT_EQ((*tasks)[1].name, "layer_norm_4x8");
  EXPECT_EQ((*tasks)[2].name, "layer_norm_4x8_v2");
  EXPECT_NE((*tasks)[1].workload_key, (*tasks)[2].workload_key);
  EXPECT_DOUBLE_EQ((*tasks)[0].flops, 4 * 8 * (2 * 8 + 1));  // MACs x 2 + relu
  EXPECT_DOUBLE_EQ(WeightedFlops(*tasks), 2 * (*tasks)[0].flops + (*tasks)[1].flops +
                                              (*tasks)[2].flops);
}

// The fused run and the node-by-node run produce identical outputs: the
// group DAGs compute the same float operations in the same order.
void ExpectFusedEqualsUnfused(const Graph& g, uint64_t seed) {
  const std::map<TensorId, Tensor> feeds = RandomFeeds(g, seed);
  absl::StatusOr<std::map<TensorId, Tensor>> fused = RunGraph(g, feeds, GraphRunMode::kFused);
  ASSERT_TRUE(fused.ok()) << fused.status();
  absl::StatusOr<std::map<TensorId, Tensor>> unfused = RunGraph(g, feeds, GraphRunMode::kPerNode);
  ASSERT_TRUE(unfused.ok()) << unfused.status();
  ASSERT_FALSE(g.outputs().empty());
  for (TensorId out : g.outputs()) {
    ASSERT_TRUE(fused->count(out)) << g.tensor(out).name;
    const absl::Status close = CheckAllClose(fused->at(out), unfused->at(out), 0, 0);
    EXPECT_TRUE(close.ok()) << g.tensor(out).name << ": " << close;
  }
}

TEST(FusionTest, FusedTinyResNetComputesLikeUnfused) {
  // Stem, max pool, one bottleneck with a downsample path, head.
  GraphBuilder b("tiny-resnet");
  TensorId x = b.Input("data", {1, 3, 16, 16});
  x = b.MaxPool2d(b.Relu(b.BiasAdd(b.Conv2d(x, 8, 3, 2, 1))), 3, 2, 1);
  TensorId out = b.Relu(b.BiasAdd(b.Conv2d(x, 4, 1)));
  out = b.Relu(b.BiasAdd(b.Conv2d(out, 4, 3, 2, 1)));
  out = b.BiasAdd(b.Conv2d(out, 16, 1));
  const TensorId identity = b.BiasAdd(b.Conv2d(x, 16, 1, 2));
  x = b.Relu(b.Add(out, identity));
  x = b.AvgPool2d(x, 2, 1);
  x = b.Reshape(b.GlobalAvgPool2d(x), {1, 16});
  b.BiasAdd(b.Dense(x, 10));
  const Graph g = BuildOrDie(std::move(b));
  // 9 anchored groups (5 convs, 2 pools, global pool, dense) and the flatten view.
  EXPECT_EQ(FuseGraph(g).size(), 10u);
  ExpectFusedEqualsUnfused(g, 11);
}

TEST(FusionTest, FusedTinyBertComputesLikeUnfused) {
  BertConfig c;
  c.layers = 1;
  c.hidden = 16;
  c.heads = 2;
  c.ffn = 32;
  c.seq = 8;
  absl::StatusOr<Graph> g = BuildBert(c);
  ASSERT_TRUE(g.ok()) << g.status();
  ExpectFusedEqualsUnfused(*g, 12);
}

TEST(FusionTest, FusedSmallMobileNetV2ComputesLikeUnfused) {
  absl::StatusOr<Graph> g = BuildMobileNetV2(1, 32);
  ASSERT_TRUE(g.ok()) << g.status();
  ExpectFusedEqualsUnfused(*g, 13);
}

TEST(FusionTest, ChannelsLastExpandJoinsItsDepthwiseConvolution) {
  // MobileNet-V2's inverted residual in NHWC: the 1x1 expand (with its bias
  // and ReLU6) and the depthwise convolution it feeds are one group; the
  // 1x1 projection starts its own. In NCHW (a GPU's layout) nothing changes.
  GraphBuilder b("inverted-residual");
  const TensorId x = b.Input("x", {1, 8, 12, 12});
  TensorId y = b.Relu6(b.BiasAdd(b.Conv2d(x, 24, 1)));
  y = b.Relu6(b.BiasAdd(b.Conv2d(y, 24, 3, 2, 1, /*groups=*/24)));
  b.BiasAdd(b.Conv2d(y, 8, 1));
  const Graph nchw = BuildOrDie(std::move(b));
  EXPECT_EQ(FuseGraph(nchw).size(), 3u);
  absl::StatusOr<ChannelsLastGraph> nhwc = ToChannelsLast(nchw);
  ASSERT_TRUE(nhwc.ok()) << nhwc.status();
  const Graph& g = nhwc->graph;
  const std::vector<FusedGroup> groups = FuseGraph(g);
  ExpectPartitionInTopologicalOrder(g, groups);
  std::vector<FusedGroup> anchored;
  for (const FusedGroup& group : groups) {
    if (group.kind == GroupKind::kAnchored) anchored.push_back(group);
  }
  ASSERT_EQ(anchored.size(), 2u);
  EXPECT_THAT(KindsOf(g, anchored[0]),
              ElementsAre(NodeKind::kConv2d, NodeKind::kBiasAdd, NodeKind::kRelu6,
                          NodeKind::kConv2d, NodeKind::kBiasAdd, NodeKind::kRelu6));
  EXPECT_EQ(GroupName(g, anchored[0]),
            "conv2d_bias_relu6_N1_C8_H12_W12_K24_R1_S1_nhwc_into_"
            "depthwise_conv2d_bias_relu6_N1_C24_H12_W12_K24_R3_S3_stride2_pad1_nhwc");
  ExpectFusedEqualsUnfused(g, 14);
}

}  // namespace
}  // namespace pruner
