// The §6.5 metric formulas on tiny hand-made data whose answers are worked
// out by hand in the comments: Top_k (Eq. 2), Best_k (Eq. 3), weights,
// clipping of S_spec to a workload's count, ties in the model's scores, the
// random draft, and Spearman's rho.
#include "bench/dataset/ranking_metrics.h"

#include <algorithm>
#include <cmath>
#include <limits>
#include <vector>

#include "gtest/gtest.h"

namespace pruner::dataset {
namespace {

constexpr double kInf = std::numeric_limits<double>::infinity();
constexpr double kNaN = std::numeric_limits<double>::quiet_NaN();

TEST(ExpectedKthBestOfTopTest, NoTiesIsALookup) {
  // By score: idx1 (1 ms), idx4 (5), idx2 (3), idx3 (2), idx0 (4).
  const std::vector<double> lat = {4, 1, 3, 2, 5};
  const std::vector<double> score = {0.1, 0.9, 0.5, 0.2, 0.8};
  EXPECT_DOUBLE_EQ(ExpectedKthBestOfTop(lat, score, 1, 1), 1);
  EXPECT_DOUBLE_EQ(ExpectedKthBestOfTop(lat, score, 2, 2), 5);  // {1, 5}
  EXPECT_DOUBLE_EQ(ExpectedKthBestOfTop(lat, score, 3, 2), 3);  // {1, 5, 3}
  EXPECT_DOUBLE_EQ(ExpectedKthBestOfTop(lat, score, 4, 3), 3);  // {1, 5, 3, 2}
  // take is clipped to the 5 schedules; fewer than k taken has no answer.
  EXPECT_DOUBLE_EQ(ExpectedKthBestOfTop(lat, score, 99, 5), 5);
  EXPECT_TRUE(std::isnan(ExpectedKthBestOfTop(lat, score, 2, 3)));
}

TEST(ExpectedKthBestOfTopTest, TiesAcrossTheCutAreAveragedExactly) {
  // Three schedules tie at the top; the 0.5 ms one scores lowest.
  const std::vector<double> lat = {3, 1, 2, 0.5};
  const std::vector<double> score = {0.5, 0.5, 0.5, 0.1};
  // Top-1: one of {3, 1, 2} uniformly: (3 + 1 + 2) / 3 = 2.
  EXPECT_DOUBLE_EQ(ExpectedKthBestOfTop(lat, score, 1, 1), 2);
  // Best of a random pair: (3,1)->1, (3,2)->2, (1,2)->1: 4/3.
  EXPECT_NEAR(ExpectedKthBestOfTop(lat, score, 2, 1), 4.0 / 3, 1e-12);
  // 2nd best of a random pair: 3, 3, 2: 8/3.
  EXPECT_NEAR(ExpectedKthBestOfTop(lat, score, 2, 2), 8.0 / 3, 1e-12);
  // The whole tie group fits: no chance left.
  EXPECT_DOUBLE_EQ(ExpectedKthBestOfTop(lat, score, 3, 1), 1);
  EXPECT_DOUBLE_EQ(ExpectedKthBestOfTop(lat, score, 4, 1), 0.5);

  // A fixed leader (0.5 ms) plus one of the tied three.
  const std::vector<double> led = {0.5, 0.5, 0.5, 0.9};
  EXPECT_DOUBLE_EQ(ExpectedKthBestOfTop(lat, led, 2, 1), 0.5);
  EXPECT_NEAR(ExpectedKthBestOfTop(lat, led, 2, 2), 2.0, 1e-12);  // (3 + 1 + 2) / 3
}

TEST(ExpectedKthBestOfTopTest, MatchesEnumerationOfEveryTieBreak) {
  // Fixed leaders {2, 9}, then 7 tied schedules; for every take and k the
  // closed form must equal the average over all subsets of the tie group.
  const std::vector<double> lat = {2, 9, 4, 1, 8, 6, 3, 5, 7};
  const std::vector<double> score = {5, 4, 1, 1, 1, 1, 1, 1, 1};
  const std::vector<double> tied = {4, 1, 8, 6, 3, 5, 7};
  for (int take = 1; take <= 9; ++take) {
    for (int k = 1; k <= take; ++k) {
      const int draw = take - 2;
      double sum = 0;
      int subsets = 0;
      for (int mask = 0; mask < (1 << 7); ++mask) {
        if (draw >= 0 && __builtin_popcount(mask) != draw) continue;
        if (draw < 0 && mask != 0) continue;
        std::vector<double> kept = {2, 9};
        if (draw < 0) kept.resize(take);
        for (int b = 0; b < 7; ++b) {
          if (mask >> b & 1) kept.push_back(tied[b]);
        }
        std::sort(kept.begin(), kept.end());
        sum += kept[k - 1];
        ++subsets;
      }
      EXPECT_NEAR(ExpectedKthBestOfTop(lat, score, take, k), sum / subsets, 1e-9)
          << "take " << take << " k " << k;
    }
  }
}

TEST(ExpectedKthBestOfTopTest, UnscorableSchedulesRankLastAndTie) {
  // -inf and NaN both mean "could not score": they tie below the 2 ms one.
  const std::vector<double> lat = {1, 2, 3};
  const std::vector<double> score = {-kInf, 1, kNaN};
  EXPECT_DOUBLE_EQ(ExpectedKthBestOfTop(lat, score, 1, 1), 2);
  // min(2, one of {1, 3}) = (1 + 2) / 2.
  EXPECT_DOUBLE_EQ(ExpectedKthBestOfTop(lat, score, 2, 1), 1.5);
}

// Two workloads. W1 (weight 2): the analyzer prefers slow schedules.
// W2 (weight 1): two schedules.
std::vector<ScoredWorkload> TwoWorkloads() {
  return {{2, {1, 2, 3, 4}, {0, 1, 2, 3}}, {1, {10, 20}, {5, 1}}};
}

TEST(BestKTest, WeightedRatioOfKthBestInSpec) {
  const auto w = TwoWorkloads();
  // s=2: W1 keeps {4, 3} (best 3), W2 keeps both (best 10).
  // (2*1 + 1*10) / (2*3 + 1*10) = 12/16.
  WeightedRatio r = ExpectedBestK(w, 2, 1);
  EXPECT_DOUBLE_EQ(r.value, 0.75);
  EXPECT_EQ(r.workloads, 2);
  EXPECT_EQ(r.left_out, 0);
  // k=2: 2nd best 4 and 20: 12 / (8 + 20).
  EXPECT_DOUBLE_EQ(ExpectedBestK(w, 2, 2).value, 12.0 / 28);
  // Weights matter: with W1 at weight 1, (1 + 10) / (3 + 10).
  auto unweighted = w;
  unweighted[0].weight = 1;
  EXPECT_DOUBLE_EQ(ExpectedBestK(unweighted, 2, 1).value, 11.0 / 13);
}

TEST(BestKTest, SpecLargerThanTheWorkloadKeepsEverything) {
  const auto w = TwoWorkloads();
  EXPECT_EQ(ClippedSize(50, 4), 4);
  EXPECT_EQ(ClippedSize(3, 4), 3);
  EXPECT_DOUBLE_EQ(ExpectedBestK(w, 50, 1).value, 1.0);
  // Best_2 of everything compares the 2nd best with the best: 12 / (2*2 + 20).
  EXPECT_DOUBLE_EQ(ExpectedBestK(w, 50, 2).value, 12.0 / 24);
}

TEST(BestKTest, WorkloadsWithoutAKthBestAreLeftOut) {
  const auto w = TwoWorkloads();
  // s=2 holds no 3rd best anywhere.
  WeightedRatio none = ExpectedBestK(w, 2, 3);
  EXPECT_TRUE(std::isnan(none.value));
  EXPECT_EQ(none.workloads, 0);
  EXPECT_EQ(none.left_out, 2);
  // s=4: W1's 3rd best is 3; W2 (2 schedules) is out of both sums: 2*1 / (2*3).
  WeightedRatio some = ExpectedBestK(w, 4, 3);
  EXPECT_DOUBLE_EQ(some.value, 1.0 / 3);
  EXPECT_EQ(some.workloads, 1);
  EXPECT_EQ(some.left_out, 1);
}

TEST(BestKTest, PerWorkloadSizes) {
  const auto w = TwoWorkloads();
  // W1 with s=1 keeps {4}; W2 with s=1 keeps {10}: 12 / (8 + 10).
  EXPECT_DOUBLE_EQ(ExpectedBestK(w, std::vector<int>{1, 1}, 1).value, 12.0 / 18);
  // W1 with s=3 keeps {4, 3, 2}: 12 / (4 + 10).
  EXPECT_DOUBLE_EQ(ExpectedBestK(w, std::vector<int>{3, 1}, 1).value, 12.0 / 14);
}

TEST(BestKTest, ProportionalSizesScaleThePapersShare) {
  std::vector<ScoredWorkload> w(2);
  w[0].latency_s.assign(200, 1.0);
  w[1].latency_s.assign(10, 1.0);
  // 200 * 128 / 4000 = 6.4 -> 6; 10 * 128 / 4000 = 0.32 -> at least 1.
  EXPECT_EQ(ProportionalSpecSizes(w, 128, 4000), (std::vector<int>{6, 1}));
  // 200 * 512 / 4000 = 25.6 -> 26.
  EXPECT_EQ(ProportionalSpecSizes(w, 512, 4000), (std::vector<int>{26, 1}));
}

TEST(TopKTest, BestOfTheModelsTopK) {
  const auto w = TwoWorkloads();
  // Top-1: W1's top is 4 ms, W2's 10: (2 + 10) / (8 + 10).
  EXPECT_DOUBLE_EQ(ExpectedTopK(w, 1).value, 12.0 / 18);
  // Top-2: min(4, 3) = 3 and min(10, 20) = 10: 12 / 16.
  EXPECT_DOUBLE_EQ(ExpectedTopK(w, 2).value, 0.75);
  // k beyond a workload's count takes all of it: Top-5 finds both bests.
  EXPECT_DOUBLE_EQ(ExpectedTopK(w, 5).value, 1.0);
}

TEST(TopKTest, TiedScoresCountInExpectation) {
  // L* = 0.5, scored last; three schedules tie at the top.
  const std::vector<ScoredWorkload> w = {{1, {3, 1, 2, 0.5}, {0.5, 0.5, 0.5, 0.1}}};
  EXPECT_DOUBLE_EQ(ExpectedTopK(w, 1).value, 0.5 / 2);
  EXPECT_NEAR(ExpectedTopK(w, 2).value, 0.5 / (4.0 / 3), 1e-12);
  EXPECT_DOUBLE_EQ(ExpectedTopK(w, 4).value, 1.0);
}

TEST(RandomDraftTest, ConstantScoresGiveTheRandomExpectation) {
  // A random pair of {1, 2, 3, 4}: best 1 in 3 of 6 pairs, 2 in 2, 3 in 1:
  // E[best] = 10/6, so sum w L* / sum w E[best] = 0.6.
  const std::vector<ScoredWorkload> w = {{1, {1, 2, 3, 4}, {0, 0, 0, 0}}};
  EXPECT_NEAR(ExpectedBestK(w, 2, 1).value, 0.6, 1e-12);
  // No scores at all: the same draft.
  const std::vector<ScoredWorkload> unscored = {{1, {1, 2, 3, 4}, {}}};
  EXPECT_NEAR(ExpectedBestK(unscored, 2, 1).value, 0.6, 1e-12);
  // One random schedule is the mean latency: 1 / 2.5.
  EXPECT_NEAR(ExpectedTopK(unscored, 1).value, 0.4, 1e-12);
}

TEST(RandomDraftTest, MeanOverDrawsOfTheScore) {
  // The paper averages the score itself: E[L*/best] = (3*1 + 2*(1/2) +
  // 1*(1/3)) / 6 = 0.7222..., not 0.6 (the ratio of expectations).
  const std::vector<ScoredWorkload> w = {{1, {1, 2, 3, 4}, {}}};
  DrawStats d = RandomDraftBestK(w, std::vector<int>{2}, 1, 20000, 11);
  EXPECT_NEAR(d.mean, 13.0 / 18, 0.01);
  EXPECT_GT(d.stddev, 0.1);
  EXPECT_EQ(d.draws, 20000);
  EXPECT_EQ(d.workloads, 1);
  // k=2 of a pair is the pair's worse one: (1,2)->2, (1,3)->3, (1,4)->4,
  // (2,3)->3, (2,4)->4, (3,4)->4, so E[1/max] = (1/2 + 2/3 + 3/4) / 6 = 23/72.
  EXPECT_NEAR(RandomDraftBestK(w, std::vector<int>{2}, 2, 20000, 12).mean, 23.0 / 72, 0.01);
  // Reproducible for a seed.
  EXPECT_DOUBLE_EQ(RandomDraftBestK(w, std::vector<int>{2}, 1, 500, 3).mean,
                   RandomDraftBestK(w, std::vector<int>{2}, 1, 500, 3).mean);
}

TEST(RandomDraftTest, WholeSpaceDrawsAreExact) {
  const auto w = TwoWorkloads();
  DrawStats d = RandomDraftBestK(w, std::vector<int>{512, 512}, 1, 100, 1);
  EXPECT_DOUBLE_EQ(d.mean, 1.0);
  EXPECT_NEAR(d.stddev, 0.0, 1e-12);
  // Too small for a 3rd best: W2 left out, W1's 3rd best of all is 3.
  DrawStats third = RandomDraftBestK(w, std::vector<int>{4, 4}, 3, 10, 1);
  EXPECT_EQ(third.left_out, 1);
  EXPECT_DOUBLE_EQ(third.mean, 1.0 / 3);
}

TEST(SpearmanTest, RanksWithTiesAveraged) {
  EXPECT_DOUBLE_EQ(SpearmanCorrelation({1, 2, 3, 4}, {10, 20, 30, 40}), 1.0);
  EXPECT_DOUBLE_EQ(SpearmanCorrelation({1, 2, 3, 4}, {4, 3, 2, 1}), -1.0);
  // Ranks (0, 1.5, 1.5, 3) vs (0, 1, 2, 3): 4.5 / sqrt(4.5 * 5) = 3/sqrt(10).
  EXPECT_NEAR(SpearmanCorrelation({1, 2, 2, 3}, {1, 2, 3, 4}), 3 / std::sqrt(10.0), 1e-12);
  // Infinity ranks largest (an unscorable schedule's estimate).
  EXPECT_DOUBLE_EQ(SpearmanCorrelation({1, kInf, 2}, {1, 3, 2}), 1.0);
  EXPECT_TRUE(std::isnan(SpearmanCorrelation({1, 1, 1}, {1, 2, 3})));
  EXPECT_TRUE(std::isnan(SpearmanCorrelation({1}, {1})));
}

}  // namespace
}  // namespace pruner::dataset
