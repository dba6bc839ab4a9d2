// GPU-style schedules lowered, checked for their launch configuration and
// structure, and run in the interpreter against the reference executor.
#include <iostream>
#include <string>

#include "absl/strings/str_cat.h"
#include "common/ir/ops.h"
#include "common/lower/lower.h"
#include "gtest/gtest.h"
#include "tests/lower/lower_test_util.h"

namespace pruner {
namespace {

using testing::CountLoops;
using testing::CountStmts;
using testing::GpuMatmulSteps;
using testing::LowerAndCheck;
using testing::Share;
using testing::TestGpu;

TEST(LowerGpu, SharedMemoryMatmulMatchesReference) {
  auto dag = Share(Matmul(64, 32, 64));
  absl::StatusOr<Program> p = LowerAndCheck(
      dag, GpuMatmulSteps(64, 32, 64, "[2,4,2,2]", "[2,8,1,2]", "[4,2]", 2), TestGpu());
  ASSERT_TRUE(p.ok()) << p.status();
  std::cout << p->ToString();
}

TEST(LowerGpu, NonDivisibleSharedMemoryMatmulMatchesReference) {
  auto dag = Share(Matmul(65, 17, 33));
  absl::StatusOr<Program> p = LowerAndCheck(
      dag, GpuMatmulSteps(65, 17, 33, "[2,4,2,2]", "[2,8,1,2]", "[4,2]", 2), TestGpu());
  ASSERT_TRUE(p.ok()) << p.status();
  std::cout << p->ToString();
}

TEST(LowerGpu, Conv2dWithPaddingInlinedIntoSharedStage) {
  // Stages: X, W, pad, conv2d. conv2d.local is tiled (ff: 2 x 2 x 2 x 1,
  // yy: 1 x 1 x 7 x 1, rc: 2 x 2) and computed at conv2d's thread level;
  // the padded input and the weights are cached in shared memory at rc.0,
  // and the padding stage is inlined into its shared cache.
  Conv2dParams c;
  c.in_channels = 4;
  c.height = 7;
  c.width = 7;
  c.out_channels = 8;
  c.kernel_h = 3;
  c.kernel_w = 3;
  c.pad_h = 1;
  c.pad_w = 1;
  auto dag = Share(Conv2d(c));
  const std::string steps =
      "CHW 3 local; SP 3 1 8 [2,2,1]; SP 3 5 7 [1,7,1]; SP 3 10 4 [2]; "
      "RE 3 [0,1,5,2,6,3,7,10,12,4,8,9,11,13]; "
      "FSP 4 1 1 3; FSP 4 5 2 3; RE 4 [0,1,5,2,6,3,7,4,8,9]; CA 3 4 6; "
      "CHR 2 shared [3]; CA 3 4 7; CI 2; CHR 1 shared [4]; CA 2 5 7; "
      "FU 6 [0,1,2]; AN 6 0 blockIdx.x; FU 6 [1,2]; AN 6 1 vthread; FU 6 [2,3]; "
      "AN 6 2 threadIdx.x; "
      "FU 4 [0,1,2,3]; SP 4 0 0 [1]; FFSP 4 0 [1,2] 1 1; AN 4 1 threadIdx.x; "
      "FU 2 [0,1,2,3]; SP 2 0 0 [1]; FFSP 2 0 [1,2] 1 1; AN 2 1 threadIdx.x";
  absl::StatusOr<Program> p = LowerAndCheck(dag, steps, TestGpu());
  ASSERT_TRUE(p.ok()) << p.status();
  std::cout << p->ToString();
  ASSERT_EQ(p->kernels.size(), 1u);
  EXPECT_EQ(p->kernels[0].block[0], 14);  // ff 2 x yy 7 threads
  EXPECT_EQ(p->kernels[0].grid[0], 2);
  for (const Buffer& b : p->buffers) {
    if (b.name == "pad.shared") {
      // One block's 2 output channels x 7 rows need 2 input channels (rc.0
      // fixed) x (7 + 3 - 1) padded rows x (7 + 3 - 1) padded columns.
      EXPECT_EQ(b.shape, (std::vector<int64_t>{1, 2, 9, 9}));
      EXPECT_EQ(b.scope, MemScope::kShared);
    }
  }
}

}  // namespace
}  // namespace pruner
