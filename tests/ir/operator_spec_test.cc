// BuildOperator(): the string-spec entry point and its error messages.
#include <iostream>

#include "common/ir/ops.h"
#include "gmock/gmock.h"
#include "gtest/gtest.h"

namespace pruner {
namespace {

using ::testing::HasSubstr;

void ExpectSpecError(const std::string& spec, const std::string& fragment) {
  absl::StatusOr<ComputeDag> dag = BuildOperator(spec);
  ASSERT_FALSE(dag.ok()) << "built unexpectedly: " << spec;
  EXPECT_EQ(dag.status().code(), absl::StatusCode::kInvalidArgument);
  EXPECT_THAT(std::string(dag.status().message()), HasSubstr(fragment));
  std::cout << "BuildOperator(\"" << spec << "\"): " << dag.status() << "\n";
}

TEST(BuildOperatorTest, MatchesTheDirectBuilders) {
  absl::StatusOr<ComputeDag> from_spec = BuildOperator("dense:M=65,K=2048,N=1024,bias=1,act=relu");
  absl::StatusOr<ComputeDag> direct =
      Dense(65, 2048, 1024, {.bias = true, .activation = Activation::kRelu});
  ASSERT_TRUE(from_spec.ok() && direct.ok()) << from_spec.status();
  EXPECT_EQ(from_spec->CanonicalText(), direct->CanonicalText());

  Conv2dParams p;
  p.in_channels = 64;
  p.height = p.width = 56;
  p.out_channels = 64;
  p.kernel_h = p.kernel_w = 3;
  p.pad_h = p.pad_w = 1;
  absl::StatusOr<ComputeDag> conv = BuildOperator(
      "conv2d:N=1,C=64,H=56,W=56,K=64,R=3,S=3,stride=1,pad=1,dilation=1,groups=1");
  ASSERT_TRUE(conv.ok()) << conv.status();
  EXPECT_EQ(conv->CanonicalText(), Conv2d(p)->CanonicalText());

  // Spaces around keys and values are ignored; _h/_w override the pair key.
  absl::StatusOr<ComputeDag> spaced = BuildOperator(" softmax : M = 128 , N = 1000 ");
  ASSERT_TRUE(spaced.ok()) << spaced.status();
  EXPECT_EQ(spaced->CanonicalText(), Softmax(128, 1000)->CanonicalText());
  absl::StatusOr<ComputeDag> mixed =
      BuildOperator("conv2d:C=4,H=9,W=9,K=4,R=3,S=3,stride=2,stride_w=1");
  ASSERT_TRUE(mixed.ok()) << mixed.status();
  EXPECT_EQ(mixed->op(2).shape, (std::vector<int64_t>{1, 4, 4, 7}));
}

TEST(BuildOperatorTest, DefaultsArePyTorchLike) {
  absl::StatusOr<ComputeDag> pool = BuildOperator("max_pool2d:C=8,H=32,W=32,kernel=2");
  ASSERT_TRUE(pool.ok()) << pool.status();
  EXPECT_EQ(pool->op(1).shape, (std::vector<int64_t>{1, 8, 16, 16}));  // stride = kernel
  absl::StatusOr<ComputeDag> dw = BuildOperator("depthwise_conv2d:C=32,H=28,W=28,R=3,S=3,pad=1");
  ASSERT_TRUE(dw.ok()) << dw.status();
  EXPECT_EQ(dw->op(1).shape, (std::vector<int64_t>{32, 1, 3, 3}));
  EXPECT_EQ(dw->op(3).attrs.at("op"), "depthwise_conv2d");
}

TEST(BuildOperatorTest, ListsKnownOperators) {
  const std::vector<std::string> names = KnownOperators();
  EXPECT_TRUE(std::is_sorted(names.begin(), names.end()));
  EXPECT_THAT(names, ::testing::IsSupersetOf({"dense", "matmul", "batch_matmul", "conv2d",
                                              "depthwise_conv2d", "max_pool2d", "avg_pool2d",
                                              "softmax", "layer_norm", "add", "mul", "relu"}));
  const std::string usage = OperatorUsage();
  for (const std::string& name : names) EXPECT_THAT(usage, HasSubstr(name + ":"));
  std::cout << usage;
}

TEST(BuildOperatorTest, ExplainsBadSpecs) {
  ExpectSpecError("densee:M=1,K=2,N=3",
                  "unknown operator 'densee' in spec 'densee:M=1,K=2,N=3'; known operators: add, "
                  "avg_pool2d, batch_matmul, conv2d, conv2d_winograd, dense,");
  ExpectSpecError("dense:M=1,K=2", "dense: missing required key 'N'");
  ExpectSpecError("dense:M=1,K=2,N=3,Q=4", "dense: unknown key 'Q'; known keys: M, K, N, bias, act");
  ExpectSpecError("dense:M=1,K=2,N=3,M=4", "dense: key 'M' is given twice");
  ExpectSpecError("dense:M=1,K=two,N=3", "dense: K=two is not an integer");
  ExpectSpecError("dense:M=1,K=2,N=3,bias=yes", "dense: bias=yes is not a boolean");
  ExpectSpecError("dense:M=1,K=2,N=3,act=swish",
                  "dense: act: unknown activation 'swish'; expected none, relu or gelu");
  ExpectSpecError("dense:M=1,K,N=3", "dense: expected key=value but found 'K'");
  ExpectSpecError("dense:M=1,,N=3", "dense: expected key=value but found ''");
  ExpectSpecError("dense:M=0,K=2,N=3", "dense: M (batch) must be positive, got 0");
  ExpectSpecError("conv2d:C=30,H=8,W=8,K=8,R=3,S=3,groups=4",
                  "conv2d: C=30 is not divisible by groups=4");
  ExpectSpecError("conv2d:C=3,H=2,W=8,K=8,R=3,S=3", "conv2d: the height kernel spans 3");
  ExpectSpecError("conv2d:C=3,H=8,W=8,K=8,R=3,S=3,layout=chwn",
                  "conv2d: layout=chwn is not a layout; use nchw or nhwc");
  ExpectSpecError("max_pool2d:C=8,H=8,W=8", "max_pool2d: missing required key 'kernel'");
  ExpectSpecError("avg_pool2d:C=8,H=8,W=8,kernel=2,pad=2", "must be at most half the kernel");
  ExpectSpecError("layer_norm:M=4,N=8,eps=tiny", "layer_norm: eps=tiny is not a number");
  ExpectSpecError("add:shape=4x0x2", "add: dimension 1 of shape [4, 0, 2] must be positive");
  ExpectSpecError("relu:shape=4by2", "relu: shape=4by2 is not a shape like 4x128x768");
  ExpectSpecError("softmax", "softmax: missing required key 'M'");
  ExpectSpecError("", "unknown operator ''");
}

}  // namespace
}  // namespace pruner
