// matmul_seeds.h: complete schedules of matrix products (dense layers,
// batched products, 1x1 convolutions) with a register tile of a few rows
// by one vector and the whole reduction inside, one parallel loop outside;
// they lower and compute what the reference does. None for window
// reductions, Winograd convolutions or GPUs.
#include "common/sketch/matmul_seeds.h"

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
  return MatmulSeeds(SketchesOf(spec, device), device);
}

// An AVX-512 machine of two cores: 16 floats a vector, 1 MiB of L2.
DeviceProfile TwoCoreAvx512Cpu() {
  DeviceProfile cpu = TestCpu();
  cpu.num_cores = 2;
  cpu.vector_unit_bytes = 64;
  cpu.vector_isa = "avx512f";
  cpu.l2_cache_bytes = int64_t{1} << 20;
  return cpu;
}

// Stages of a 1x1 NHWC convolution with bias and ReLU: 0 X, 1 W, 2 bias,
// 3 the convolution, 4 bias_add (inlined), 5 relu.
TEST(MatmulSeeds, PointwiseConvolutionTilesColumnsByOneVector) {
  const std::string spec = "conv2d:C=32,H=14,W=14,K=64,R=1,S=1,bias=1,act=relu,layout=nhwc";
  const DeviceProfile cpu = TwoCoreAvx512Cpu();
  const std::vector<State> seeds = SeedsOf(spec, cpu);
  ASSERT_FALSE(seeds.empty());
  for (const State& seed : seeds) {
    const std::string s = seed.ToSentence();
    // 7 columns by one 16-float vector of output channels, the whole
    // reduction (32 input channels) inside; the columns' other half and
    // the channels' blocks outside the tile.
    EXPECT_TRUE(absl::StrContains(s, "SP 3 8 14 [2,1,7]")) << s;
    EXPECT_TRUE(absl::StrContains(s, "SP 3 12 64 [1,1,16]")) << s;
    EXPECT_TRUE(absl::StrContains(s, "SP 3 16 32 [32]")) << s;
    // The activation follows the tile and owns the one parallel loop.
    EXPECT_TRUE(absl::StrContains(s, "FU 5 [0,1,2,3]; AN 5 0 parallel")) << s;
    EXPECT_EQ(CountOf(s, "parallel"), 1) << s;
  }
  // Bands of rows: all 14 rows' input (14 x 14 x 32 floats, 25 KB) fits in
  // L2, but 4 blocks of channels would leave 2 cores too few iterations;
  // 7 rows give 8, and the second seed halves the band again.
  EXPECT_TRUE(absl::StrContains(seeds[0].ToSentence(), "SP 3 4 14 [7,1,1]"))
      << seeds[0].ToSentence();
  ASSERT_EQ(seeds.size(), 2u);
  EXPECT_TRUE(absl::StrContains(seeds[1].ToSentence(), "SP 3 4 14 [2,1,1]"))
      << seeds[1].ToSentence();
  ExpectSeedsCompute(spec, seeds, cpu);
}

TEST(MatmulSeeds, WithoutConsumerTheProductOwnsTheParallelLoop) {
  const std::string spec = "conv2d:C=24,H=8,W=12,K=40,R=1,S=1,layout=nhwc";
  for (const DeviceProfile& cpu : {TestCpu(), TwoCoreAvx512Cpu()}) {
    SCOPED_TRACE(cpu.vector_isa);
    const std::vector<State> seeds = SeedsOf(spec, cpu);
    ASSERT_FALSE(seeds.empty());
    const std::string s = seeds[0].ToSentence();
    EXPECT_TRUE(absl::StrContains(s, "FU 2 [0,1,2,3]; AN 2 0 parallel")) << s;
    // 40 channels: vectors of 8 (a half or the whole AVX2 vector).
    EXPECT_TRUE(absl::StrContains(s, "SP 2 12 40 [1,1,8]")) << s;
    EXPECT_TRUE(absl::StrContains(s, "SP 2 8 12 [2,1,6]")) << s;
    ExpectSeedsCompute(spec, seeds, cpu);
  }
}

TEST(MatmulSeeds, DenseAndBatchedProducts) {
  const DeviceProfile cpu = TwoCoreAvx512Cpu();
  // A dense layer's rows are the tile's columns; one row (a batch of one)
  // gives a tile of one row by one vector.
  for (const std::string spec :
       {"dense:M=64,K=96,N=48,bias=1", "dense:M=1,K=200,N=40,bias=1,act=relu"}) {
    SCOPED_TRACE(spec);
    const std::vector<State> seeds = SeedsOf(spec, cpu);
    ASSERT_FALSE(seeds.empty());
    ExpectSeedsCompute(spec, seeds, cpu);
  }
  EXPECT_TRUE(absl::StrContains(SeedsOf("dense:M=64,K=96,N=48,bias=1", cpu)[0].ToSentence(),
                                "SP 3 0 64 [8,1,8]; SP 3 4 48 [1,1,16]; SP 3 8 96 [96]"));
  // Batches are the third-to-last axis: in bands, like an image's rows.
  const std::string batched = "batch_matmul:B=4,M=32,K=64,N=32";
  const std::vector<State> seeds = SeedsOf(batched, cpu);
  ASSERT_FALSE(seeds.empty());
  EXPECT_TRUE(absl::StrContains(seeds[0].ToSentence(), "SP 2 0 4 [1,1,1]; SP 2 4 32 [4,1,8]"))
      << seeds[0].ToSentence();
  ExpectSeedsCompute(batched, seeds, cpu);
}

TEST(MatmulSeeds, NoneForWindowReductionsWinogradOrGpus) {
  const DeviceProfile cpu = TwoCoreAvx512Cpu();
  for (const std::string spec :
       {"depthwise_conv2d:C=16,H=14,W=14,R=3,S=3,pad=1,bias=1,act=relu,layout=nhwc",
        "max_pool2d:C=16,H=14,W=14,kernel=3,stride=2,pad=1",
        "conv2d_winograd:C=16,H=16,W=16,K=32,bias=1,act=relu,tile=4",
        // A padded 3x3 convolution: its padding stage stays a stage of its
        // own, which the shape has no place for.
        "conv2d:C=16,H=14,W=14,K=32,R=3,S=3,pad=1,layout=nhwc"}) {
    EXPECT_TRUE(SeedsOf(spec, cpu).empty()) << spec;
  }
  EXPECT_TRUE(SeedsOf("dense:M=64,K=96,N=48,bias=1", TestGpu()).empty());
}

TEST(SeedSchedules, OffersTheMatmulSeeds) {
  const DeviceProfile cpu = TwoCoreAvx512Cpu();
  const std::string spec = "dense:M=64,K=96,N=48,bias=1";
  const std::vector<Sketch> sketches = SketchesOf(spec, cpu);
  const std::vector<State> all = SeedSchedules(sketches, cpu);
  const std::vector<State> matmul = MatmulSeeds(sketches, cpu);
  ASSERT_FALSE(matmul.empty());
  ASSERT_EQ(all.size(), matmul.size());
  EXPECT_EQ(all[0].ToSentence(), matmul[0].ToSentence());
}

}  // namespace
}  // namespace pruner::testing
