// window_seeds.h: complete schedules of depthwise convolutions (and other
// window reductions with a padding producer) that lower and compute what the
// reference does, with the shape the header promises; none for other tasks
// or for GPUs.
#include "common/sketch/window_seeds.h"

#include <string>
#include <vector>

#include "absl/strings/match.h"
#include "common/sketch/sketch.h"
#include "gtest/gtest.h"
#include "tests/sketch/seed_check.h"
#include "tests/sketch/test_support.h"

namespace pruner::testing {
namespace {

std::vector<State> SeedsOf(const std::string& spec, const DeviceProfile& device) {
  return WindowReductionSeeds(SketchesOf(spec, device), device);
}

TEST(WindowSeeds, DepthwiseConvolutionsGetBandedRegisterTiledSchedules) {
  const DeviceProfile cpu = TestCpu();  // AVX2: 8 floats a vector
  for (const std::string spec :
       {"depthwise_conv2d:C=48,H=28,W=28,R=3,S=3,pad=1,bias=1,act=relu,layout=nhwc",
        "depthwise_conv2d:C=24,H=14,W=14,R=3,S=3,stride=2,pad=1,bias=1,act=relu,layout=nhwc"}) {
    SCOPED_TRACE(spec);
    const std::vector<State> seeds = SeedsOf(spec, cpu);
    // Two row-band heights that divide the output rows (28: 7 and 4; 7: 7).
    ASSERT_FALSE(seeds.empty());
    EXPECT_LE(seeds.size(), 2u);
    for (const State& seed : seeds) {
      const std::string s = seed.ToSentence();
      // The 3 x 3 window whole inside, the register tile's channels one
      // AVX2 vector, the unrolled tile, the consumer's outer tile parallel.
      EXPECT_TRUE(absl::StrContains(s, "SP 4 16 3 [3]; SP 4 18 3 [3]")) << s;
      EXPECT_TRUE(absl::StrContains(s, ",1,8]; SP 4 16")) << s;
      EXPECT_TRUE(absl::StrContains(s, "PR 4 0 auto_unroll_max_step$512")) << s;
      EXPECT_TRUE(absl::StrContains(s, "AN 6 0 parallel")) << s;
      // The padding copied per band: at the consumer's outermost tile loop.
      EXPECT_TRUE(absl::StrContains(s, "CA 3 6 3")) << s;
    }
    ExpectSeedsCompute(spec, seeds, cpu);
  }
}

TEST(WindowSeeds, NoneWhereTheShapeDoesNotApply) {
  // A convolution reduces over its input channels too; a dense layer has no
  // window; an unpadded depthwise convolution has no padding to copy.
  for (const std::string spec :
       {"conv2d:N=1,C=16,H=14,W=14,K=16,R=3,S=3,pad=1,layout=nhwc", "dense:M=16,K=32,N=16",
        "depthwise_conv2d:C=16,H=14,W=14,R=3,S=3,layout=nhwc"}) {
    EXPECT_TRUE(SeedsOf(spec, TestCpu()).empty()) << spec;
  }
  EXPECT_TRUE(
      SeedsOf("depthwise_conv2d:C=48,H=28,W=28,R=3,S=3,pad=1,bias=1,act=relu,layout=nhwc",
              TestGpu())
          .empty());
}

}  // namespace
}  // namespace pruner::testing
