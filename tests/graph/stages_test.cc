// Group DAGs follow the operator library's conventions: a group equal to an
// ops.h operator has the same WorkloadKey; the stages ops.h lacks (N-D
// softmax and layer norm, relu6, global average pooling) compute the right
// values.
#include <cmath>

#include "common/graph/fusion.h"
#include "common/graph/graph_builder.h"
#include "common/graph/graph_reference.h"
#include "common/graph/tasks.h"
#include "common/ir/ops.h"
#include "common/ir/reference.h"
#include "gmock/gmock.h"
#include "gtest/gtest.h"

namespace pruner {
namespace {

// The DAG of the single task of `b`'s graph (simple tasks included).
ComputeDag OnlyTask(GraphBuilder&& b) {
  absl::StatusOr<Graph> g = std::move(b).Build();
  EXPECT_TRUE(g.ok()) << g.status();
  if (!g.ok()) return {};
  ExtractOptions options;
  options.include_simple_tasks = true;
  absl::StatusOr<std::vector<GraphTask>> tasks = ExtractTasks(*g, options);
  EXPECT_TRUE(tasks.ok()) << tasks.status();
  if (!tasks.ok() || tasks->size() != 1) {
    ADD_FAILURE() << "expected one task";
    return {};
  }
  return *tasks->front().dag;
}

void ExpectSameWorkload(const ComputeDag& got, const absl::StatusOr<ComputeDag>& want) {
  ASSERT_TRUE(want.ok()) << want.status();
  EXPECT_EQ(got.CanonicalText(), want->CanonicalText());
  EXPECT_EQ(got.WorkloadKey(), want->WorkloadKey());
}

TEST(StagesTest, ConvBiasReluGroupIsConv2d) {
  GraphBuilder b;
  b.Relu(b.BiasAdd(b.Conv2d(b.Input("x", {1, 64, 56, 56}), 64, 3, 1, 1)));
  Conv2dParams p;
  p.in_channels = 64;
  p.height = p.width = 56;
  p.out_channels = 64;
  p.kernel_h = p.kernel_w = 3;
  p.pad_h = p.pad_w = 1;
  p.bias = true;
  p.activation = Activation::kRelu;
  ExpectSameWorkload(OnlyTask(std::move(b)), Conv2d(p));
}

// Depthwise 3x3 over 32 channels of 15x15, stride 2, pad 1, with bias.
Conv2dParams StridedDepthwise32() {
  Conv2dParams p;
  p.in_channels = p.out_channels = p.groups = 32;
  p.height = p.width = 15;
  p.kernel_h = p.kernel_w = 3;
  p.stride_h = p.stride_w = 2;
  p.pad_h = p.pad_w = 1;
  p.bias = true;
  return p;
}

TEST(StagesTest, DepthwiseAndGroupedConvsMatchConv2d) {
  {
    GraphBuilder b;
    b.BiasAdd(b.Conv2d(b.Input("x", {1, 32, 15, 15}), 32, 3, 2, 1, /*groups=*/32));
    ExpectSameWorkload(OnlyTask(std::move(b)), Conv2d(StridedDepthwise32()));
  }
  {
    GraphBuilder b;
    b.Conv2d(b.Input("x", {2, 16, 9, 9}), 32, 1, 1, 0, /*groups=*/4);
    Conv2dParams p;
    p.batch = 2;
    p.in_channels = 16;
    p.out_channels = 32;
    p.groups = 4;
    p.height = p.width = 9;
    p.kernel_h = p.kernel_w = 1;
    ExpectSameWorkload(OnlyTask(std::move(b)), Conv2d(p));
  }
}

TEST(StagesTest, ChannelsLastConvGroupIsConv2dInNhwc) {
  GraphBuilder b;
  const TensorId x = b.Input("x", {1, 15, 15, 32});  // NHWC
  const TensorId w = b.Weight("w", {32, 1, 3, 3});
  NodeAttrs conv;
  conv.stride_h = conv.stride_w = 2;
  conv.pad_h = conv.pad_w = 1;
  conv.groups = 32;
  conv.channels_last = true;
  NodeAttrs bias;
  bias.axis = 3;
  b.Relu6(b.AddNode(NodeKind::kBiasAdd, {b.AddNode(NodeKind::kConv2d, {x, w}, conv),
                                         b.Weight("b", {32})},
                    bias));
  Conv2dParams p = StridedDepthwise32();
  p.channels_last = true;
  // ops.h has no relu6: compare the conv + bias part, and the whole group's name.
  absl::StatusOr<ComputeDag> want = Conv2d(p);
  ASSERT_TRUE(want.ok()) << want.status();
  const ComputeDag got = OnlyTask(std::move(b));
  ASSERT_GE(got.ops().size(), want->ops().size());
  for (size_t i = 0; i < want->ops().size(); ++i) {
    EXPECT_EQ(got.op(static_cast<int>(i)).shape, want->op(static_cast<int>(i)).shape);
    EXPECT_EQ(got.op(static_cast<int>(i)).attrs, want->op(static_cast<int>(i)).attrs);
  }
}

TEST(StagesTest, DenseAndBatchMatmulMatchOps) {
  {
    GraphBuilder b;
    b.Gelu(b.BiasAdd(b.Dense(b.Input("x", {128, 768}), 3072)));
    ExpectSameWorkload(OnlyTask(std::move(b)),
                       Dense(128, 768, 3072, DenseOptions{true, Activation::kGelu}));
  }
  for (bool transpose_b : {false, true}) {
    GraphBuilder b;
    b.BatchMatmul(b.Input("a", {12, 128, 64}),
                  b.Input("b", transpose_b ? std::vector<int64_t>{12, 32, 64}
                                           : std::vector<int64_t>{12, 64, 32}),
                  transpose_b);
    ExpectSameWorkload(OnlyTask(std::move(b)), BatchMatmul(12, 128, 64, 32, transpose_b));
  }
}

TEST(StagesTest, PoolingSoftmaxLayerNormAndElementwiseMatchOps) {
  for (PoolKind kind : {PoolKind::kMax, PoolKind::kAvg}) {
    GraphBuilder b;
    const TensorId x = b.Input("x", {1, 64, 112, 112});
    kind == PoolKind::kMax ? b.MaxPool2d(x, 3, 2, 1) : b.AvgPool2d(x, 3, 2, 1);
    Pool2dParams p;
    p.channels = 64;
    p.height = p.width = 112;
    p.kernel_h = p.kernel_w = 3;
    p.stride_h = p.stride_w = 2;
    p.pad_h = p.pad_w = 1;
    p.kind = kind;
    ExpectSameWorkload(OnlyTask(std::move(b)), Pool2d(p));
  }
  {
    GraphBuilder b;
    b.Softmax(b.Input("x", {128, 1000}));
    ExpectSameWorkload(OnlyTask(std::move(b)), Softmax(128, 1000));
  }
  {
    GraphBuilder b;
    b.LayerNorm(b.Input("x", {128, 768}), 1e-12);
    ExpectSameWorkload(OnlyTask(std::move(b)), LayerNorm(128, 768, 1e-12));
  }
  {
    GraphBuilder b;
    b.Add(b.Input("a", {4, 128, 768}), b.Input("b", {4, 128, 768}));
    ExpectSameWorkload(OnlyTask(std::move(b)), ElementwiseAdd({4, 128, 768}));
  }
  {
    GraphBuilder b;
    b.Multiply(b.Input("a", {7, 9}), b.Input("b", {7, 9}));
    ExpectSameWorkload(OnlyTask(std::move(b)), ElementwiseMul({7, 9}));
  }
  {
    GraphBuilder b;
    b.Relu(b.Input("a", {3, 5, 7}));
    ExpectSameWorkload(OnlyTask(std::move(b)), Relu({3, 5, 7}));
  }
}

// Softmax and layer norm over the last axis of a 3-D tensor equal the 2-D
// ops.h operators on the same data viewed as [rows, cols].
TEST(StagesTest, NdSoftmaxAndLayerNormEqualTheir2dOperators) {
  const std::vector<int64_t> shape = {2, 3, 8};
  for (bool softmax : {true, false}) {
    GraphBuilder b;
    const TensorId x = b.Input("x", shape);
    softmax ? b.Softmax(x) : b.LayerNorm(x, 1e-5);
    const ComputeDag nd = OnlyTask(std::move(b));
    const std::vector<Tensor> inputs = RandomInputs(nd, 7);
    absl::StatusOr<std::vector<Tensor>> got = RunReference(nd, inputs);
    ASSERT_TRUE(got.ok()) << got.status();
    absl::StatusOr<ComputeDag> flat = softmax ? Softmax(6, 8) : LayerNorm(6, 8, 1e-5);
    ASSERT_TRUE(flat.ok());
    std::vector<Tensor> flat_inputs = inputs;
    flat_inputs[0].shape = {6, 8};
    absl::StatusOr<std::vector<Tensor>> want = RunReference(*flat, flat_inputs);
    ASSERT_TRUE(want.ok()) << want.status();
    Tensor got_flat = (*got)[0];
    got_flat.shape = {6, 8};
    EXPECT_TRUE(CheckAllClose(got_flat, (*want)[0], 0, 0).ok()) << (softmax ? "softmax" : "ln");
  }
}

TEST(StagesTest, Relu6ClipsToZeroAndSix) {
  GraphBuilder b;
  // Random inputs lie in [-1, -0.1] or [0.1, 1]; times 10 some exceed 6.
  b.Relu6(b.Scale(b.Input("x", {64}), 10.0));
  absl::StatusOr<Graph> g = std::move(b).Build();
  ASSERT_TRUE(g.ok());
  const std::map<TensorId, Tensor> feeds = RandomFeeds(*g, 3);
  absl::StatusOr<std::map<TensorId, Tensor>> out = RunGraph(*g, feeds, GraphRunMode::kFused);
  ASSERT_TRUE(out.ok()) << out.status();
  const Tensor& x = feeds.at(0);
  const Tensor& y = out->at(g->outputs()[0]);
  int clipped_high = 0, clipped_low = 0;
  for (size_t i = 0; i < x.data.size(); ++i) {
    const float scaled = x.data[i] * 10.0f;
    EXPECT_EQ(y.data[i], std::min(std::max(scaled, 0.0f), 6.0f)) << i;
    clipped_high += scaled > 6;
    clipped_low += scaled < 0;
  }
  EXPECT_GT(clipped_high, 0);
  EXPECT_GT(clipped_low, 0);
}

TEST(StagesTest, GlobalAvgPoolIsThePlaneMean) {
  GraphBuilder b;
  b.GlobalAvgPool2d(b.Input("x", {2, 3, 4, 5}));
  absl::StatusOr<Graph> g = std::move(b).Build();
  ASSERT_TRUE(g.ok());
  const std::map<TensorId, Tensor> feeds = RandomFeeds(*g, 5);
  absl::StatusOr<std::map<TensorId, Tensor>> out = RunGraph(*g, feeds, GraphRunMode::kFused);
  ASSERT_TRUE(out.ok()) << out.status();
  const Tensor& x = feeds.at(0);
  const Tensor& y = out->at(g->outputs()[0]);
  ASSERT_EQ(y.shape, (std::vector<int64_t>{2, 3, 1, 1}));
  for (int64_t n = 0; n < 2; ++n) {
    for (int64_t c = 0; c < 3; ++c) {
      double sum = 0;
      for (int64_t h = 0; h < 4; ++h) {
        for (int64_t w = 0; w < 5; ++w) sum += x.at({n, c, h, w});
      }
      EXPECT_NEAR(y.at({n, c, 0, 0}), sum / 20, 1e-6);
    }
  }
}

TEST(StagesTest, LayoutNodesHaveNoStages) {
  GraphBuilder b;
  b.Transpose(b.Input("x", {2, 3}), {1, 0});
  absl::StatusOr<Graph> g = std::move(b).Build();
  ASSERT_TRUE(g.ok());
  absl::StatusOr<ComputeDag> dag = GroupToDag(*g, SingleNodeGroup(*g, 0));
  EXPECT_EQ(dag.status().code(), absl::StatusCode::kInvalidArgument);
  EXPECT_THAT(std::string(dag.status().message()), ::testing::HasSubstr("transpose_0"));
}

}  // namespace
}  // namespace pruner
