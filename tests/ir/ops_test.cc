// The operator builders: structure, FLOP counts and argument validation.
#include "common/ir/ops.h"

#include <iostream>

#include "common/ir/reference.h"
#include "common/ir/tensor.h"

#include "gmock/gmock.h"
#include "gtest/gtest.h"

namespace pruner {
namespace {

using ::testing::ElementsAre;
using ::testing::HasSubstr;

std::vector<std::string> OpNames(const ComputeDag& dag) {
  std::vector<std::string> names;
  for (const OpRef& op : dag.ops()) names.push_back(op->name);
  return names;
}

void ExpectAllIdsArePositions(const ComputeDag& dag) {
  for (int i = 0; i < dag.num_ops(); ++i) EXPECT_EQ(dag.op(i).id, i);
  for (const OpRef& op : dag.ops()) EXPECT_EQ(op->dtype, DType::kFloat32);
}

void ExpectInvalid(const absl::StatusOr<ComputeDag>& dag, const std::string& fragment) {
  ASSERT_FALSE(dag.ok()) << "expected an error containing: " << fragment;
  EXPECT_EQ(dag.status().code(), absl::StatusCode::kInvalidArgument);
  EXPECT_THAT(std::string(dag.status().message()), HasSubstr(fragment));
  std::cout << "builder error: " << dag.status().message() << "\n";
}

TEST(DenseTest, BuildsStagesAndCountsFlops) {
  const int64_t m = 65, k = 2048, n = 1024;
  absl::StatusOr<ComputeDag> plain = Dense(m, k, n);
  ASSERT_TRUE(plain.ok()) << plain.status();
  EXPECT_THAT(OpNames(*plain), ElementsAre("A", "W", "dense"));
  ExpectAllIdsArePositions(*plain);
  EXPECT_EQ(plain->op(1).shape, (std::vector<int64_t>{n, k}));
  EXPECT_EQ(plain->op(2).attrs.at("op"), "dense");
  EXPECT_EQ(ToString(plain->op(2).body), "(A[i, k] * W[j, k])");
  EXPECT_EQ(plain->FlopCount(), 2.0 * m * n * k);

  absl::StatusOr<ComputeDag> full = Dense(m, k, n, {.bias = true, .activation = Activation::kRelu});
  ASSERT_TRUE(full.ok()) << full.status();
  EXPECT_THAT(OpNames(*full), ElementsAre("A", "W", "bias", "dense", "bias_add", "relu"));
  EXPECT_THAT(full->OutputIndices(), ElementsAre(5));
  EXPECT_EQ(full->FlopCount(), 2.0 * m * n * k + m * n + m * n);

  absl::StatusOr<ComputeDag> gelu = Dense(m, k, n, {.activation = Activation::kGelu});
  ASSERT_TRUE(gelu.ok()) << gelu.status();
  EXPECT_EQ(gelu->op(3).name, "gelu");
  // 0.5 * x * (1 + erf(x / sqrt 2)): 3 multiplies and 1 add; erf itself is free.
  EXPECT_EQ(gelu->FlopCount(), 2.0 * m * n * k + 4.0 * m * n);
}

TEST(DenseTest, RejectsBadSizes) {
  ExpectInvalid(Dense(0, 8, 8), "dense: M (batch) must be positive, got 0");
  ExpectInvalid(Dense(8, -1, 8), "dense: K (in_features) must be positive, got -1");
  ExpectInvalid(Dense(8, 8, 0), "dense: N (out_features) must be positive, got 0");
  ExpectInvalid(Dense(int64_t{1} << 40, int64_t{1} << 20, 8), "has more than 2^48 elements");
}

TEST(MatmulTest, BuildsAndValidates) {
  absl::StatusOr<ComputeDag> dag = Matmul(3, 5, 7);
  ASSERT_TRUE(dag.ok());
  EXPECT_EQ(ToString(dag->op(2).body), "(A[i, k] * B[k, j])");
  EXPECT_EQ(dag->FlopCount(), 2.0 * 3 * 5 * 7);
  ExpectInvalid(Matmul(3, 0, 7), "matmul: K must be positive, got 0");
}

TEST(BatchMatmulTest, HonoursTransposeB) {
  absl::StatusOr<ComputeDag> plain = BatchMatmul(2, 3, 5, 7);
  absl::StatusOr<ComputeDag> transposed = BatchMatmul(2, 3, 5, 7, /*transpose_b=*/true);
  ASSERT_TRUE(plain.ok() && transposed.ok());
  EXPECT_EQ(plain->op(1).shape, (std::vector<int64_t>{2, 5, 7}));
  EXPECT_EQ(transposed->op(1).shape, (std::vector<int64_t>{2, 7, 5}));
  EXPECT_EQ(ToString(transposed->op(2).body), "(A[b, i, k] * B[b, j, k])");
  EXPECT_EQ(plain->FlopCount(), 2.0 * 2 * 3 * 5 * 7);
  ExpectInvalid(BatchMatmul(0, 3, 5, 7), "batch_matmul: B must be positive, got 0");
}

Conv2dParams ResNetConv() {
  Conv2dParams p;
  p.in_channels = 64;
  p.height = p.width = 56;
  p.out_channels = 64;
  p.kernel_h = p.kernel_w = 3;
  p.pad_h = p.pad_w = 1;
  return p;
}

TEST(Conv2dTest, BuildsPadAndConvStages) {
  absl::StatusOr<ComputeDag> dag = Conv2d(ResNetConv());
  ASSERT_TRUE(dag.ok()) << dag.status();
  EXPECT_THAT(OpNames(*dag), ElementsAre("X", "W", "pad", "conv2d"));
  ExpectAllIdsArePositions(*dag);
  EXPECT_EQ(dag->op(2).attrs.at("op"), "pad");
  EXPECT_EQ(dag->op(2).shape, (std::vector<int64_t>{1, 64, 58, 58}));
  EXPECT_EQ(dag->op(3).shape, (std::vector<int64_t>{1, 64, 56, 56}));
  EXPECT_EQ(ToString(dag->op(3).body), "(pad[nn, rc, (yy + ry), (xx + rx)] * W[ff, rc, ry, rx])");
  // The pad stage's integer guards cost nothing; the conv is 2 flops per MAC.
  EXPECT_EQ(dag->FlopCount(), 2.0 * 64 * 56 * 56 * 64 * 3 * 3);
}

// A 4-D tensor with its axes permuted: out axis i is t's axis perm[i].
Tensor Permute4d(const Tensor& t, const std::vector<int>& perm) {
  std::vector<int64_t> shape;
  for (int axis : perm) shape.push_back(t.shape[axis]);
  Tensor out = Tensor::Zeros(shape);
  for (int64_t flat = 0; flat < NumElements(shape); ++flat) {
    const std::vector<int64_t> index = UnflattenIndex(flat, shape);
    std::vector<int64_t> from(4);
    for (int i = 0; i < 4; ++i) from[perm[i]] = index[i];
    out.at(index) = t.at(from);
  }
  return out;
}

TEST(Conv2dTest, ChannelsLastComputesTheNchwResultInNhwc) {
  std::vector<Conv2dParams> cases;
  cases.push_back(ResNetConv());
  cases.back().in_channels = cases.back().out_channels = 8;
  cases.back().height = cases.back().width = 9;
  Conv2dParams depthwise;  // MobileNet's stride-2 depthwise, with its epilogue
  depthwise.in_channels = depthwise.out_channels = depthwise.groups = 16;
  depthwise.height = depthwise.width = 11;
  depthwise.kernel_h = depthwise.kernel_w = 3;
  depthwise.stride_h = depthwise.stride_w = 2;
  depthwise.pad_h = depthwise.pad_w = 1;
  depthwise.bias = true;
  depthwise.activation = Activation::kRelu;
  cases.push_back(depthwise);
  Conv2dParams grouped;  // groups, dilation, uneven padding, batch 2
  grouped.batch = 2;
  grouped.in_channels = 8;
  grouped.out_channels = 12;
  grouped.groups = 4;
  grouped.height = 10;
  grouped.width = 7;
  grouped.kernel_h = 3;
  grouped.kernel_w = 2;
  grouped.dilation_h = 2;
  grouped.pad_w = 1;
  grouped.bias = true;
  cases.push_back(grouped);
  for (Conv2dParams p : cases) {
    absl::StatusOr<ComputeDag> nchw = Conv2d(p);
    p.channels_last = true;
    absl::StatusOr<ComputeDag> nhwc = Conv2d(p);
    ASSERT_TRUE(nchw.ok() && nhwc.ok()) << nchw.status() << nhwc.status();
    EXPECT_NE(nchw->WorkloadKey(), nhwc->WorkloadKey());
    std::vector<Tensor> inputs = RandomInputs(*nchw, 7);
    absl::StatusOr<std::vector<Tensor>> want = RunReference(*nchw, inputs);
    inputs[0] = Permute4d(inputs[0], {0, 2, 3, 1});  // X to NHWC; the weights stay OIHW
    absl::StatusOr<std::vector<Tensor>> got = RunReference(*nhwc, inputs);
    ASSERT_TRUE(want.ok() && got.ok()) << want.status() << got.status();
    EXPECT_EQ((*got)[0].shape, Permute4d((*want)[0], {0, 2, 3, 1}).shape);
    EXPECT_TRUE(CheckAllClose(Permute4d((*got)[0], {0, 3, 1, 2}), (*want)[0], 1e-6, 1e-6).ok());
  }
}

TEST(Conv2dTest, ChannelsLastTagsItsConvStage) {
  Conv2dParams p = ResNetConv();
  p.channels_last = true;
  absl::StatusOr<ComputeDag> dag = Conv2d(p);
  ASSERT_TRUE(dag.ok()) << dag.status();
  EXPECT_THAT(OpNames(*dag), ElementsAre("X", "W", "pad", "conv2d_nhwc"));
  EXPECT_EQ(dag->op(0).shape, (std::vector<int64_t>{1, 56, 56, 64}));
  EXPECT_EQ(dag->op(2).shape, (std::vector<int64_t>{1, 58, 58, 64}));
  EXPECT_EQ(dag->op(3).shape, (std::vector<int64_t>{1, 56, 56, 64}));
  EXPECT_EQ(ToString(dag->op(3).body), "(pad[nn, (yy + ry), (xx + rx), rc] * W[ff, rc, ry, rx])");
  EXPECT_EQ(dag->FlopCount(), 2.0 * 64 * 56 * 56 * 64 * 3 * 3);
}

TEST(Conv2dTest, HandlesStrideDilationGroupsAndEpilogue) {
  Conv2dParams p;
  p.batch = 2;
  p.in_channels = 8;
  p.height = 15;
  p.width = 17;
  p.out_channels = 12;
  p.kernel_h = 3;
  p.kernel_w = 5;
  p.stride_h = 2;
  p.pad_w = 2;
  p.dilation_h = 2;
  p.groups = 4;
  p.bias = true;
  p.activation = Activation::kRelu;
  absl::StatusOr<ComputeDag> dag = Conv2d(p);
  ASSERT_TRUE(dag.ok()) << dag.status();
  EXPECT_THAT(OpNames(*dag), ElementsAre("X", "W", "bias", "pad", "group_conv2d", "bias_add", "relu"));
  const int64_t out_h = ConvOutputSize(15, 3, 2, 0, 2);
  const int64_t out_w = ConvOutputSize(17, 5, 1, 2, 1);
  EXPECT_EQ(out_h, 6);
  EXPECT_EQ(out_w, 17);
  EXPECT_EQ(dag->op(4).shape, (std::vector<int64_t>{2, 12, out_h, out_w}));
  EXPECT_EQ(dag->op(1).shape, (std::vector<int64_t>{12, 2, 3, 5}));
  EXPECT_EQ(ToString(dag->op(4).body),
            "(pad[nn, ((floordiv(ff, 3) * 2) + rc), ((yy * 2) + (ry * 2)), (xx + rx)] * "
            "W[ff, rc, ry, rx])");
  const double elements = 2.0 * 12 * out_h * out_w;
  EXPECT_EQ(dag->FlopCount(), elements * 2 * 2 * 3 * 5 + 2 * elements);
}

TEST(Conv2dTest, DepthwiseDropsTheChannelReduction) {
  Conv2dParams p = ResNetConv();
  p.groups = 64;
  p.stride_h = p.stride_w = 2;
  absl::StatusOr<ComputeDag> dag = Conv2d(p);
  ASSERT_TRUE(dag.ok()) << dag.status();
  const Op& conv = dag->op(3);
  EXPECT_EQ(conv.name, "depthwise_conv2d");
  ASSERT_EQ(conv.reduce_axes.size(), 2u);
  EXPECT_EQ(conv.reduce_axes[0].name, "ry");
  EXPECT_EQ(ToString(conv.body),
            "(pad[nn, ff, ((yy * 2) + ry), ((xx * 2) + rx)] * W[ff, 0, ry, rx])");
  EXPECT_EQ(dag->FlopCount(), 2.0 * 64 * 28 * 28 * 3 * 3);
}

TEST(Conv2dTest, NoPaddingMeansNoPadStage) {
  Conv2dParams p = ResNetConv();
  p.pad_h = p.pad_w = 0;
  absl::StatusOr<ComputeDag> dag = Conv2d(p);
  ASSERT_TRUE(dag.ok());
  EXPECT_THAT(OpNames(*dag), ElementsAre("X", "W", "conv2d"));
  EXPECT_EQ(dag->op(2).shape, (std::vector<int64_t>{1, 64, 54, 54}));
}

TEST(Conv2dTest, RejectsBadArguments) {
  Conv2dParams p = ResNetConv();
  p.in_channels = 0;
  ExpectInvalid(Conv2d(p), "conv2d: C must be positive, got 0");
  p = ResNetConv();
  p.in_channels = 30;
  p.groups = 4;
  ExpectInvalid(Conv2d(p), "conv2d: C=30 is not divisible by groups=4");
  p = ResNetConv();
  p.out_channels = 30;
  p.groups = 4;
  p.in_channels = 64;
  ExpectInvalid(Conv2d(p), "conv2d: K=30 is not divisible by groups=4");
  p = ResNetConv();
  p.height = 2;
  p.pad_h = 0;
  ExpectInvalid(Conv2d(p), "conv2d: the height kernel spans 3");
  p = ResNetConv();
  p.width = 3;
  p.pad_w = 0;
  p.dilation_w = 2;
  ExpectInvalid(Conv2d(p),
                "the width kernel spans 5 (kernel 3, dilation 2) but the padded input width is "
                "only 3");
  p = ResNetConv();
  p.pad_h = -1;
  ExpectInvalid(Conv2d(p), "conv2d: pad_h must be non-negative, got -1");
  p = ResNetConv();
  p.stride_w = 0;
  ExpectInvalid(Conv2d(p), "conv2d: stride_w must be positive, got 0");
}

Pool2dParams MaxPool() {
  Pool2dParams p;
  p.channels = 16;
  p.height = p.width = 32;
  p.kernel_h = p.kernel_w = 3;
  p.stride_h = p.stride_w = 2;
  p.pad_h = p.pad_w = 1;
  return p;
}

TEST(Pool2dTest, MaxPoolPadsWithLowestFloat) {
  absl::StatusOr<ComputeDag> dag = Pool2d(MaxPool());
  ASSERT_TRUE(dag.ok()) << dag.status();
  EXPECT_THAT(OpNames(*dag), ElementsAre("X", "pad", "pool_max"));
  EXPECT_EQ(dag->op(2).reduce, ReduceKind::kMax);
  EXPECT_EQ(dag->op(2).shape, (std::vector<int64_t>{1, 16, 16, 16}));
  EXPECT_THAT(ToString(dag->op(1).body), HasSubstr("-3.4028234663852886e+38f"));
  EXPECT_EQ(dag->FlopCount(), 16.0 * 16 * 16 * 9);  // one max per window element
}

TEST(Pool2dTest, AvgPoolSumsThenDivides) {
  Pool2dParams p = MaxPool();
  p.kind = PoolKind::kAvg;
  absl::StatusOr<ComputeDag> dag = Pool2d(p);
  ASSERT_TRUE(dag.ok()) << dag.status();
  EXPECT_THAT(OpNames(*dag), ElementsAre("X", "pad", "pool_sum", "pool_avg"));
  EXPECT_EQ(ToString(dag->op(3).body), "(pool_sum[i, j, k, l] / 9.0f)");
}

TEST(Pool2dTest, RejectsBadArguments) {
  Pool2dParams p = MaxPool();
  p.kernel_h = 0;
  ExpectInvalid(Pool2d(p), "max_pool2d: kernel_h must be positive, got 0");
  p = MaxPool();
  p.pad_h = 2;
  ExpectInvalid(Pool2d(p), "max_pool2d: padding (2, 1) must be at most half the kernel (3, 3)");
  p = MaxPool();
  p.kind = PoolKind::kAvg;
  p.height = 1;
  p.pad_h = 0;
  ExpectInvalid(Pool2d(p), "avg_pool2d: the height kernel spans 3");
}

TEST(SoftmaxTest, BuildsFourStages) {
  absl::StatusOr<ComputeDag> dag = Softmax(128, 1000);
  ASSERT_TRUE(dag.ok()) << dag.status();
  EXPECT_THAT(OpNames(*dag), ElementsAre("X", "max_elem", "exp", "exp_sum", "softmax"));
  EXPECT_EQ(dag->op(1).reduce, ReduceKind::kMax);
  EXPECT_EQ(dag->op(3).reduce, ReduceKind::kSum);
  EXPECT_EQ(ToString(dag->op(2).body), "exp((X[i, j] - max_elem[i]))");
  // Row max (the combiner), x - max, row sum and divide: one flop per element
  // each; exp itself is free.
  EXPECT_EQ(dag->FlopCount(), 128.0 * 1000 * 4);
  ExpectInvalid(Softmax(0, 10), "softmax: M (rows) must be positive, got 0");
}

TEST(LayerNormTest, BuildsStagesWithOptionalAffine) {
  absl::StatusOr<ComputeDag> dag = LayerNorm(16, 768);
  ASSERT_TRUE(dag.ok()) << dag.status();
  EXPECT_THAT(OpNames(*dag),
              ElementsAre("X", "gamma", "beta", "sum", "mean", "var_sum", "rstd", "layer_norm"));
  absl::StatusOr<ComputeDag> plain = LayerNorm(16, 768, 1e-5, /*affine=*/false);
  ASSERT_TRUE(plain.ok());
  EXPECT_THAT(plain->InputIndices(), ElementsAre(0));
  ExpectInvalid(LayerNorm(16, 0), "layer_norm: N (cols) must be positive, got 0");
  ExpectInvalid(LayerNorm(16, 8, -1.0), "layer_norm: eps must be finite and non-negative");
}

TEST(ElementwiseTest, BuildsAnyRank) {
  for (const std::vector<int64_t>& shape :
       {std::vector<int64_t>{7}, std::vector<int64_t>{2, 3, 4, 5, 6}}) {
    absl::StatusOr<ComputeDag> add = ElementwiseAdd(shape);
    ASSERT_TRUE(add.ok()) << add.status();
    EXPECT_EQ(add->op(2).shape, shape);
    EXPECT_EQ(add->FlopCount(), static_cast<double>(add->op(2).num_elements()));
  }
  absl::StatusOr<ComputeDag> mul = ElementwiseMul({2, 3});
  ASSERT_TRUE(mul.ok());
  EXPECT_EQ(ToString(mul->op(2).body), "(A[i, j] * B[i, j])");
  absl::StatusOr<ComputeDag> relu = Relu({2, 3});
  ASSERT_TRUE(relu.ok());
  EXPECT_EQ(ToString(relu->op(1).body), "max(X[i, j], 0.0f)");
  ExpectInvalid(ElementwiseAdd({}), "add: the shape must have rank >= 1");
  ExpectInvalid(ElementwiseMul({3, 0}), "mul: dimension 1 of shape [3, 0] must be positive, got 0");
  ExpectInvalid(Relu({-2}), "relu: dimension 0 of shape [-2] must be positive, got -2");
}

TEST(ActivationTest, ParsesNames) {
  EXPECT_EQ(*ParseActivation("gelu"), Activation::kGelu);
  EXPECT_EQ(ActivationName(Activation::kRelu), "relu");
  absl::StatusOr<Activation> bad = ParseActivation("swish");
  EXPECT_EQ(bad.status().code(), absl::StatusCode::kInvalidArgument);
  EXPECT_THAT(std::string(bad.status().message()),
              HasSubstr("unknown activation 'swish'; expected none, relu or gelu"));
}

}  // namespace
}  // namespace pruner
