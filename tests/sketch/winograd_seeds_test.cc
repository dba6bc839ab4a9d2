// winograd_seeds.h: complete schedules of Winograd convolutions in which one
// parallel loop computes, per block of the output, every stage the block
// needs; they lower and compute what the reference does. None for other
// tasks or for GPUs.
#include "common/sketch/winograd_seeds.h"

#include <string>
#include <vector>

#include "absl/strings/match.h"
#include "common/sketch/seed_schedules.h"
#include "common/sketch/sketch.h"
#include "gtest/gtest.h"
#include "tests/sketch/seed_check.h"
#include "tests/sketch/test_support.h"

namespace pruner::testing {
namespace {

std::vector<State> SeedsOf(const std::string& spec, const DeviceProfile& device) {
  return WinogradSeeds(SketchesOf(spec, device), device);
}

// An AVX-512 machine: 16 floats a vector, 32 vector registers.
DeviceProfile Avx512Cpu() {
  DeviceProfile cpu = TestCpu();
  cpu.vector_unit_bytes = 64;
  cpu.vector_isa = "avx512f";
  return cpu;
}

// Stages of conv2d_winograd with bias and activation: 0 X, 1 U, 2 bias,
// 3 pad, 4 data_pack, 5 bgemm, 6 inverse, 7 the output gather, 8 bias_add,
// 9 relu.
TEST(WinogradSeeds, RowBlocksComputeEveryStagePerRowOfTiles) {
  // F(4x4, 3x3), 16x16 output: 4 rows of 4 tiles; 32 channels is one block
  // of channels, so only the row-block shape applies.
  const std::string spec = "conv2d_winograd:C=16,H=16,W=16,K=32,bias=1,act=relu,tile=4";
  for (const DeviceProfile& cpu : {TestCpu(), Avx512Cpu()}) {
    SCOPED_TRACE(cpu.vector_isa);
    const std::vector<State> seeds = SeedsOf(spec, cpu);
    ASSERT_EQ(seeds.size(), 1u);
    const std::string s = seeds[0].ToSentence();
    // The output gather inlined into the activation, whose rows go in
    // blocks of one tile (4 rows), every channel inside.
    EXPECT_TRUE(absl::StrContains(s, "CI 7")) << s;
    EXPECT_TRUE(absl::StrContains(s, "SP 9 1 16 [4]")) << s;
    EXPECT_TRUE(absl::StrContains(s, "FU 9 [0,1,2]; AN 9 0 parallel")) << s;
    // Every stage computed at that one parallel loop.
    for (const char* at : {"CA 6 9 0", "CA 5 9 0", "CA 4 9 0", "CA 3 9 0"}) {
      EXPECT_TRUE(absl::StrContains(s, at)) << at << " in " << s;
    }
    EXPECT_EQ(CountOf(s, "parallel"), 1) << s;
    // The product's register tile: 4 tiles (a row) by one or two vectors.
    const std::string lanes = cpu.vector_unit_bytes == 64 ? "16" : "8";
    EXPECT_TRUE(absl::StrContains(s, "SP 5 8 16 [1,4,1]")) << s;
    EXPECT_TRUE(absl::StrContains(s, "," + lanes + "]; SP 5 16 16 [1]")) << s;
    ExpectSeedsCompute(spec, seeds, cpu);
  }
}

TEST(WinogradSeeds, ChannelBlocksRecomputeTheInputTransformPerBlock) {
  // F(2x2, 3x3) on a 6x6 output (9 tiles) with 128 output channels: two
  // blocks of 64. Its 3 rows of tiles and small packed weight also give
  // the row-block seed, which comes first, and the product-block seed.
  const std::string spec = "conv2d_winograd:C=8,H=6,W=6,K=128,bias=1,act=relu,tile=2";
  const DeviceProfile cpu = Avx512Cpu();
  const std::vector<State> seeds = SeedsOf(spec, cpu);
  ASSERT_EQ(seeds.size(), 3u);
  const std::string rows = seeds[0].ToSentence();
  EXPECT_TRUE(absl::StrContains(rows, "SP 9 1 6 [2]")) << rows;
  EXPECT_TRUE(absl::StrContains(seeds[1].ToSentence(), "CHW 5 local"));
  const std::string blocks = seeds[2].ToSentence();
  // Channels in blocks of 64 (4 vectors of 16), outermost and parallel.
  EXPECT_TRUE(absl::StrContains(blocks, "SP 9 3 128 [4,16]; RE 9 [3,0,1,2,4,5]; AN 9 0 parallel"))
      << blocks;
  for (const char* at : {"CA 6 9 0", "CA 5 9 0", "CA 4 9 0", "CA 3 9 0"}) {
    EXPECT_TRUE(absl::StrContains(blocks, at)) << at << " in " << blocks;
  }
  EXPECT_EQ(CountOf(blocks, "parallel"), 1) << blocks;
  ExpectSeedsCompute(spec, seeds, cpu);
}

TEST(WinogradSeeds, RowBlocksOnlyWhereRereadingTheWeightIsCheap) {
  // 16 tile rows x a 16 x 16 x 256 x 256 packed weight (4 MiB each time)
  // is over kWinogradRowBlockWeightBytes: channel blocks only.
  const std::string spec = "conv2d_winograd:C=256,H=32,W=32,K=256,bias=1,act=relu,tile=2";
  const std::vector<State> seeds = SeedsOf(spec, Avx512Cpu());
  ASSERT_EQ(seeds.size(), 2u);  // product blocks, then channel blocks
  EXPECT_TRUE(absl::StrContains(seeds[0].ToSentence(), "CHW 5 local"));
  EXPECT_TRUE(absl::StrContains(seeds[1].ToSentence(), "RE 9 [3,0,1,2,4,5]"));
  for (const State& seed : seeds) {
    EXPECT_FALSE(absl::StrContains(seed.ToSentence(), "SP 9 1 32 [2]")) << seed.ToSentence();
  }
}

// The same stages with the product's cache stage inserted at 5: 5
// bgemm.local, 6 bgemm, 7 inverse, 8 the gather, 10 relu.
TEST(WinogradSeeds, ProductBlocksSplitTheProductByTransformPositionAndChannels) {
  // 7x7 output as F(2x2, 3x3): 16 tiles, an odd row count (no row blocks).
  const std::string spec = "conv2d_winograd:C=16,H=7,W=7,K=128,bias=1,act=relu,tile=2";
  for (const DeviceProfile& cpu : {TestCpu(), Avx512Cpu()}) {
    SCOPED_TRACE(cpu.vector_isa);
    const std::vector<State> seeds = SeedsOf(spec, cpu);
    ASSERT_EQ(seeds.size(), 2u);
    const std::string s = seeds[0].ToSentence();
    EXPECT_TRUE(absl::StrContains(s, "CHW 5 local")) << s;
    // The product's parallel loop: the 4 x 4 transform positions, every
    // tile, and blocks of 64 channels; one vector of channels by all 16
    // tiles in the register tile (AVX-512), or 8 (AVX2's 16 registers).
    EXPECT_TRUE(absl::StrContains(s, "FU 6 [0,1,2,3]; AN 6 0 parallel")) << s;
    const bool avx512 = cpu.vector_unit_bytes == 64;
    EXPECT_TRUE(absl::StrContains(s, avx512 ? "SP 5 8 16 [1,16,1]" : "SP 5 8 16 [1,8,1]")) << s;
    EXPECT_TRUE(absl::StrContains(s, avx512 ? "SP 5 12 128 [4,1,16]" : "SP 5 12 128 [8,1,8]"))
        << s;
    // The gather inlined into the activation; every other stage parallel.
    EXPECT_TRUE(absl::StrContains(s, "CI 8; CA 3 4 2")) << s;
    EXPECT_EQ(CountOf(s, "parallel"), 4) << s;
    ExpectSeedsCompute(spec, seeds, cpu);
  }
}

TEST(WinogradSeeds, WithoutBiasTheOutputGatherIsTheBlockedStage) {
  // No element-wise consumer: the gather itself (stage 6) is blocked.
  const std::string spec = "conv2d_winograd:C=8,H=8,W=8,K=16,tile=2";
  const DeviceProfile cpu = TestCpu();
  const std::vector<State> seeds = SeedsOf(spec, cpu);
  ASSERT_EQ(seeds.size(), 1u);
  const std::string s = seeds[0].ToSentence();
  EXPECT_FALSE(absl::StrContains(s, "CI 6")) << s;
  EXPECT_TRUE(absl::StrContains(s, "CA 5 6 0")) << s;
  ExpectSeedsCompute(spec, seeds, cpu);
}

TEST(WinogradSeeds, NoneForOtherTasksOrGpus) {
  for (const std::string spec :
       {"conv2d:N=1,C=16,H=14,W=14,K=16,R=3,S=3,pad=1,layout=nhwc", "dense:M=16,K=32,N=16",
        "depthwise_conv2d:C=16,H=14,W=14,R=3,S=3,pad=1,bias=1,act=relu,layout=nhwc"}) {
    EXPECT_TRUE(SeedsOf(spec, TestCpu()).empty()) << spec;
  }
  EXPECT_TRUE(
      SeedsOf("conv2d_winograd:C=16,H=16,W=16,K=32,bias=1,act=relu,tile=4", TestGpu()).empty());
}

TEST(SeedSchedules, OffersTheWindowAndTheWinogradSeeds) {
  const DeviceProfile cpu = TestCpu();
  const std::string depthwise =
      "depthwise_conv2d:C=48,H=28,W=28,R=3,S=3,pad=1,bias=1,act=relu,layout=nhwc";
  EXPECT_FALSE(SeedSchedules(SketchesOf(depthwise, cpu), cpu).empty());
  const std::string winograd = "conv2d_winograd:C=16,H=16,W=16,K=32,bias=1,act=relu,tile=4";
  EXPECT_EQ(SeedSchedules(SketchesOf(winograd, cpu), cpu).size(), 1u);
}

}  // namespace
}  // namespace pruner::testing
