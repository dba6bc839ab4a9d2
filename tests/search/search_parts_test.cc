// The pieces the policies are built from: roulette selection, the
// eps-greedy picker, the measured-state memory, distinct sampling and the
// evolutionary search itself.
#include <cmath>
#include <limits>
#include <map>
#include <set>

#include "common/lower/bound_inference.h"
#include "common/sketch/annotate.h"
#include "common/search/eps_greedy.h"
#include "common/search/evolutionary_search.h"
#include "common/search/measured_states.h"
#include "common/search/roulette.h"
#include "common/search/sample_states.h"
#include "common/search/task_sketches.h"
#include "gtest/gtest.h"
#include "tests/search/search_test_support.h"
#include "tests/search/test_models.h"

namespace pruner {
namespace {

using ::pruner::testing::ConstantModel;
using ::pruner::testing::MakeTask;
using ::pruner::testing::Measured;
using ::pruner::testing::OracleModel;

constexpr double kInf = std::numeric_limits<double>::infinity();

std::map<size_t, int> DrawCounts(const Roulette& wheel, int draws, uint64_t seed = 1) {
  Rng rng(seed);
  std::map<size_t, int> counts;
  for (int i = 0; i < draws; ++i) ++counts[wheel.Draw(rng)];
  return counts;
}

TEST(RouletteTest, DrawsInProportionToPositiveScores) {
  const Roulette wheel({0, 1, 3, -kInf, -2, std::nan("")});
  EXPECT_FALSE(wheel.uniform());
  auto counts = DrawCounts(wheel, 8000);
  // Only the two positive scores are ever drawn, about 1:3.
  EXPECT_EQ(counts.size(), 2u);
  EXPECT_NEAR(counts[1], 2000, 200);
  EXPECT_NEAR(counts[2], 6000, 200);
}

TEST(RouletteTest, AllNonPositiveScoresFallBackToUniformOverFiniteOnes) {
  const Roulette wheel({0, -1, -kInf, -3});
  EXPECT_TRUE(wheel.uniform());
  auto counts = DrawCounts(wheel, 6000);
  EXPECT_EQ(counts.size(), 3u);
  EXPECT_EQ(counts.count(2), 0u);  // -inf: unscorable
  for (size_t i : {0u, 1u, 3u}) EXPECT_NEAR(counts[i], 2000, 200);

  const Roulette none({-kInf, -kInf});
  EXPECT_TRUE(none.uniform());
  EXPECT_EQ(DrawCounts(none, 100).size(), 2u);
}

TEST(RouletteTest, TrailingZeroWeightsAreNeverDrawn) {
  const Roulette wheel({1e-300, 0, 0});
  EXPECT_EQ(DrawCounts(wheel, 1000), (std::map<size_t, int>{{0, 1000}}));
}

// Four distinct states of a small matmul, with their strings.
std::vector<ScoredState> FewStates(const SearchTask& task, int n, uint64_t seed) {
  auto sketches = TaskSketches(task, {});
  EXPECT_TRUE(sketches.ok()) << sketches.status();
  Rng rng(seed);
  std::vector<ScoredState> out;
  for (State& s : SampleInitPopulation(*sketches, task.device, n, rng)) {
    std::string str = s.ToStr();
    out.push_back(ScoredState{std::move(s), std::move(str), 0});
  }
  EXPECT_EQ(static_cast<int>(out.size()), n);
  return out;
}

TEST(EpsGreedyTest, TakesBestThenRandomSkippingKnownStates) {
  const SearchTask task = MakeTask("matmul:M=16,K=16,N=16", "cpu");
  std::vector<ScoredState> all = FewStates(task, 10, 3);
  std::vector<ScoredState> best(all.begin(), all.begin() + 5);
  std::vector<ScoredState> random(all.begin() + 5, all.end());
  MeasuredStates measured;
  ASSERT_TRUE(measured.AddProposed(best[1].state, best[1].str));

  EXPECT_EQ(NumRandomPicks(0.05, 64), 3);
  EXPECT_EQ(NumRandomPicks(0.1, 9), 0);
  PickStats stats;
  auto picks = PickStatesWithEpsGreedy(best, random, 6, 2, &measured, &stats);
  ASSERT_EQ(picks.size(), 6u);
  // 4 good picks: best 0, (1 known), 2, 3, 4; then 2 random ones.
  const std::vector<std::string> want = {best[0].str, best[2].str, best[3].str,
                                         best[4].str, random[0].str, random[1].str};
  for (size_t i = 0; i < want.size(); ++i) EXPECT_EQ(picks[i].ToStr(), want[i]) << i;
  EXPECT_EQ(stats.from_best, 4);
  EXPECT_EQ(stats.from_random, 2);
  EXPECT_EQ(stats.skipped_known, 1);
  // Picks are known at once: asking again gives only what is left.
  PickStats again;
  auto rest = PickStatesWithEpsGreedy(best, random, 6, 2, &measured, &again);
  EXPECT_EQ(rest.size(), 3u);  // random 2, 3, 4
  EXPECT_EQ(again.from_random, 3);
  EXPECT_EQ(again.skipped_known, 7);
}

TEST(EpsGreedyTest, FallsBackWhenAListRunsOut) {
  const SearchTask task = MakeTask("matmul:M=16,K=16,N=16", "cpu");
  std::vector<ScoredState> all = FewStates(task, 4, 5);
  MeasuredStates measured;
  PickStats stats;
  // No best list at all (the model scored nothing): random fills the round.
  auto picks = PickStatesWithEpsGreedy({}, all, 3, 1, &measured, &stats);
  EXPECT_EQ(picks.size(), 3u);
  EXPECT_EQ(stats.from_random, 3);
}

TEST(MeasuredStatesTest, RestoredRecordsMatchSampledStrings) {
  const SearchTask task = MakeTask("dense:M=32,K=32,N=32,bias=1,act=relu", "cpu");
  std::vector<ScoredState> sampled = FewStates(task, 20, 11);
  MeasuredStates measured;
  std::vector<MeasuredState> restored;
  for (const ScoredState& s : sampled) {
    // What the database gives back: the sentence replayed, no bound inference.
    auto replayed = State::Replay(task.dag, s.state.steps());
    ASSERT_TRUE(replayed.ok()) << replayed.status();
    EXPECT_EQ(measured.CanonicalStr(*replayed), s.str);
    // Inferring bounds twice changes nothing.
    auto again = InferBound(s.state);
    ASSERT_TRUE(again.ok());
    EXPECT_EQ(again->ToStr(), s.str);
    restored.push_back(Measured(*replayed, task, 1e-3));
  }
  measured.AddResults(restored);
  for (const ScoredState& s : sampled) EXPECT_TRUE(measured.Contains(s.str));
  EXPECT_EQ(measured.size(), sampled.size());
  // Seeds come back in the inferred form.
  for (const State& s : measured.BestMeasured(sampled.size())) {
    EXPECT_TRUE(measured.Contains(s.ToStr())) << s.ToSentence();
  }
}

TEST(MeasuredStatesTest, BestMeasuredRanksOkStatesByThroughput) {
  const SearchTask task = MakeTask("matmul:M=16,K=16,N=16", "cpu");
  std::vector<ScoredState> s = FewStates(task, 5, 9);
  MeasuredStates measured;
  measured.AddResults({Measured(s[0].state, task, 3e-3), Measured(s[1].state, task, 1e-3),
                       Measured(s[2].state, task, 0, false), Measured(s[3].state, task, 2e-3),
                       Measured(s[4].state, task, -1)});
  // The same program measured again, faster: it keeps its best.
  measured.AddResults({Measured(s[0].state, task, 0.5e-3)});
  EXPECT_EQ(measured.size(), 5u);  // failures are known too: never retried
  EXPECT_EQ(measured.num_ok(), 3u);
  auto best = measured.BestMeasured(10);
  ASSERT_EQ(best.size(), 3u);
  EXPECT_EQ(best[0].ToStr(), s[0].str);
  EXPECT_EQ(best[1].ToStr(), s[1].str);
  EXPECT_EQ(best[2].ToStr(), s[3].str);
  EXPECT_EQ(measured.BestMeasured(1).size(), 1u);
}

TEST(SampleDistinctStatesTest, EndsOnATinySpaceAndHonoursExclusions) {
  const SearchTask task = MakeTask("relu:shape=8", "cpu");
  auto sketches = TaskSketches(task, {});
  ASSERT_TRUE(sketches.ok()) << sketches.status();
  Rng rng(1);
  SearchCounters counters;
  SampleRequest request;
  request.target = 50;  // far more than the space holds
  request.batch_size = 64;
  request.halve_on_stall = true;
  SampledStates all = SampleDistinctStates(*sketches, task.device, {}, request, rng, &counters);
  ASSERT_FALSE(all.states.empty());
  EXPECT_LT(all.states.size(), 50u);
  EXPECT_EQ(std::set<std::string>(all.strs.begin(), all.strs.end()).size(), all.strs.size());
  EXPECT_GT(counters.sample_attempts, 0);

  std::set<std::string> known(all.strs.begin(), all.strs.end());
  request.excluded = [&](const std::string& s) { return known.count(s) > 0; };
  SampledStates rest = SampleDistinctStates(*sketches, task.device, {}, request, rng, &counters);
  EXPECT_TRUE(rest.states.empty()) << rest.strs.front();
}

TEST(EvolutionarySearchTest, ReturnsTheBestDistinctUnexcludedStates) {
  const SearchTask task = MakeTask("dense:M=64,K=64,N=64", "cpu");
  auto sketches = TaskSketches(task, {});
  ASSERT_TRUE(sketches.ok());
  Rng rng(2);
  std::vector<State> init = SampleInitPopulation(*sketches, task.device, 64, rng);
  std::set<std::string> excluded;
  for (int i = 0; i < 16; ++i) excluded.insert(init[i].ToStr());

  OracleModel oracle(task.device);
  EvolutionParams params;
  params.population = 64;
  params.num_iters = 2;
  SearchCounters counters;
  auto best = EvolutionarySearch(
      init, 24, params, task.device, oracle,
      [&](const std::string& s) { return excluded.count(s) > 0; }, rng, &counters);
  ASSERT_TRUE(best.ok()) << best.status();
  ASSERT_EQ(best->size(), 24u);
  std::set<std::string> seen;
  for (size_t i = 0; i < best->size(); ++i) {
    const ScoredState& s = (*best)[i];
    EXPECT_EQ(s.str, s.state.ToStr());
    EXPECT_TRUE(seen.insert(s.str).second) << "duplicate";
    EXPECT_EQ(excluded.count(s.str), 0u);
    EXPECT_EQ(s.score, oracle.Score(s.state));
    if (i > 0) {
      EXPECT_GE((*best)[i - 1].score, s.score);
    }
  }
  // num_iters + 1 scorings, one Predict each, no state scored twice.
  EXPECT_EQ(oracle.predict_calls(), 3);
  EXPECT_EQ(counters.predict_calls, 3);
  EXPECT_EQ(oracle.batch_sizes()[0], 64u);
  EXPECT_LE(oracle.batch_sizes()[1], 64u);
  EXPECT_GT(counters.mutations_ok, 0);
}

TEST(EvolutionarySearchTest, WrongNumberOfScoresIsAnError) {
  struct Broken : public CostModel {
    std::string Name() const override { return "broken"; }
    absl::Status Update(const std::vector<MeasuredState>&) override { return absl::OkStatus(); }
    std::vector<double> Predict(const std::vector<State>& s) override {
      return std::vector<double>(s.size() / 2, 1.0);
    }
    int64_t NumTrainingRecords() const override { return 0; }
    absl::StatusOr<std::string> Save() const override { return std::string(); }
    absl::Status Load(std::string_view) override { return absl::OkStatus(); }
  } broken;
  const SearchTask task = MakeTask("matmul:M=16,K=16,N=16", "cpu");
  std::vector<State> init;
  for (ScoredState& s : FewStates(task, 4, 1)) init.push_back(std::move(s.state));
  Rng rng(1);
  SearchCounters counters;
  auto best = EvolutionarySearch(init, 4, {}, task.device, broken, {}, rng, &counters);
  EXPECT_EQ(best.status().code(), absl::StatusCode::kInternal);
}

}  // namespace
}  // namespace pruner
