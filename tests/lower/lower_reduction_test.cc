// Reductions: rfactor, multi-stage softmax with attached reductions (CPU and
// GPU), max reductions.
#include <iostream>
#include <memory>
#include <string>

#include "common/ir/ops.h"
#include "common/lower/lower.h"
#include "gtest/gtest.h"
#include "tests/lower/lower_test_util.h"

namespace pruner {
namespace {

using testing::CountStmts;
using testing::LowerAndCheck;
using testing::Share;
using testing::TestCpu;
using testing::TestGpu;

// S[i] = sum_k A[i, k]: a pure reduction.
std::shared_ptr<const ComputeDag> RowSum(int64_t m, int64_t k) {
  auto a = std::make_shared<Op>();
  a->id = 0;
  a->name = "A";
  a->kind = OpKind::kPlaceholder;
  a->shape = {m, k};
  auto s = std::make_shared<Op>();
  s->id = 1;
  s->name = "S";
  s->kind = OpKind::kCompute;
  s->shape = {m};
  s->axes = {{"i", m}};
  s->reduce_axes = {{"k", k}};
  s->reduce = ReduceKind::kSum;
  s->body = Read(0, "A", DType::kFloat32, {Var(0, "i"), Var(1, "k")});
  return Share(ComputeDag::Create({a, s}));
}

TEST(LowerReduction, RfactorOnTheInnerPartVectorizesTheFactoredAxis) {
  // k = 30 split by 8 (with a tail); the inner part is factored out into
  // S.rf[i, k.1] = sum_{k.0} A[i, k.0 * 8 + k.1], then S[i] = sum_{k.1} S.rf.
  auto dag = RowSum(5, 30);
  absl::StatusOr<Program> p =
      LowerAndCheck(dag, "SP 1 1 30 [8]; RF 1 2 1; RE 1 [0,2,1]; AN 1 2 vectorize", TestCpu());
  ASSERT_TRUE(p.ok()) << p.status();
  std::cout << p->ToString();
  ASSERT_EQ(p->buffers.size(), 3u);
  EXPECT_EQ(p->buffers[1].name, "S.rf");
  EXPECT_EQ(p->buffers[1].shape, (std::vector<int64_t>{5, 8}));
}

TEST(LowerReduction, RfactorOnTheOuterPartComputedAtTheConsumer) {
  auto dag = RowSum(6, 64);
  absl::StatusOr<Program> p = LowerAndCheck(
      dag, "SP 1 1 64 [16]; RF 1 1 1; CA 1 2 0; AN 2 0 parallel", TestCpu());
  ASSERT_TRUE(p.ok()) << p.status();
  std::cout << p->ToString();
  // Attached at S's i loop, the rfactor stage holds one row of partial sums.
  EXPECT_EQ(p->buffers[1].shape, (std::vector<int64_t>{1, 4}));
}

// Softmax stages: X, max_elem, exp, exp_sum, softmax.
TEST(LowerReduction, SoftmaxOnCpuWithInlinedExpAndAttachedReductions) {
  auto dag = Share(Softmax(6, 37));
  absl::StatusOr<Program> p = LowerAndCheck(
      dag, "CI 2; CA 1 4 0; CA 3 4 0; SP 4 1 37 [8]; AN 4 2 vectorize; AN 4 0 parallel",
      TestCpu());
  ASSERT_TRUE(p.ok()) << p.status();
  std::cout << p->ToString();
}

TEST(LowerReduction, SoftmaxOnGpuAsThreeKernels) {
  // exp inlined; each row reduction is its own kernel with one block per
  // row; the normalization binds columns to threads with a tail
  // (37 = 5 x 8 - 3).
  auto dag = Share(Softmax(6, 37));
  absl::StatusOr<Program> p = LowerAndCheck(
      dag,
      "CI 2; AN 1 0 blockIdx.x; AN 3 0 blockIdx.x; SP 4 1 37 [8]; AN 4 0 blockIdx.x; "
      "AN 4 2 threadIdx.x",
      TestGpu());
  ASSERT_TRUE(p.ok()) << p.status();
  std::cout << p->ToString();
  ASSERT_EQ(p->kernels.size(), 3u);
  EXPECT_EQ(p->kernels[0].name, "max_elem");
  EXPECT_EQ(p->kernels[2].block[0], 8);
  EXPECT_EQ(p->kernels[2].grid[0], 6);
}

TEST(LowerReduction, RedundantSharedReductionInAThreadedKernelIsRejected) {
  // Both row reductions attached at the block loop, outside the threadIdx
  // loop: every thread would accumulate into the same shared element.
  auto dag = Share(Softmax(6, 37));
  absl::StatusOr<State> state = testing::ReplayText(
      dag, "CI 2; CA 1 4 0; CA 3 4 0; SP 4 1 37 [8]; AN 4 0 blockIdx.x; AN 4 2 threadIdx.x");
  ASSERT_TRUE(state.ok()) << state.status();
  absl::StatusOr<Program> p = Lower(*state, TestGpu());
  ASSERT_FALSE(p.ok());
  EXPECT_EQ(p.status().code(), absl::StatusCode::kInvalidArgument);
  EXPECT_NE(p.status().message().find("stage max_elem"), std::string::npos) << p.status();
  EXPECT_NE(p.status().message().find("threads of a block would update the same elements"),
            std::string::npos)
      << p.status();
}

TEST(LowerReduction, MaxPoolingOnGpu) {
  Pool2dParams pool;
  pool.channels = 3;
  pool.height = 9;
  pool.width = 9;
  pool.kernel_h = 3;
  pool.kernel_w = 3;
  pool.stride_h = 2;
  pool.stride_w = 2;
  pool.pad_h = 1;
  pool.pad_w = 1;
  auto dag = Share(Pool2d(pool));
  ASSERT_NE(dag, nullptr);
  std::cout << dag->ToString() << "\n";
  // Pad (stage 1) inlined; the pool stage's spatial loops fused and split
  // over blocks and threads.
  absl::StatusOr<Program> p = LowerAndCheck(
      dag, "CI 1; FU 2 [0,1,2,3]; SP 2 0 75 [32]; AN 2 0 blockIdx.x; AN 2 1 threadIdx.x",
      TestGpu());
  ASSERT_TRUE(p.ok()) << p.status();
  std::cout << p->ToString();
}

}  // namespace
}  // namespace pruner
