// Winograd F(2x2, 3x3) and F(4x4, 3x3): the transform expressions are the
// matrices they claim to be, and Conv2dWinograd with packed weights computes
// what the direct NHWC convolution computes.
#include "common/ir/winograd.h"

#include <iostream>

#include "common/ir/ops.h"
#include "common/ir/reference.h"
#include "common/ir/tensor.h"

#include "gmock/gmock.h"
#include "gtest/gtest.h"

namespace pruner {
namespace {

using ::testing::ElementsAre;
using ::testing::HasSubstr;

double Evaluate(const Expr& e) {
  absl::StatusOr<double> v = EvaluateExpr(e, {});
  EXPECT_TRUE(v.ok()) << v.status();
  return v.ok() ? *v : 0;
}

// Lavin & Gray's B^T with its third row negated, and A^T (winograd.cc).
constexpr int kBt[4][4] = {{1, 0, -1, 0}, {0, 1, 1, 0}, {0, 1, -1, 0}, {0, 1, 0, -1}};
constexpr int kAt[2][4] = {{1, 1, 1, 0}, {0, 1, -1, -1}};

TEST(WinogradTest, IndexAndSignExpressionsSpellOutTheTransformMatrices) {
  for (int row = 0; row < 4; ++row) {
    int got[4] = {};
    for (int term = 0; term < 2; ++term) {
      const int index = static_cast<int>(Evaluate(WinogradInputIndex(IntImm(row), IntImm(term))));
      ASSERT_GE(index, 0);
      ASSERT_LT(index, 4);
      got[index] += static_cast<int>(Evaluate(WinogradInputSign(IntImm(row), IntImm(term))));
    }
    EXPECT_THAT(got, ElementsAre(kBt[row][0], kBt[row][1], kBt[row][2], kBt[row][3])) << row;
  }
  for (int row = 0; row < 2; ++row) {
    int got[4] = {};
    for (int term = 0; term < 3; ++term) {
      got[row + term] += static_cast<int>(Evaluate(WinogradOutputSign(IntImm(row), IntImm(term))));
    }
    EXPECT_THAT(got, ElementsAre(kAt[row][0], kAt[row][1], kAt[row][2], kAt[row][3])) << row;
  }
}

// F(4x4, 3x3): Lavin & Gray's B^T and A^T.
constexpr int kBt4[6][6] = {{4, 0, -5, 0, 1, 0},  {0, -4, -4, 1, 1, 0}, {0, 4, -4, -1, 1, 0},
                            {0, -2, -1, 2, 1, 0}, {0, 2, -1, -2, 1, 0}, {0, 4, 0, -5, 0, 1}};
constexpr int kAt4[4][6] = {
    {1, 1, 1, 1, 1, 0}, {0, 1, -1, 2, -2, 0}, {0, 1, 1, 4, 4, 0}, {0, 1, -1, 8, -8, 1}};

// Sums the (column, coefficient) terms of each row into a dense row.
template <int kRows>
void ExpectTermsSpellOut(const int (&want)[kRows][6], int64_t terms,
                         WinogradTerm (*term_of)(int64_t, const Expr&, const Expr&)) {
  for (int row = 0; row < kRows; ++row) {
    int got[6] = {};
    for (int term = 0; term < terms; ++term) {
      const WinogradTerm t = term_of(4, IntImm(row), IntImm(term));
      const int c = static_cast<int>(Evaluate(t.column));
      ASSERT_GE(c, 0);
      ASSERT_LT(c, 6);
      const double k = Evaluate(t.coef);
      EXPECT_NE(k, 0.0) << "a zero coefficient costs a multiply-add: row " << row;
      got[c] += static_cast<int>(k);
    }
    EXPECT_THAT(got, ElementsAre(want[row][0], want[row][1], want[row][2], want[row][3],
                                 want[row][4], want[row][5]))
        << row;
  }
}

TEST(WinogradTest, F4TermsSpellOutTheTransformMatrices) {
  ExpectTermsSpellOut(kBt4, WinogradInputTerms(4), WinogradInputTerm);
  ExpectTermsSpellOut(kAt4, WinogradOutputTerms(4), WinogradOutputTerm);
}

Conv2dParams Nhwc3x3(int64_t batch, int64_t c, int64_t h, int64_t w, int64_t k, int64_t pad) {
  Conv2dParams p;
  p.batch = batch;
  p.in_channels = c;
  p.height = h;
  p.width = w;
  p.out_channels = k;
  p.kernel_h = p.kernel_w = 3;
  p.pad_h = p.pad_w = pad;
  p.channels_last = true;
  return p;
}

// Runs the direct NHWC conv on random inputs and the Winograd DAG on the same
// input with the packed weight; they must agree to float rounding. F(4x4,
// 3x3)'s transforms have coefficients up to 8 and 1/24 and lose several
// times more than F(2x2, 3x3): rtol 1e-3, atol 1e-4, the tolerance a
// compiled model is held to against PyTorch.
void ExpectWinogradMatchesDirect(const Conv2dParams& p) {
  absl::StatusOr<ComputeDag> direct = Conv2d(p);
  absl::StatusOr<ComputeDag> winograd = Conv2dWinograd(p);
  ASSERT_TRUE(direct.ok() && winograd.ok()) << direct.status() << winograd.status();
  std::vector<Tensor> inputs = RandomInputs(*direct, 11);
  absl::StatusOr<std::vector<Tensor>> want = RunReference(*direct, inputs);
  ASSERT_TRUE(want.ok()) << want.status();
  // Inputs are X, W (OIHW) and optionally bias, in both DAGs' order.
  const int64_t alpha = p.winograd_tile + 2;
  Tensor packed = Tensor::Zeros({alpha, alpha, p.in_channels, p.out_channels});
  packed.data =
      WinogradPackWeights(inputs[1].data, p.out_channels, p.in_channels, p.winograd_tile);
  inputs[1] = packed;
  absl::StatusOr<std::vector<Tensor>> got = RunReference(*winograd, inputs);
  ASSERT_TRUE(got.ok()) << got.status();
  ASSERT_EQ((*got)[0].shape, (*want)[0].shape);
  const bool f4 = p.winograd_tile == 4;
  const absl::Status close =
      CheckAllClose((*got)[0], (*want)[0], f4 ? 1e-3 : 1e-4, f4 ? 1e-4 : 1e-5);
  EXPECT_TRUE(close.ok()) << close;
}

TEST(WinogradTest, MatchesTheDirectConvolution) {
  ExpectWinogradMatchesDirect(Nhwc3x3(1, 8, 8, 8, 12, 1));   // whole tiles
  ExpectWinogradMatchesDirect(Nhwc3x3(2, 5, 7, 9, 6, 1));    // odd output: partial tiles
  ExpectWinogradMatchesDirect(Nhwc3x3(1, 4, 10, 7, 3, 0));   // no padding, odd width
  Conv2dParams epilogue = Nhwc3x3(1, 16, 14, 14, 16, 1);    // ResNet's block, bias + ReLU
  epilogue.bias = true;
  epilogue.activation = Activation::kRelu;
  ExpectWinogradMatchesDirect(epilogue);
}

Conv2dParams WithTile(Conv2dParams p, int64_t tile) {
  p.winograd_tile = tile;
  return p;
}

TEST(WinogradTest, F4MatchesTheDirectConvolution) {
  ExpectWinogradMatchesDirect(WithTile(Nhwc3x3(1, 8, 8, 8, 12, 1), 4));   // whole tiles
  ExpectWinogradMatchesDirect(WithTile(Nhwc3x3(2, 5, 7, 9, 6, 1), 4));    // partial tiles
  ExpectWinogradMatchesDirect(WithTile(Nhwc3x3(1, 4, 10, 7, 3, 0), 4));   // no padding
  ExpectWinogradMatchesDirect(WithTile(Nhwc3x3(1, 64, 12, 12, 16, 1), 4));  // 64-term sums
}

TEST(WinogradTest, F4BuildsSixBySixTilesWithAQuarterOfTheMultiplies) {
  absl::StatusOr<ComputeDag> dag = Conv2dWinograd(WithTile(Nhwc3x3(1, 64, 56, 56, 64, 1), 4));
  ASSERT_TRUE(dag.ok()) << dag.status();
  EXPECT_EQ(dag->op(1).shape, (std::vector<int64_t>{6, 6, 64, 64}));
  EXPECT_EQ(dag->op(4).shape, (std::vector<int64_t>{6, 6, 14 * 14, 64}));
  EXPECT_EQ(dag->op(6).shape, (std::vector<int64_t>{1, 56, 56, 64}));
  absl::StatusOr<ComputeDag> direct = Conv2d(Nhwc3x3(1, 64, 56, 56, 64, 1));
  ASSERT_TRUE(direct.ok());
  // The product is a quarter of the direct convolution's multiply-adds; the
  // transforms' 16 and 25 terms per element add about 60% of that.
  EXPECT_LT(dag->FlopCount(), 0.45 * direct->FlopCount());
  absl::StatusOr<ComputeDag> spec = BuildOperator("conv2d_winograd:C=64,H=56,W=56,K=64,tile=4");
  ASSERT_TRUE(spec.ok()) << spec.status();
  EXPECT_EQ(spec->WorkloadKey(), dag->WorkloadKey());
  absl::StatusOr<ComputeDag> two = BuildOperator("conv2d_winograd:C=64,H=56,W=56,K=64");
  ASSERT_TRUE(two.ok());
  EXPECT_NE(two->WorkloadKey(), dag->WorkloadKey());
  absl::StatusOr<ComputeDag> three = BuildOperator("conv2d_winograd:C=8,H=8,W=8,K=8,tile=3");
  ASSERT_FALSE(three.ok());
  EXPECT_THAT(std::string(three.status().message()), HasSubstr("tile must be 2 or 4, got 3"));
}

// ResNet-18's 3x3 stride-1 convolutions: F(4x4, 3x3) where its tiles and
// weight are small (64 and 128 channels), F(2x2, 3x3) where only its tiles
// fit (256 and 512), none at 64 channels on a 112x112 map.
TEST(WinogradTest, ChoosesTheTilePerShape) {
  auto tile_for = [](int64_t c, int64_t hw) {
    return ChooseWinogradTile(
        {.height = hw, .width = hw, .in_channels = c, .out_channels = c, .pad_h = 1, .pad_w = 1});
  };
  EXPECT_EQ(tile_for(64, 56), 4);
  EXPECT_EQ(tile_for(128, 28), 4);
  EXPECT_EQ(tile_for(256, 14), 2);
  EXPECT_EQ(tile_for(512, 7), 2);
  EXPECT_EQ(tile_for(64, 112), 0);
}

TEST(WinogradTest, BuildsFourStagesAroundTheBatchedProduct) {
  absl::StatusOr<ComputeDag> dag = Conv2dWinograd(Nhwc3x3(1, 64, 56, 56, 64, 1));
  ASSERT_TRUE(dag.ok()) << dag.status();
  std::vector<std::string> names;
  for (const OpRef& op : dag->ops()) names.push_back(op->name);
  EXPECT_THAT(names, ElementsAre("X", "U", "pad", "data_pack", "bgemm", "inverse",
                                 "conv2d_winograd_nhwc"));
  EXPECT_TRUE(dag->op(1).is_layout_free());
  EXPECT_EQ(dag->op(1).shape, (std::vector<int64_t>{4, 4, 64, 64}));
  EXPECT_EQ(dag->op(2).shape, (std::vector<int64_t>{1, 58, 58, 64}));
  EXPECT_EQ(dag->op(4).shape, (std::vector<int64_t>{4, 4, 28 * 28, 64}));
  EXPECT_EQ(dag->op(6).shape, (std::vector<int64_t>{1, 56, 56, 64}));
  // The batched product does 16 / 36 of the direct convolution's
  // multiply-adds; at 64 channels the transforms add about 7% of that.
  absl::StatusOr<ComputeDag> direct = Conv2d(Nhwc3x3(1, 64, 56, 56, 64, 1));
  ASSERT_TRUE(direct.ok());
  EXPECT_LT(dag->FlopCount(), 0.55 * direct->FlopCount());
  // An operator spec builds the same DAG.
  absl::StatusOr<ComputeDag> spec = BuildOperator("conv2d_winograd:C=64,H=56,W=56,K=64");
  ASSERT_TRUE(spec.ok()) << spec.status();
  EXPECT_EQ(spec->WorkloadKey(), dag->WorkloadKey());
}

TEST(WinogradTest, RefusesConvolutionsWithoutAWinogradForm) {
  Conv2dParams strided = Nhwc3x3(1, 8, 8, 8, 8, 1);
  strided.stride_h = strided.stride_w = 2;
  Conv2dParams one_by_one = Nhwc3x3(1, 8, 8, 8, 8, 0);
  one_by_one.kernel_h = one_by_one.kernel_w = 1;
  Conv2dParams grouped = Nhwc3x3(1, 8, 8, 8, 8, 1);
  grouped.groups = 2;
  for (const auto& [p, fragment] : {std::pair{strided, "needs stride 1, got 2x2"},
                                    std::pair{one_by_one, "needs a 3x3 kernel, got 1x1"},
                                    std::pair{grouped, "needs groups=1, got 2"}}) {
    absl::StatusOr<ComputeDag> dag = Conv2dWinograd(p);
    ASSERT_FALSE(dag.ok());
    EXPECT_EQ(dag.status().code(), absl::StatusCode::kInvalidArgument);
    EXPECT_THAT(std::string(dag.status().message()), HasSubstr(fragment));
    std::cout << "builder error: " << dag.status().message() << "\n";
  }
  absl::StatusOr<ComputeDag> bad_spec = BuildOperator("conv2d_winograd:C=8,H=8,W=8,K=8,stride=2");
  EXPECT_FALSE(bad_spec.ok());
}

}  // namespace
}  // namespace pruner
