// The reference executor against hand-computed results and plain loops.
#include "common/ir/reference.h"

#include <chrono>
#include <cmath>
#include <iostream>

#include "common/ir/ops.h"
#include "gmock/gmock.h"
#include "gtest/gtest.h"

namespace pruner {
namespace {

using ::testing::ElementsAre;
using ::testing::HasSubstr;

Tensor FromValues(std::vector<int64_t> shape, std::vector<float> values) {
  Tensor t = Tensor::Zeros(std::move(shape));
  t.data = std::move(values);
  return t;
}

Tensor RunSingleOutput(const absl::StatusOr<ComputeDag>& dag, const std::vector<Tensor>& inputs) {
  EXPECT_TRUE(dag.ok()) << dag.status();
  absl::StatusOr<std::vector<Tensor>> out = RunReference(*dag, inputs);
  EXPECT_TRUE(out.ok()) << out.status();
  EXPECT_EQ(out->size(), 1u);
  return out->front();
}

TEST(ReferenceTest, Matmul2x3x2ByHand) {
  const Tensor a = FromValues({2, 3}, {1, 2, 3, 4, 5, 6});
  const Tensor b = FromValues({3, 2}, {7, 8, 9, 10, 11, 12});
  const Tensor c = RunSingleOutput(Matmul(2, 3, 2), {a, b});
  EXPECT_THAT(c.shape, ElementsAre(2, 2));
  // [1 2 3; 4 5 6] x [7 8; 9 10; 11 12]
  EXPECT_THAT(c.data, ElementsAre(58, 64, 139, 154));
}

TEST(ReferenceTest, DenseWithBiasAndRelu) {
  // W is [N, K]: out[i, j] = sum_k A[i, k] * W[j, k] + bias[j], then relu.
  const Tensor a = FromValues({1, 2}, {1, 2});
  const Tensor w = FromValues({3, 2}, {1, 1, -3, 1, 0, 2});
  const Tensor bias = FromValues({3}, {0.5f, 0, -1});
  const Tensor out = RunSingleOutput(
      Dense(1, 2, 3, {.bias = true, .activation = Activation::kRelu}), {a, w, bias});
  EXPECT_THAT(out.data, ElementsAre(3.5f, 0.0f, 3.0f));
}

TEST(ReferenceTest, GeluMatchesFormula) {
  const Tensor a = FromValues({1, 1}, {1});
  const Tensor w = FromValues({4, 1}, {-2, -0.5f, 0.5f, 2});
  const Tensor out = RunSingleOutput(Dense(1, 1, 4, {.activation = Activation::kGelu}), {a, w});
  for (int j = 0; j < 4; ++j) {
    const double x = w.data[j];
    EXPECT_NEAR(out.data[j], 0.5 * x * (1 + std::erf(x / std::sqrt(2.0))), 1e-6);
  }
}

TEST(ReferenceTest, ConvWithPaddingAndStride2ByHand) {
  Conv2dParams p;
  p.in_channels = 1;
  p.height = p.width = 4;
  p.out_channels = 1;
  p.kernel_h = p.kernel_w = 3;
  p.stride_h = p.stride_w = 2;
  p.pad_h = p.pad_w = 1;
  Tensor x = Tensor::Zeros({1, 1, 4, 4});
  for (int i = 0; i < 16; ++i) x.data[i] = static_cast<float>(i + 1);
  const Tensor w = FromValues({1, 1, 3, 3}, std::vector<float>(9, 1.0f));
  const Tensor out = RunSingleOutput(Conv2d(p), {x, w});
  EXPECT_THAT(out.shape, ElementsAre(1, 1, 2, 2));
  // 3x3 window sums centred on (0,0), (0,2), (2,0), (2,2) of the zero-padded
  // grid 1..16: 1+2+5+6, 2+3+4+6+7+8, 5+6+9+10+13+14, 6+7+8+10+11+12+14+15+16.
  EXPECT_THAT(out.data, ElementsAre(14, 30, 57, 99));
}

// conv2d over NCHW written as the textbook loop nest.
Tensor LoopConv(const Conv2dParams& p, const Tensor& x, const Tensor& w) {
  const int64_t oh = ConvOutputSize(p.height, p.kernel_h, p.stride_h, p.pad_h, p.dilation_h);
  const int64_t ow = ConvOutputSize(p.width, p.kernel_w, p.stride_w, p.pad_w, p.dilation_w);
  const int64_t cpg = p.in_channels / p.groups;
  const int64_t kpg = p.out_channels / p.groups;
  Tensor out = Tensor::Zeros({p.batch, p.out_channels, oh, ow});
  for (int64_t n = 0; n < p.batch; ++n)
    for (int64_t k = 0; k < p.out_channels; ++k)
      for (int64_t y = 0; y < oh; ++y)
        for (int64_t xx = 0; xx < ow; ++xx) {
          float acc = 0;
          for (int64_t c = 0; c < cpg; ++c)
            for (int64_t r = 0; r < p.kernel_h; ++r)
              for (int64_t s = 0; s < p.kernel_w; ++s) {
                const int64_t iy = y * p.stride_h + r * p.dilation_h - p.pad_h;
                const int64_t ix = xx * p.stride_w + s * p.dilation_w - p.pad_w;
                if (iy < 0 || iy >= p.height || ix < 0 || ix >= p.width) continue;
                acc += x.at({n, (k / kpg) * cpg + c, iy, ix}) * w.at({k, c, r, s});
              }
          out.at({n, k, y, xx}) = acc;
        }
  return out;
}

TEST(ReferenceTest, DepthwiseConvMatchesLoop) {
  Conv2dParams p;
  p.batch = 2;
  p.in_channels = p.out_channels = p.groups = 3;
  p.height = 9;
  p.width = 7;
  p.kernel_h = p.kernel_w = 3;
  p.stride_h = p.stride_w = 2;
  p.pad_h = p.pad_w = 1;
  const Tensor x = RandomTensor({2, 3, 9, 7}, 1);
  const Tensor w = RandomTensor({3, 1, 3, 3}, 2);
  const Tensor out = RunSingleOutput(Conv2d(p), {x, w});
  const absl::Status close = CheckAllClose(out, LoopConv(p, x, w), 1e-5, 1e-6);
  EXPECT_TRUE(close.ok()) << close;
}

TEST(ReferenceTest, GroupedDilatedConvMatchesLoop) {
  Conv2dParams p;
  p.in_channels = 8;
  p.out_channels = 12;
  p.groups = 4;
  p.height = 11;
  p.width = 10;
  p.kernel_h = 3;
  p.kernel_w = 2;
  p.stride_h = 1;
  p.stride_w = 3;
  p.pad_h = 2;
  p.pad_w = 1;
  p.dilation_h = 2;
  const Tensor x = RandomTensor({1, 8, 11, 10}, 3);
  const Tensor w = RandomTensor({12, 2, 3, 2}, 4);
  const Tensor out = RunSingleOutput(Conv2d(p), {x, w});
  const absl::Status close = CheckAllClose(out, LoopConv(p, x, w), 1e-5, 1e-6);
  EXPECT_TRUE(close.ok()) << close;
}

TEST(ReferenceTest, SoftmaxRowsSumToOne) {
  const Tensor x = RandomTensor({5, 37}, 11);
  const Tensor y = RunSingleOutput(Softmax(5, 37), {x});
  for (int i = 0; i < 5; ++i) {
    double sum = 0, max_x = -1e9;
    for (int j = 0; j < 37; ++j) max_x = std::max<double>(max_x, x.at({i, j}));
    double denom = 0;
    for (int j = 0; j < 37; ++j) denom += std::exp(x.at({i, j}) - max_x);
    for (int j = 0; j < 37; ++j) {
      sum += y.at({i, j});
      EXPECT_NEAR(y.at({i, j}), std::exp(x.at({i, j}) - max_x) / denom, 1e-6);
    }
    EXPECT_NEAR(sum, 1.0, 1e-5);
  }
}

TEST(ReferenceTest, LayerNormNormalizesRows) {
  const int64_t rows = 4, cols = 64;
  const Tensor x = RandomTensor({rows, cols}, 5);
  const Tensor y = RunSingleOutput(LayerNorm(rows, cols, 1e-5, /*affine=*/false), {x});
  for (int64_t i = 0; i < rows; ++i) {
    double mean = 0, var = 0;
    for (int64_t j = 0; j < cols; ++j) mean += y.at({i, j});
    mean /= cols;
    for (int64_t j = 0; j < cols; ++j) var += (y.at({i, j}) - mean) * (y.at({i, j}) - mean);
    var /= cols;
    EXPECT_NEAR(mean, 0.0, 1e-5);
    EXPECT_NEAR(var, 1.0, 1e-3);
  }
  // gamma and beta scale and shift every row.
  const Tensor gamma = FromValues({2}, {2, 3});
  const Tensor beta = FromValues({2}, {10, 20});
  const Tensor two = FromValues({1, 2}, {1, 3});  // mean 2, biased var 1
  const Tensor out = RunSingleOutput(LayerNorm(1, 2, 0.0), {two, gamma, beta});
  EXPECT_THAT(out.data, ElementsAre(8.0f, 23.0f));
}

TEST(ReferenceTest, MaxPoolByHandIgnoresPadding) {
  Tensor x = Tensor::Zeros({1, 1, 4, 4});
  for (int i = 0; i < 16; ++i) x.data[i] = -static_cast<float>(i + 1);
  Pool2dParams p;
  p.channels = 1;
  p.height = p.width = 4;
  p.kernel_h = p.kernel_w = 3;
  p.stride_h = p.stride_w = 2;
  p.pad_h = p.pad_w = 1;
  const Tensor out = RunSingleOutput(Pool2d(p), {x});
  // Windows centred on (0,0), (0,2), (2,0), (2,2); the largest (least
  // negative) real element of each, never the padding.
  EXPECT_THAT(out.data, ElementsAre(-1, -2, -5, -6));

  p.pad_h = p.pad_w = 0;
  p.kernel_h = p.kernel_w = 2;
  for (float& v : x.data) v = -v;
  EXPECT_THAT(RunSingleOutput(Pool2d(p), {x}).data, ElementsAre(6, 8, 14, 16));
}

TEST(ReferenceTest, AvgPoolCountsPadding) {
  const Tensor x = FromValues({1, 1, 2, 2}, {1, 2, 3, 4});
  Pool2dParams p;
  p.kind = PoolKind::kAvg;
  p.channels = 1;
  p.height = p.width = 2;
  p.kernel_h = p.kernel_w = 2;
  p.stride_h = p.stride_w = 1;
  p.pad_h = p.pad_w = 1;
  const Tensor out = RunSingleOutput(Pool2d(p), {x});
  EXPECT_THAT(out.shape, ElementsAre(1, 1, 3, 3));
  // Corner windows hold one real element, divided by the full window of 4.
  EXPECT_THAT(out.data, ElementsAre(0.25f, 0.75f, 0.5f, 1.0f, 2.5f, 1.5f, 0.75f, 1.75f, 1.0f));
}

TEST(ReferenceTest, BatchMatmulTransposedMatchesLoop) {
  const Tensor a = RandomTensor({2, 3, 4}, 1);
  const Tensor b = RandomTensor({2, 5, 4}, 2);
  const Tensor c = RunSingleOutput(BatchMatmul(2, 3, 4, 5, /*transpose_b=*/true), {a, b});
  for (int64_t n = 0; n < 2; ++n)
    for (int64_t i = 0; i < 3; ++i)
      for (int64_t j = 0; j < 5; ++j) {
        float acc = 0;
        for (int64_t k = 0; k < 4; ++k) acc += a.at({n, i, k}) * b.at({n, j, k});
        EXPECT_FLOAT_EQ(c.at({n, i, j}), acc);
      }
}

TEST(ReferenceTest, ElementwiseOps) {
  const Tensor a = FromValues({2, 2}, {1, -2, 3, -4});
  const Tensor b = FromValues({2, 2}, {10, 20, 30, 40});
  EXPECT_THAT(RunSingleOutput(ElementwiseAdd({2, 2}), {a, b}).data, ElementsAre(11, 18, 33, 36));
  EXPECT_THAT(RunSingleOutput(ElementwiseMul({2, 2}), {a, b}).data,
              ElementsAre(10, -40, 90, -160));
  EXPECT_THAT(RunSingleOutput(Relu({2, 2}), {a}).data, ElementsAre(1, 0, 3, 0));
}

TEST(ReferenceTest, RunReferenceAllKeepsIntermediates) {
  Conv2dParams p;
  p.in_channels = 1;
  p.height = p.width = 2;
  p.out_channels = 1;
  p.kernel_h = p.kernel_w = 1;
  p.pad_h = p.pad_w = 1;
  absl::StatusOr<ComputeDag> dag = Conv2d(p);
  ASSERT_TRUE(dag.ok());
  const Tensor x = FromValues({1, 1, 2, 2}, {1, 2, 3, 4});
  const Tensor w = FromValues({1, 1, 1, 1}, {2});
  absl::StatusOr<std::vector<Tensor>> all = RunReferenceAll(*dag, {x, w});
  ASSERT_TRUE(all.ok()) << all.status();
  ASSERT_EQ(all->size(), 4u);
  EXPECT_EQ((*all)[0].data, x.data);
  EXPECT_THAT((*all)[2].data, ElementsAre(0, 0, 0, 0, 0, 1, 2, 0, 0, 3, 4, 0, 0, 0, 0, 0));
  EXPECT_THAT((*all)[3].data, ElementsAre(0, 0, 0, 0, 0, 2, 4, 0, 0, 6, 8, 0, 0, 0, 0, 0));
}

TEST(ReferenceTest, RandomInputsFitTheDag) {
  absl::StatusOr<ComputeDag> dag = Dense(3, 4, 5, {.bias = true});
  ASSERT_TRUE(dag.ok());
  const std::vector<Tensor> inputs = RandomInputs(*dag, 9);
  ASSERT_EQ(inputs.size(), 3u);
  EXPECT_THAT(inputs[1].shape, ElementsAre(5, 4));
  EXPECT_NE(inputs[0].data[0], inputs[1].data[0]);
  EXPECT_EQ(RandomInputs(*dag, 9)[2].data, inputs[2].data);
  EXPECT_TRUE(RunReference(*dag, inputs).ok());
}

void ExpectRunError(const ComputeDag& dag, const std::vector<Tensor>& inputs,
                    absl::StatusCode code, const std::string& fragment) {
  absl::StatusOr<std::vector<Tensor>> out = RunReference(dag, inputs);
  ASSERT_FALSE(out.ok());
  EXPECT_EQ(out.status().code(), code);
  EXPECT_THAT(std::string(out.status().message()), HasSubstr(fragment));
  std::cout << "RunReference error: " << out.status() << "\n";
}

TEST(ReferenceTest, ChecksInputs) {
  absl::StatusOr<ComputeDag> dag = Matmul(2, 3, 4);
  ASSERT_TRUE(dag.ok());
  const Tensor a = RandomTensor({2, 3}, 1);
  const Tensor b = RandomTensor({3, 4}, 2);
  ExpectRunError(*dag, {a}, absl::StatusCode::kInvalidArgument,
                 "the DAG has 2 inputs but 1 tensors were given");
  ExpectRunError(*dag, {a, RandomTensor({4, 3}, 2)}, absl::StatusCode::kInvalidArgument,
                 "input 1 ('B') has shape [4, 3], expected [3, 4]");
  ExpectRunError(*dag, {a, RandomTensor({3, 4}, 2, DType::kFloat16)},
                 absl::StatusCode::kInvalidArgument, "input 1 ('B') has dtype float16");
  Tensor short_data = b;
  short_data.data.pop_back();
  ExpectRunError(*dag, {a, short_data}, absl::StatusCode::kInvalidArgument,
                 "input 1 ('B') holds 11 values but its shape has 12 elements");
}

// A valid DAG whose reads leave their tensor: C[i] = A[i + 1] over i < 4.
TEST(ReferenceTest, OutOfRangeReadIsAnError) {
  auto a = std::make_shared<Op>();
  a->id = 0;
  a->name = "A";
  a->shape = {4};
  auto c = std::make_shared<Op>();
  c->id = 1;
  c->name = "shift";
  c->kind = OpKind::kCompute;
  c->axes = {{"i", 4}};
  c->shape = {4};
  c->body = Read(0, "A", DType::kFloat32, {Add(c->axis_var(0), IntImm(1))});
  absl::StatusOr<ComputeDag> dag = ComputeDag::Create({a, c});
  ASSERT_TRUE(dag.ok()) << dag.status();
  ExpectRunError(*dag, {RandomTensor({4}, 1)}, absl::StatusCode::kOutOfRange,
                 "op 'shift': read of 'A' at index [4] is out of bounds for shape [4]");

  auto d = std::make_shared<Op>(*c);
  d->name = "divide";
  // floormod(i, 2 - i) stays in bounds for i = 0, 1 and divides by zero at i = 2.
  d->body = Read(0, "A", DType::kFloat32, {FloorMod(d->axis_var(0), Sub(IntImm(2), d->axis_var(0)))});
  absl::StatusOr<ComputeDag> div = ComputeDag::Create({a, d});
  ASSERT_TRUE(div.ok()) << div.status();
  ExpectRunError(*div, {RandomTensor({4}, 1)}, absl::StatusCode::kInvalidArgument,
                 "integer division 2 by 0 has no result");
}

// Speed is reported, not asserted: timing belongs in bench/, and a shared
// 2-core machine makes wall-clock assertions flaky.
TEST(ReferenceTest, LargeDenseMatchesAPlainLoop) {
  absl::StatusOr<ComputeDag> dag = Dense(256, 512, 512);
  ASSERT_TRUE(dag.ok());
  const std::vector<Tensor> inputs = RandomInputs(*dag, 1);
  const auto start = std::chrono::steady_clock::now();
  absl::StatusOr<std::vector<Tensor>> out = RunReference(*dag, inputs);
  const double seconds =
      std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  ASSERT_TRUE(out.ok()) << out.status();
  std::cout << "dense 256x512x512 reference: " << seconds << " s\n";
  // Spot-check one element against a plain loop.
  float acc = 0;
  for (int k = 0; k < 512; ++k) acc += inputs[0].at({7, k}) * inputs[1].at({9, k});
  EXPECT_FLOAT_EQ(out->front().at({7, 9}), acc);
}

}  // namespace
}  // namespace pruner
