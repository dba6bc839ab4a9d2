// TLP's step rows (../shared/specs/tlp.md §2): the spec's worked examples,
// every step kind's payload, the two platforms' one-hot tables, and the
// crop and pad of the matrix.
#include "common/features/tlp_features.h"

#include <cmath>
#include <vector>

#include "gmock/gmock.h"
#include "gtest/gtest.h"

namespace pruner {
namespace {

using ::testing::ElementsAreArray;

std::vector<float> OneHot(int slot, std::vector<float> payload) {
  std::vector<float> row(kTlpStepKinds, 0.0f);
  if (slot >= 0) row[slot] = 1;
  row.insert(row.end(), payload.begin(), payload.end());
  return row;
}

TEST(TlpFeaturesTest, TheSpecsWorkedExamplesOnTheCpuTable) {
  // ["SP", 2, 0, 1024, [32, 1, 4], 1] -> onehot(SP) 2 0 1024 32 1 4 1.
  EXPECT_THAT(TlpStepRow(SplitStep(2, 0, 1024, {32, 1, 4}), /*gpu=*/false),
              ElementsAreArray(OneHot(5, {2, 0, 1024, 32, 1, 4, 1})));
  // ["PR", 2, 0, "auto_unroll_max_step$64"] -> onehot(PR) 2 0 4 ($64 is token 4).
  EXPECT_THAT(TlpStepRow(AutoUnrollPragmaStep(2, 0, 64), false),
              ElementsAreArray(OneHot(10, {2, 0, 4})));
}

TEST(TlpFeaturesTest, EveryStepKindsPayload) {
  EXPECT_THAT(TlpStepRow(FollowSplitStep(3, 1, 4, 2), false),
              ElementsAreArray(OneHot(9, {3, 1, 4, 2})));
  EXPECT_THAT(TlpStepRow(ReorderStep(2, {0, 2, 1, 3}), false),
              ElementsAreArray(OneHot(1, {2, 0, 2, 1, 3})));
  EXPECT_THAT(TlpStepRow(FuseStep(3, {0, 1}), false), ElementsAreArray(OneHot(8, {3, 0, 1})));
  EXPECT_THAT(TlpStepRow(AnnotationStep(3, 0, IterAnnotation::kParallel), false),
              ElementsAreArray(OneHot(2, {3, 0, 3})));
  EXPECT_THAT(TlpStepRow(AnnotationStep(2, 9, IterAnnotation::kVectorize), false),
              ElementsAreArray(OneHot(2, {2, 9, 2})));
  EXPECT_THAT(TlpStepRow(ComputeAtStep(2, 3, 3), false), ElementsAreArray(OneHot(7, {2, 3, 3})));
  EXPECT_THAT(TlpStepRow(ComputeInlineStep(1), false), ElementsAreArray(OneHot(0, {1})));
  EXPECT_THAT(TlpStepRow(ComputeRootStep(1), false), ElementsAreArray(OneHot(6, {1})));
  EXPECT_THAT(TlpStepRow(CacheWriteStep(2, "local"), false), ElementsAreArray(OneHot(4, {2, 1})));
  EXPECT_THAT(TlpStepRow(RfactorStep(2, 1, 0), false), ElementsAreArray(OneHot(3, {2, 1, 0})));
  // GPU-only kinds: no slot on the CPU table (an all-zero one-hot), theirs on the GPU's.
  EXPECT_THAT(TlpStepRow(CacheReadStep(2, "shared", {4}), false),
              ElementsAreArray(OneHot(-1, {2, 1, 4})));
  EXPECT_THAT(TlpStepRow(CacheReadStep(2, "shared", {4}), true),
              ElementsAreArray(OneHot(1, {2, 1, 4})));
  EXPECT_THAT(TlpStepRow(FollowFusedSplitStep(5, 0, {1, 3}, 1, true), true),
              ElementsAreArray(OneHot(5, {5, 0, 1, 3, 1, 1})));
  // The GPU table orders kinds differently and has its own unroll tokens.
  EXPECT_THAT(TlpStepRow(AnnotationStep(3, 0, IterAnnotation::kBlockX), true),
              ElementsAreArray(OneHot(0, {3, 0, 5})));
  EXPECT_THAT(TlpStepRow(AutoUnrollPragmaStep(2, 0, 1024), true),
              ElementsAreArray(OneHot(9, {2, 0, 4})));
  EXPECT_THAT(TlpStepRow(AutoUnrollPragmaStep(2, 0, 1024), false),  // not in the CPU vocabulary
              ElementsAreArray(OneHot(10, {2, 0, 0})));
}

TEST(TlpFeaturesTest, RowsArePaddedAndCroppedToTheShape) {
  const TlpFeatureShape shape{3, 14};
  const std::vector<Step> steps = {ReorderStep(2, {0, 1, 2, 3, 4, 5}),  // 18 wide: cropped to 14
                                   ComputeInlineStep(1),                // 12 wide: padded
                                   ComputeRootStep(1), ComputeRootStep(2)};  // 4th step dropped
  const std::vector<float> m = TlpFeatures(steps, false, shape);
  ASSERT_EQ(m.size(), 3u * 14u);
  std::vector<float> first = OneHot(1, {2, 0, 1});
  EXPECT_THAT(std::vector<float>(m.begin(), m.begin() + 14), ElementsAreArray(first));
  std::vector<float> second = OneHot(0, {1, 0, 0});
  EXPECT_THAT(std::vector<float>(m.begin() + 14, m.begin() + 28), ElementsAreArray(second));
  // Fewer steps than rows: zero rows after them.
  const std::vector<float> short_m = TlpFeatures({ComputeInlineStep(1)}, false, shape);
  EXPECT_EQ(std::count(short_m.begin() + 14, short_m.end(), 0.0f), 28);
  EXPECT_EQ(TlpShapeFor(*GetDeviceProfile("a100")).rows, 40);
  EXPECT_EQ(TlpShapeFor(*GetDeviceProfile("a100")).columns, 20);
}

// The flagged experiment: the numbers after the one-hot on a log scale,
// the one-hot and the zero padding untouched.
TEST(TlpFeaturesTest, LogPayloadScalesOnlyTheNumbers) {
  const TlpFeatureShape shape{2, 18};
  std::vector<float> m = TlpFeatures({SplitStep(2, 0, 1024, {32, 1, 4})}, false, shape);
  TlpLogPayload(shape, m);
  std::vector<float> expected = OneHot(5, {std::log2(3.0f), 0, std::log2(1025.0f), std::log2(33.0f),
                                           1, std::log2(5.0f), 1});
  expected.resize(2 * 18, 0.0f);
  ASSERT_EQ(m.size(), expected.size());
  for (size_t i = 0; i < m.size(); ++i) EXPECT_NEAR(m[i], expected[i], 1e-6) << i;
}

}  // namespace
}  // namespace pruner
