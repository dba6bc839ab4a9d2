// The program IR: its printed form (golden) and the helpers analyses use.
#include <string>

#include "common/ir/ops.h"
#include "common/lower/lower.h"
#include "gtest/gtest.h"
#include "tests/lower/lower_test_util.h"

namespace pruner {
namespace {

using testing::ReplayText;
using testing::Share;
using testing::TestCpu;

TEST(Program, PrintsReadablePseudoCode) {
  auto dag = Share(Matmul(6, 4, 8));
  // C.local computed inside C's j.0 loop: a 1 x 4 tile whose reduction
  // init sits just outside the k loop.
  absl::StatusOr<State> s = ReplayText(
      dag, "CHW 2 local; SP 3 1 8 [4]; CA 2 3 1; AN 3 0 parallel; AN 3 2 vectorize; "
           "PR 2 0 auto_unroll_max_step$16");
  ASSERT_TRUE(s.ok()) << s.status();
  absl::StatusOr<Program> p = Lower(*s, TestCpu());
  ASSERT_TRUE(p.ok()) << p.status();
  EXPECT_EQ(p->ToString(),
            "program target=cpu\n"
            "buffer A: global float32[6, 4] input\n"
            "buffer B: global float32[4, 8] input\n"
            "buffer matmul.local: local float32[1, 4] intermediate "
            "region_min=[matmul.i, (j.0 * 4)]\n"
            "buffer matmul: global float32[6, 8] output\n"
            "kernel main\n"
            "  parallel matmul.i in 0..6:\n"
            "    for j.0 in 0..2:\n"
            "      allocate matmul.local: local float32[1, 4]\n"
            "        for j in 0..4:  // auto_unroll_max_step=16\n"
            "          matmul.local[0, j] = 0.0f\n"
            "          for k in 0..4:\n"
            "            matmul.local[0, j] = (matmul.local[0, j] + (A[matmul.i, k] * "
            "B[k, (j + (j.0 * 4))]))\n"
            "        vectorized j.1 in 0..4:\n"
            "          matmul[matmul.i, ((j.0 * 4) + j.1)] = matmul.local[0, j.1]\n");
}

TEST(Program, GlobalCoordinatesAddTheRegionMinimum) {
  auto dag = Share(Matmul(6, 4, 8));
  absl::StatusOr<State> s = ReplayText(dag, "CHW 2 local; SP 3 1 8 [4]; CA 2 3 2");
  ASSERT_TRUE(s.ok()) << s.status();
  absl::StatusOr<Program> p = Lower(*s, TestCpu());
  ASSERT_TRUE(p.ok()) << p.status();
  const Buffer& local = p->buffer(2);
  ASSERT_EQ(local.name, "matmul.local");
  EXPECT_EQ(local.shape, (std::vector<int64_t>{1, 1}));
  std::vector<Expr> global = GlobalCoordinates(local, {IntImm(0), IntImm(0)});
  ASSERT_EQ(global.size(), 2u);
  EXPECT_EQ(ToString(global[0]), "matmul.i");
  EXPECT_EQ(ToString(global[1]), "((j.0 * 4) + j.1)");
  EXPECT_EQ(p->kernels[0].stages, (std::vector<int>{3, 2}));
}

}  // namespace
}  // namespace pruner
