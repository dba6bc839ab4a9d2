// compute_at chains: stages attached to stages that are themselves attached.
#include <iostream>
#include <string>

#include "common/ir/ops.h"
#include "common/lower/lower.h"
#include "gtest/gtest.h"
#include "tests/lower/lower_test_util.h"

namespace pruner {
namespace {

using testing::FindBuffer;
using testing::LowerAndCheck;
using testing::Share;
using testing::TestCpu;
using testing::TestGpu;

TEST(LowerChain, ThreeLevelComputeAtChainOnCpu) {
  // Stages after CHW: A, W, bias, dense.local, dense, bias_add, relu.
  // relu rows split by 4 (10 rows: a tail); bias_add at relu's i.0 (a 4-row
  // region that overshoots the 10 rows on the last tile), dense at
  // bias_add's i (one row), dense.local at dense's j (one element).
  auto dag = Share(Dense(10, 12, 6, {.bias = true, .activation = Activation::kRelu}));
  absl::StatusOr<Program> p = LowerAndCheck(
      dag, "CHW 3 local; SP 6 0 10 [4]; CA 5 6 0; CA 4 5 0; CA 3 4 1; AN 6 2 vectorize",
      TestCpu());
  ASSERT_TRUE(p.ok()) << p.status();
  std::cout << p->ToString();
  const Buffer* bias_add = FindBuffer(*p, "bias_add");
  const Buffer* dense = FindBuffer(*p, "dense");
  const Buffer* local = FindBuffer(*p, "dense.local");
  ASSERT_TRUE(bias_add != nullptr && dense != nullptr && local != nullptr);
  EXPECT_EQ(bias_add->shape, (std::vector<int64_t>{4, 6}));
  EXPECT_EQ(dense->shape, (std::vector<int64_t>{1, 6}));
  EXPECT_EQ(local->shape, (std::vector<int64_t>{1, 1}));
  EXPECT_TRUE(dense->attached);
  EXPECT_EQ(dense->role, BufferRole::kIntermediate);
}

TEST(LowerChain, ElementwiseProducersFollowedThroughInlinedStages) {
  // bias_add is inlined into relu; dense (read through the inlined stage)
  // is computed at relu's i.1 loop, so its region is what relu reads via
  // bias_add: one row of 6.
  auto dag = Share(Dense(10, 12, 6, {.bias = true, .activation = Activation::kRelu}));
  absl::StatusOr<Program> p =
      LowerAndCheck(dag, "CI 4; SP 5 0 10 [2]; CA 3 5 1; AN 5 0 parallel", TestCpu());
  ASSERT_TRUE(p.ok()) << p.status();
  std::cout << p->ToString();
  const Buffer* dense = FindBuffer(*p, "dense");
  ASSERT_NE(dense, nullptr);
  EXPECT_EQ(dense->shape, (std::vector<int64_t>{1, 6}));
  EXPECT_EQ(FindBuffer(*p, "bias_add"), nullptr);
}

TEST(LowerChain, GpuTilingWithFusionIntoTheElementwiseConsumer) {
  // Ansor's GPU sketch for dense + relu: dense tiled SSSRRSRS and computed
  // at relu's thread level with no cache stage; its unscoped buffer becomes
  // local (TVM's default inside threadIdx). Stages: A, W, dense, relu.
  auto dag = Share(Dense(33, 16, 20, {.activation = Activation::kRelu}));
  const std::string steps =
      "SP 2 0 33 [1,4,2,2]; SP 2 5 20 [2,2,1,1]; SP 2 10 16 [2,2]; "
      "RE 2 [0,5,1,6,2,7,10,11,3,8,12,4,9]; FSP 3 0 0 3; FSP 3 4 1 3; "
      "RE 3 [0,4,1,5,2,6,3,7]; CA 2 3 5; FU 3 [0,1]; AN 3 0 blockIdx.x; FU 3 [1,2]; "
      "AN 3 1 vthread; FU 3 [2,3]; AN 3 2 threadIdx.x";
  absl::StatusOr<Program> p = LowerAndCheck(dag, steps, TestGpu());
  ASSERT_TRUE(p.ok()) << p.status();
  std::cout << p->ToString();
  const Buffer* dense = FindBuffer(*p, "dense");
  ASSERT_NE(dense, nullptr);
  EXPECT_EQ(dense->scope, MemScope::kLocal);
  EXPECT_EQ(dense->shape, (std::vector<int64_t>{4, 1}));
  EXPECT_EQ(p->kernels[0].block[0], 8);
}

}  // namespace
}  // namespace pruner
