// Fitting the CPU issue model's constants (common/analysis/issue_fit.h)
// on hand-made records whose latencies follow known constants.
#include "common/analysis/issue_fit.h"

#include <cmath>
#include <random>
#include <string>
#include <vector>

#include "gtest/gtest.h"

namespace pruner {
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

// The stored form of the constants (common/tune/draft_constants.h) reads
// back exactly, and bad text is refused with the offending part named.
TEST(IssueConstantsTextTest, EncodeParsesBackExactly) {
  CpuIssueConstants c;
  c.store = 1.0 / 3;
  c.l2_miss_element = 1.0 / 24;
  c.gather_lane = 0;
  auto back = CpuIssueConstants::Parse(c.Encode());
  ASSERT_TRUE(back.ok()) << back.status();
  EXPECT_EQ(*back, c);
  // ToString keeps 6 digits: not exact, but it parses.
  auto shown = CpuIssueConstants::Parse(c.ToString());
  ASSERT_TRUE(shown.ok()) << shown.status();
  EXPECT_NEAR(shown->store, c.store, 1e-6);
  // Names left out keep their defaults.
  auto partial = CpuIssueConstants::Parse("store=2  load=3");
  ASSERT_TRUE(partial.ok()) << partial.status();
  EXPECT_EQ(partial->store, 2);
  EXPECT_EQ(partial->load, 3);
  EXPECT_EQ(partial->l1_line, CpuIssueConstants{}.l1_line);
}

TEST(IssueConstantsTextTest, BadTextIsRefused) {
  for (const char* bad : {"store", "store=x", "store=-1", "store=inf", "stor=1", "load=1 load=2"}) {
    auto parsed = CpuIssueConstants::Parse(bad);
    EXPECT_TRUE(absl::IsInvalidArgument(parsed.status())) << bad;
  }
  EXPECT_NE(CpuIssueConstants::Parse("stor=1").status().message().find("stor"), std::string::npos);
}

}  // namespace
}  // namespace pruner
