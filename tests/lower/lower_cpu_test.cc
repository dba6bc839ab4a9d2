// CPU-style schedules lowered and run against the reference executor.
#include <iostream>
#include <string>

#include "common/ir/ops.h"
#include "common/lower/lower.h"
#include "gtest/gtest.h"
#include "tests/lower/lower_test_util.h"

namespace pruner {
namespace {

using testing::CountLoops;
using testing::CpuMatmulSteps;
using testing::CountStmts;
using testing::LowerAndCheck;
using testing::Share;
using testing::TestCpu;


TEST(LowerCpu, TiledMatmulWithCacheWriteMatchesReference) {
  auto dag = Share(Matmul(64, 64, 64));
  absl::StatusOr<Program> p = LowerAndCheck(dag, CpuMatmulSteps(64, 64, 64), TestCpu());
  ASSERT_TRUE(p.ok()) << p.status();
  std::cout << p->ToString();
}

TEST(LowerCpu, NonDivisibleTiledMatmulIsGuarded) {
  // 65 x 17 x 33 with tiles chosen for 64: every split leaves a tail.
  auto dag = Share(Matmul(65, 17, 33));
  absl::StatusOr<Program> p = LowerAndCheck(dag, CpuMatmulSteps(65, 17, 33), TestCpu());
  ASSERT_TRUE(p.ok()) << p.status();
  std::cout << p->ToString();
  EXPECT_GT(CountStmts(*p, StmtKind::kIfThenElse), 0);
}

Conv2dParams SmallConv() {
  Conv2dParams c;
  c.batch = 1;
  c.in_channels = 4;
  c.height = 7;
  c.width = 7;
  c.out_channels = 8;
  c.kernel_h = 3;
  c.kernel_w = 3;
  c.pad_h = 1;
  c.pad_w = 1;
  return c;
}

TEST(LowerCpu, Conv2dWithInlinedPaddingMatchesReference) {
  // Stages: X, W, pad, conv2d. The padding select is inlined into the conv
  // (whose output rows are split 7 = 2 x 4 with a tail), the conv computes
  // through a local cache attached at its outer channel tile.
  auto dag = Share(Conv2d(SmallConv()));
  const std::string steps =
      "CI 2; CHW 3 local; SP 3 1 8 [2,2]; SP 3 4 7 [4]; SP 3 7 4 [2]; "
      "RE 3 [0,1,4,2,7,9,5,8,10,3,6]; SP 4 1 8 [4]; CA 3 4 1; AN 4 1 parallel; "
      "AN 4 4 vectorize";
  absl::StatusOr<Program> p = LowerAndCheck(dag, steps, TestCpu());
  ASSERT_TRUE(p.ok()) << p.status();
  std::cout << p->ToString();
  // The padding stage has no buffer: its select reads X directly.
  for (const Buffer& b : p->buffers) EXPECT_NE(b.name, "pad");
}

}  // namespace
}  // namespace pruner
