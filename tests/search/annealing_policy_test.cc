// AutoTVM's exploration (annealing_policy.h): the annealing optimizer, the
// knob-coverage pick and the plan-walking policy, with test-only models
// (test_models.h) and small chains so that every case is fast.
#include "common/search/annealing_policy.h"

#include <cmath>
#include <set>

#include "common/search/diversity_pick.h"
#include "common/search/random_policy.h"
#include "common/search/sample_states.h"
#include "common/search/simulated_annealing.h"
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
using ::pruner::testing::Strs;

AnnealingParams SmallParams() {
  AnnealingParams p;
  p.parallel_size = 16;
  p.n_iter = 40;
  p.early_stop = 10;
  return p;
}

AnnealingPolicyOptions SmallOptions() {
  AnnealingPolicyOptions o;
  o.plan_size = 16;
  o.eps_greedy = 0.25;  // the last 4 of a 16-plan are random
  o.annealing = SmallParams();
  // The tests count the policy's own picks: no seed schedules ahead of them.
  o.sketch.seed_schedules = false;
  return o;
}

AnnealingChains RandomChains(const SearchTask& task, int n, Rng& rng) {
  auto sketches = TaskSketches(task, SketchOptions{});
  EXPECT_TRUE(sketches.ok()) << sketches.status();
  SampleRequest request;
  request.target = n;
  request.batch_size = n;
  request.stop_at_target = true;
  SearchCounters counters;
  SampledStates s = SampleDistinctStates(*sketches, task.device, {}, request, rng, &counters);
  return AnnealingChains{std::move(s.states), std::move(s.strs)};
}

// A model still in its warm-up: scores exist but do not rank.
class WarmingUpModel : public ConstantModel {
 public:
  WarmingUpModel() : ConstantModel(0.5) {}
  bool Ranks() const override { return false; }
};

TEST(AnnealingOptionsTest, DefaultsAreAutotvmsAndRangesAreChecked) {
  const AnnealingPolicyOptions o;
  EXPECT_EQ(o.plan_size, 64);
  EXPECT_EQ(o.eps_greedy, 0.05);
  EXPECT_EQ(o.diversity_filter_ratio, 0);
  EXPECT_TRUE(o.persistent);
  EXPECT_EQ(o.annealing.parallel_size, 128);
  EXPECT_EQ(o.annealing.n_iter, 500);
  EXPECT_EQ(o.annealing.early_stop, 50);
  EXPECT_EQ(o.annealing.temperature, 1.0);
  EXPECT_TRUE(o.Validate().ok());
  AnnealingPolicyOptions bad = o;
  bad.diversity_filter_ratio = 0.5;
  EXPECT_NE(bad.Validate().message().find("diversity_filter_ratio"), std::string::npos);
  bad = o;
  bad.plan_size = 0;
  EXPECT_EQ(bad.Validate().code(), absl::StatusCode::kInvalidArgument);
  const SearchTask task = MakeTask("dense:M=64,K=64,N=64", "cpu");
  AnnealingSearchPolicy no_model(task, nullptr, o, 1);
  EXPECT_EQ(no_model.Propose(4).status().code(), absl::StatusCode::kFailedPrecondition);
}

TEST(SimulatedAnnealingTest, ChainsClimbTheModelAndTheArchiveIsBestFirst) {
  const SearchTask task = MakeTask("dense:M=64,K=64,N=64", "cpu");
  OracleModel oracle(task.device);
  Rng rng(3);
  AnnealingChains chains = RandomChains(task, 16, rng);
  ASSERT_EQ(chains.points.size(), 16u);
  const double start_mean = oracle.MeanScore(chains.points);
  const std::set<std::string> excluded = {chains.strs[0], chains.strs[1]};
  SearchCounters counters;
  AnnealingStats stats;
  auto best = SimulatedAnnealing(
      &chains, 8, SmallParams(), task.device, oracle,
      [&](const std::string& s) { return excluded.count(s) > 0; }, rng, &counters, &stats);
  ASSERT_TRUE(best.ok()) << best.status();
  ASSERT_EQ(best->size(), 8u);
  std::set<std::string> seen;
  std::vector<State> states;
  for (size_t i = 0; i < best->size(); ++i) {
    const ScoredState& s = (*best)[i];
    EXPECT_TRUE(seen.insert(s.str).second);
    EXPECT_EQ(excluded.count(s.str), 0u);
    EXPECT_EQ(s.str, s.state.ToStr());
    EXPECT_DOUBLE_EQ(s.score, oracle.Score(s.state));
    if (i > 0) EXPECT_LE(s.score, (*best)[i - 1].score);
    states.push_back(s.state);
  }
  std::cout << "oracle mean: start chains " << start_mean << ", annealed best "
            << oracle.MeanScore(states) << " after " << stats.steps << " steps\n";
  EXPECT_GT(oracle.MeanScore(states), 1.3 * start_mean);
  EXPECT_GT(stats.accepted, 0);
  EXPECT_GT(stats.steps, 0);
  EXPECT_LE(stats.steps, SmallParams().n_iter);
  // At most one Predict per step (plus the start), each of at most one
  // state per chain.
  EXPECT_LE(counters.predict_calls, stats.steps + 1);
  EXPECT_GE(counters.predict_calls, 2);
  EXPECT_LE(counters.predicted_states, 16 * (stats.steps + 1));
  // The chains moved, and their strings still name their points.
  for (size_t i = 0; i < chains.points.size(); ++i) {
    EXPECT_EQ(chains.strs[i], chains.points[i].ToStr());
  }
}

TEST(SimulatedAnnealingTest, StopsAfterEarlyStopStepsWithoutAnArchiveChange) {
  const SearchTask task = MakeTask("dense:M=64,K=64,N=64", "cpu");
  Rng rng(5);
  for (double score : {0.0, -1.0}) {
    ConstantModel model(score);
    AnnealingChains chains = RandomChains(task, 16, rng);
    AnnealingStats stats;
    SearchCounters counters;
    auto best = SimulatedAnnealing(&chains, 8, SmallParams(), task.device, model, {}, rng,
                                   &counters, &stats);
    ASSERT_TRUE(best.ok());
    // The start points fill the archive; equal scores never displace them.
    EXPECT_EQ(stats.steps, SmallParams().early_stop) << score;
    // Equal scores are always accepted (exp(0) = 1): the chains walk.
    EXPECT_EQ(stats.accepted, stats.proposals);
    // Negative scores are dropped from the answer, as AutoTVM drops them.
    EXPECT_EQ(best->size(), score < 0 ? 0u : 8u);
  }
  ConstantModel model(0);
  AnnealingChains empty;
  SearchCounters counters;
  EXPECT_EQ(SimulatedAnnealing(&empty, 8, SmallParams(), task.device, model, {}, rng, &counters)
                .status()
                .code(),
            absl::StatusCode::kInvalidArgument);
}

TEST(DiversityPickTest, GreedyKnobCoverageWithTiesToTheEarlier) {
  const std::vector<std::vector<std::string>> knobs = {
      {"a", "b"}, {"a", "b"}, {"a", "c"}, {"d", "e"}, {"d", "c"}};
  // 0 covers (0:a, 1:b); then 3 adds two new values, 2 and 4 one each.
  EXPECT_EQ(DiversityPick(knobs, 2), (std::vector<int>{0, 3}));
  // Then 2 (1:c is new; earlier than 4, which adds the same count), then
  // 1 and 4 add nothing: the earlier first.
  EXPECT_EQ(DiversityPick(knobs, 5), (std::vector<int>{0, 3, 2, 1, 4}));
  EXPECT_EQ(DiversityPick(knobs, 9).size(), 5u);
  EXPECT_TRUE(DiversityPick({}, 3).empty());
}

TEST(AnnealingPolicyTest, WalksThePlanThenTheEpsGreedyTailAndReplansEveryPlanSize) {
  const SearchTask task = MakeTask("dense:M=64,K=64,N=64", "cpu");
  OracleModel oracle(task.device);
  AnnealingSearchPolicy policy(task, &oracle, SmallOptions(), 7);
  EXPECT_EQ(policy.Name(), "annealing");
  RandomSearchPolicy random(task, 7);

  auto first = policy.Propose(8);
  ASSERT_TRUE(first.ok()) << first.status();
  EXPECT_TRUE(policy.last_round().planned);
  EXPECT_EQ(policy.last_round().plan, 16);
  EXPECT_EQ(policy.last_round().from_plan, 8);
  EXPECT_EQ(policy.last_round().from_random, 0);
  auto random_states = random.Propose(8);
  ASSERT_TRUE(random_states.ok());
  EXPECT_GT(oracle.MeanScore(*first), 1.3 * oracle.MeanScore(*random_states));

  // 4 more plan entries reach the tail (16 - floor(0.25 * 16) = 12): the
  // other 4 are random.
  auto second = policy.Propose(8);
  ASSERT_TRUE(second.ok());
  EXPECT_FALSE(policy.last_round().planned);
  EXPECT_EQ(policy.last_round().from_plan, 4);
  EXPECT_EQ(policy.last_round().from_random, 4);

  // 16 records later the next round plans again.
  std::vector<MeasuredState> results;
  for (const std::vector<State>* round : {&*first, &*second}) {
    for (const State& s : *round) results.push_back(Measured(s, task, 1e-3 / oracle.Score(s)));
  }
  policy.Record(results);
  auto third = policy.Propose(8);
  ASSERT_TRUE(third.ok());
  EXPECT_TRUE(policy.last_round().planned);
  EXPECT_EQ(policy.last_round().from_plan, 8);
  std::set<std::string> known = Strs(*first);
  for (const std::vector<State>* round : {&*second, &*third}) {
    for (const State& s : *round) EXPECT_TRUE(known.insert(s.ToStr()).second);
  }
}

TEST(AnnealingPolicyTest, AModelInWarmUpGetsRandomPicksAndNoPlan) {
  const SearchTask task = MakeTask("dense:M=64,K=64,N=64", "cpu");
  WarmingUpModel model;
  AnnealingSearchPolicy policy(task, &model, SmallOptions(), 9);
  auto states = policy.Propose(8);
  ASSERT_TRUE(states.ok()) << states.status();
  EXPECT_EQ(states->size(), 8u);
  EXPECT_EQ(Strs(*states).size(), 8u);
  EXPECT_FALSE(policy.last_round().planned);
  EXPECT_EQ(policy.last_round().from_random, 8);
  EXPECT_EQ(model.predict_calls(), 0);
}

TEST(AnnealingPolicyTest, DiversityFilterKeepsPlanSizeOfTheLargerArchive) {
  const SearchTask task = MakeTask("dense:M=64,K=64,N=64", "cpu");
  OracleModel oracle(task.device);
  AnnealingPolicyOptions o = SmallOptions();
  o.diversity_filter_ratio = 2;
  AnnealingSearchPolicy policy(task, &oracle, o, 11);
  auto states = policy.Propose(4);
  ASSERT_TRUE(states.ok()) << states.status();
  EXPECT_EQ(policy.last_round().plan, 16);
  EXPECT_EQ(states->size(), 4u);
}

TEST(AnnealingPolicyTest, SameSeedSameProposals) {
  const SearchTask task = MakeTask("dense:M=64,K=64,N=64", "cpu");
  OracleModel oracle(task.device);
  AnnealingSearchPolicy a(task, &oracle, SmallOptions(), 13);
  AnnealingSearchPolicy b(task, &oracle, SmallOptions(), 13);
  ::pruner::testing::ExpectSameProposals(a, b, 8);
}

}  // namespace
}  // namespace pruner
