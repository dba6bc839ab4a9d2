// The graph builder: shape inference, node naming, outputs, and errors that
// name the node at fault.
#include "common/graph/graph_builder.h"

#include <functional>
#include <string>
#include <vector>

#include "gmock/gmock.h"
#include "gtest/gtest.h"

namespace pruner {
namespace {

using ::testing::AllOf;
using ::testing::ElementsAre;
using ::testing::HasSubstr;

std::string ErrorOf(GraphBuilder&& b) {
  absl::StatusOr<Graph> g = std::move(b).Build();
  EXPECT_FALSE(g.ok());
  EXPECT_EQ(g.status().code(), absl::StatusCode::kInvalidArgument) << g.status();
  return std::string(g.status().message());
}

TEST(GraphBuilderTest, InfersResNetStemShapes) {
  GraphBuilder b("stem");
  TensorId x = b.Input("data", {1, 3, 224, 224});
  x = b.Conv2d(x, 64, 7, 2, 3);
  EXPECT_THAT(b.Shape(x), ElementsAre(1, 64, 112, 112));
  x = b.Relu(b.BiasAdd(x));
  x = b.MaxPool2d(x, 3, 2, 1);
  EXPECT_THAT(b.Shape(x), ElementsAre(1, 64, 56, 56));
  const TensorId dw = b.Conv2d(x, 64, 3, 2, 1, /*groups=*/64);
  EXPECT_THAT(b.Shape(dw), ElementsAre(1, 64, 28, 28));
  const TensorId pooled = b.GlobalAvgPool2d(dw);
  EXPECT_THAT(b.Shape(pooled), ElementsAre(1, 64, 1, 1));
  const TensorId flat = b.Reshape(pooled, {1, -1});
  EXPECT_THAT(b.Shape(flat), ElementsAre(1, 64));
  EXPECT_THAT(b.Shape(b.Dense(flat, 10)), ElementsAre(1, 10));
  absl::StatusOr<Graph> g = std::move(b).Build();
  ASSERT_TRUE(g.ok()) << g.status();
  // Helper layers create their weights with the right shapes.
  const GraphNode& conv = g->node(0);
  EXPECT_EQ(conv.kind, NodeKind::kConv2d);
  EXPECT_EQ(g->tensor(conv.inputs[1]).kind, TensorKind::kWeight);
  EXPECT_THAT(g->tensor(conv.inputs[1]).shape, ElementsAre(64, 3, 7, 7));
  // The depthwise weight has one input channel per group.
  for (const GraphNode& n : g->nodes()) {
    if (n.kind == NodeKind::kConv2d && n.attrs.groups == 64) {
      EXPECT_THAT(g->tensor(n.inputs[1]).shape, ElementsAre(64, 1, 3, 3));
    }
    // Reshape keeps its resolved shape, never the -1.
    if (n.kind == NodeKind::kReshape) {
      EXPECT_THAT(n.attrs.shape, ElementsAre(1, 64));
    }
  }
}

TEST(GraphBuilderTest, InfersAttentionShapes) {
  GraphBuilder b("attention");
  const TensorId x = b.Input("x", {8, 16});  // [seq, hidden]
  TensorId q = b.Reshape(b.Dense(x, 16), {1, 8, 2, 8});
  q = b.Transpose(q, {0, 2, 1, 3});
  EXPECT_THAT(b.Shape(q), ElementsAre(1, 2, 8, 8));
  q = b.Reshape(q, {2, 8, 8});
  const TensorId k = b.Input("k", {2, 8, 8});
  const TensorId v = b.Input("v", {2, 8, 4});
  const TensorId scores = b.BatchMatmul(q, k, /*transpose_b=*/true);
  EXPECT_THAT(b.Shape(scores), ElementsAre(2, 8, 8));
  const TensorId ctx = b.BatchMatmul(b.Softmax(b.Scale(scores, 0.5)), v);
  EXPECT_THAT(b.Shape(ctx), ElementsAre(2, 8, 4));
  EXPECT_THAT(b.Shape(b.LayerNorm(b.Gelu(x))), ElementsAre(8, 16));
  EXPECT_TRUE(std::move(b).Build().ok());
}

TEST(GraphBuilderTest, NamesNodesAndWeightsByScope) {
  GraphBuilder b("named");
  TensorId x = b.Input("data", {1, 4, 8, 8});
  {
    auto layer = b.Scope("layer1");
    auto block = b.Scope("0");
    x = b.Conv2d(x, 4, 3, 1, 1);
    x = b.Conv2d(x, 4, 3, 1, 1);
  }
  x = b.Relu(x);
  absl::StatusOr<Graph> g = std::move(b).Build();
  ASSERT_TRUE(g.ok()) << g.status();
  EXPECT_EQ(g->node(0).name, "layer1.0.conv2d_0");
  EXPECT_EQ(g->node(1).name, "layer1.0.conv2d_1");
  EXPECT_EQ(g->node(2).name, "relu_0");
  EXPECT_EQ(g->tensor(g->node(1).inputs[1]).name, "layer1.0.conv2d_1.weight");
  EXPECT_THAT(g->ToString(), HasSubstr("layer1.0.conv2d_1 = conv2d(layer1.0.conv2d_0, "
                                       "layer1.0.conv2d_1.weight) -> [1, 4, 8, 8]"));
}

TEST(GraphBuilderTest, OutputsAreMarkedOrUnreadIntermediates) {
  GraphBuilder b("outputs");
  const TensorId x = b.Input("x", {4, 4});
  const TensorId a = b.Relu(x);
  const TensorId c = b.Gelu(a);
  const TensorId d = b.Scale(a, 2.0);
  b.MarkOutput(a);
  absl::StatusOr<Graph> g = std::move(b).Build();
  ASSERT_TRUE(g.ok()) << g.status();
  EXPECT_THAT(g->outputs(), ElementsAre(a, c, d));
  EXPECT_THAT(g->consumers(a), ElementsAre(1, 2));
  EXPECT_FALSE(g->is_output(x));
}

TEST(GraphBuilderTest, WrongInputChannelsNameTheConv) {
  GraphBuilder b("bad");
  const TensorId x = b.Input("data", {1, 3, 32, 32});
  auto scope = b.Scope("stem");
  const TensorId w = b.Weight("w", {16, 8, 3, 3});
  NodeAttrs attrs;
  attrs.pad_h = attrs.pad_w = 1;
  b.AddNode(NodeKind::kConv2d, {x, w}, attrs);
  EXPECT_THAT(ErrorOf(std::move(b)),
              AllOf(HasSubstr("conv2d 'stem.conv2d_0'"), HasSubstr("has 3 channels"),
                    HasSubstr("weight [16, 8, 3, 3] expects 8")));
}

TEST(GraphBuilderTest, MismatchedResidualAddNamesTheAddAndBothShapes) {
  // A bottleneck without its downsample conv: 256 channels + 64 channels.
  GraphBuilder b("bad");
  const TensorId x = b.Input("data", {1, 64, 56, 56});
  auto scope = b.Scope("layer1.0");
  const TensorId out = b.BiasAdd(b.Conv2d(x, 256, 1));
  b.Add(out, x);
  EXPECT_THAT(ErrorOf(std::move(b)),
              AllOf(HasSubstr("add 'layer1.0.add_0'"), HasSubstr("[1, 256, 56, 56]"),
                    HasSubstr("[1, 64, 56, 56]")));
}

TEST(GraphBuilderTest, OtherShapeErrors) {
  struct Case {
    const char* what;
    std::function<void(GraphBuilder&)> build;
    const char* message;
  };
  const std::vector<Case> cases = {
      {"dense features",
       [](GraphBuilder& b) {
         b.AddNode(NodeKind::kDense, {b.Input("x", {4, 8}), b.Weight("w", {16, 9})});
       },
       "dense 'dense_0': input [4, 8] has 8 features but weight [16, 9] expects 9"},
      {"batch_matmul K",
       [](GraphBuilder& b) {
         b.BatchMatmul(b.Input("a", {2, 4, 8}), b.Input("b", {2, 4, 8}));
       },
       "batch_matmul 'batch_matmul_0': a [2, 4, 8] has K=8 but b [2, 4, 8] has K=4"},
      {"bias length",
       [](GraphBuilder& b) {
         b.AddNode(NodeKind::kBiasAdd, {b.Input("x", {1, 4, 2, 2}), b.Weight("bias", {5})});
       },
       "bias_add 'bias_add_0': bias [5] must be [4] to match axis 1"},
      {"reshape count",
       [](GraphBuilder& b) {
         b.Reshape(b.Input("x", {2, 6}), {5, 2});
       },
       "reshape 'reshape_0': cannot reshape [2, 6] (12 elements) into [5, 2]"},
      {"transpose perm",
       [](GraphBuilder& b) {
         b.Transpose(b.Input("x", {2, 3, 4}), {0, 0, 1});
       },
       "transpose 'transpose_0': perm [0, 0, 1] is not a permutation"},
      {"pool window",
       [](GraphBuilder& b) {
         b.MaxPool2d(b.Input("x", {1, 1, 2, 2}), 3, 1, 2);
       },
       "max_pool2d 'max_pool2d_0': padding (2, 2) must be at most half the kernel (3, 3)"},
      {"conv window",
       [](GraphBuilder& b) {
         b.Conv2d(b.Input("x", {1, 1, 2, 2}), 4, 5);
       },
       "conv2d 'conv2d_0': the height window spans 5 but the padded input height is only 2"},
      {"softmax rank", [](GraphBuilder& b) { b.Softmax(b.Input("x", {7})); },
       "softmax 'softmax_0': input must have rank >= 2"},
      {"duplicate names",
       [](GraphBuilder& b) {
         b.Input("x", {2});
         b.Input("x", {3});
       },
       "tensor name 'x' is used twice"},
      {"bad input shape",
       [](GraphBuilder& b) {
         b.Input("x", {2, 0});
       },
       "input 'x': shape [2, 0] must have rank >= 1 and positive extents"},
      {"integer tensor into arithmetic",
       [](GraphBuilder& b) {
         b.Relu(b.Input("ids", {1, 8}, DType::kInt64));
       },
       "relu 'relu_0': input 0 'ids' is int64; integer tensors may only be gather indices"},
      {"float gather indices",
       [](GraphBuilder& b) {
         NodeAttrs a;
         a.axis = 0;
         b.AddNode(NodeKind::kGather, {b.Weight("table", {10, 4}), b.Input("ids", {3})}, a);
       },
       "gather 'gather_0': input 1 'ids' is float32; gather indices must be int32 or int64"},
      {"gather axis",
       [](GraphBuilder& b) {
         NodeAttrs a;
         a.axis = 2;
         b.AddNode(NodeKind::kGather,
                   {b.Weight("table", {10, 4}), b.Input("ids", {3}, DType::kInt64)}, a);
       },
       "gather 'gather_0': axis 2 is outside the 2 axes of the table [10, 4]"},
      {"concat shapes",
       [](GraphBuilder& b) {
         NodeAttrs a;
         a.axis = 1;
         b.AddNode(NodeKind::kConcat, {b.Input("x", {2, 3}), b.Input("y", {3, 3})}, a);
       },
       "concat 'concat_0': input 1 [3, 3] does not match input 0 [2, 3] outside axis 1"},
      {"slice range",
       [](GraphBuilder& b) {
         NodeAttrs a;
         a.axis = 1;
         a.begin = 2;
         a.end = 5;
         b.AddNode(NodeKind::kSlice, {b.Input("x", {2, 4})}, a);
       },
       "slice 'slice_0': range [2, 5) is empty or outside axis 1 of input [2, 4]"},
  };
  for (const Case& c : cases) {
    GraphBuilder b("bad");
    c.build(b);
    EXPECT_THAT(ErrorOf(std::move(b)), HasSubstr(c.message)) << c.what;
  }
}

TEST(GraphBuilderTest, InfersGatherConcatAndSliceShapesAndDtypes) {
  GraphBuilder b("moves");
  const TensorId table = b.Weight("table", {100, 8});
  const TensorId ids = b.Reshape(b.Input("ids", {2, 3}, DType::kInt64), {6});
  NodeAttrs gather;
  gather.axis = 0;
  const TensorId rows = b.AddNode(NodeKind::kGather, {table, ids}, gather);
  NodeAttrs concat;
  concat.axis = 1;
  const TensorId joined = b.AddNode(NodeKind::kConcat, {rows, rows, b.Input("z", {6, 2})}, concat);
  NodeAttrs slice;
  slice.axis = 1;
  slice.begin = 4;
  slice.end = 10;
  const TensorId part = b.AddNode(NodeKind::kSlice, {joined}, slice);
  EXPECT_THAT(b.Shape(rows), ElementsAre(6, 8));
  EXPECT_THAT(b.Shape(joined), ElementsAre(6, 18));
  EXPECT_THAT(b.Shape(part), ElementsAre(6, 6));
  // A reshape keeps its input's dtype; data movement yields float32.
  EXPECT_EQ(b.dtype(ids), DType::kInt64);
  EXPECT_EQ(b.dtype(rows), DType::kFloat32);
  EXPECT_TRUE(std::move(b).Build().ok());
}

TEST(GraphBuilderTest, KeepsTheFirstErrorAndStopsBuilding) {
  GraphBuilder b("bad");
  const TensorId x = b.Input("x", {2, 3});
  const TensorId bad = b.Add(x, b.Input("y", {3, 2}));
  EXPECT_EQ(bad, -1);
  // Later calls, even on valid tensors, do nothing.
  EXPECT_EQ(b.Relu(x), -1);
  EXPECT_EQ(b.Dense(bad, 4), -1);
  EXPECT_THAT(ErrorOf(std::move(b)), HasSubstr("add 'add_0': input shapes [2, 3] and [3, 2] do not broadcast"));
}

TEST(GraphBuilderTest, RejectsForeignTensorsAndEmptyGraphs) {
  GraphBuilder b("bad");
  b.Relu(42);
  EXPECT_THAT(ErrorOf(std::move(b)), HasSubstr("relu 'relu_0': input 0 is not a tensor"));
  GraphBuilder empty("empty");
  empty.Input("x", {1});
  EXPECT_THAT(ErrorOf(std::move(empty)), HasSubstr("graph 'empty' has no nodes"));
}

}  // namespace
}  // namespace pruner
