// CheckKernelOutput: the measurement's correctness check scales its absolute
// tolerance with the output's rms, so reordered sums of a large-scale output
// pass near zero, while an error of one input product's size still fails.
#include "common/measure/measure_types.h"

#include <cmath>
#include <string>

#include "gmock/gmock.h"
#include "gtest/gtest.h"

namespace pruner {
namespace {

// 1000 outputs of alternating sign with an rms of 12, and one near zero.
Tensor LargeScaleOutput() {
  Tensor t = Tensor::Zeros({1001});
  for (int i = 0; i < 1000; ++i) t.data[i] = (i % 2 == 0 ? 12.0f : -12.0f);
  t.data[1000] = 0.004f;
  return t;
}

TEST(KernelOutputCheckTest, ToleranceGrowsWithTheOutputsRms) {
  const MeasureOptions options;  // rtol 1e-3, atol 1e-4
  const Tensor want = LargeScaleOutput();
  Tensor rounded = want;
  rounded.data[1000] += 5e-4f;  // within 1e-4 * rms 12, beyond a fixed atol
  EXPECT_FALSE(CheckAllClose(rounded, want, options.rtol, options.atol).ok());
  EXPECT_TRUE(CheckKernelOutput(rounded, want, options).ok());

  Tensor wrong = want;
  wrong.data[1000] += 0.01f;  // the smallest product of two check inputs
  const absl::Status status = CheckKernelOutput(wrong, want, options);
  EXPECT_FALSE(status.ok());
  EXPECT_THAT(std::string(status.message()), ::testing::HasSubstr("1 of 1001 elements differ"));
}

TEST(KernelOutputCheckTest, SmallOutputsKeepTheFixedTolerance) {
  const MeasureOptions options;
  Tensor want = Tensor::Zeros({4});
  want.data = {0.1f, -0.2f, 0.3f, 0.0f};
  Tensor got = want;
  got.data[3] = 2e-4f;  // rms below 1: atol stays 1e-4
  EXPECT_FALSE(CheckKernelOutput(got, want, options).ok());
  got.data[3] = 5e-5f;
  EXPECT_TRUE(CheckKernelOutput(got, want, options).ok());
}

}  // namespace
}  // namespace pruner
