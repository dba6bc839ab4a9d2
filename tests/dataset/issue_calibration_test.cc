// Fitting the CPU issue model's constants (bench/dataset/issue_calibration.h)
// on hand-made records whose latencies follow known constants.
#include "bench/dataset/issue_calibration.h"

#include <cmath>
#include <random>
#include <vector>

#include "gtest/gtest.h"

namespace pruner::dataset {
namespace {

// Workloads whose measured latency is loads + 4 x loop iterations exactly,
// with stores drawn against it: the default constants charge stores and
// rank them worse than the truth.
std::vector<IssueWorkload> MadeUpWorkloads() {
  std::mt19937 rng(7);
  std::uniform_real_distribution<double> u(1, 100);
  std::vector<IssueWorkload> out(6);
  for (IssueWorkload& w : out) {
    for (int j = 0; j < 20; ++j) {
      IssueRow row;
      row.symbols.issue_loads = u(rng);
      row.symbols.issue_loop_iterations = u(rng);
      row.symbols.issue_stores = 300 - 2 * row.symbols.issue_loads + u(rng);
      w.schedules.push_back({row});
      w.latency_s.push_back(row.symbols.issue_loads + 4 * row.symbols.issue_loop_iterations);
    }
  }
  return out;
}

TEST(IssueCalibrationTest, FitRecoversTheRankingTheConstantsMake) {
  const std::vector<IssueWorkload> data = MadeUpWorkloads();
  const std::vector<int> all = {0, 1, 2, 3, 4, 5};
  const CpuIssueConstants defaults;
  const double before = MeanIssueSpearman(data, all, defaults);
  const IssueFit fit = FitIssueConstants(data, all);
  EXPECT_LT(before, 0.9);
  EXPECT_GT(fit.spearman, 0.99);
  EXPECT_NEAR(MeanIssueSpearman(data, all, fit.constants), fit.spearman, 1e-9);
  // Normalized to load = 1; the loop term weighs about 4 loads and stores
  // next to nothing.
  EXPECT_DOUBLE_EQ(fit.constants.load, 1);
  EXPECT_GT(fit.constants.loop_iteration, 2);
  EXPECT_LT(fit.constants.loop_iteration, 8);
  EXPECT_LT(fit.constants.store, 0.1);
}

TEST(IssueCalibrationTest, AScheduleWithoutRowsRanksLast) {
  IssueWorkload w;
  IssueRow row;
  row.symbols.issue_loads = 10;
  w.schedules = {{row}, {}};
  w.latency_s = {1, 2};
  const std::vector<double> e = IssueEstimates(w, CpuIssueConstants{});
  ASSERT_EQ(e.size(), 2u);
  EXPECT_DOUBLE_EQ(e[0], 10);
  EXPECT_TRUE(std::isinf(e[1]));
}

}  // namespace
}  // namespace pruner::dataset
