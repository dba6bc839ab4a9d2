// Pruner's draft-then-verify policy with test-only models: the oracle as the
// drafter (a cheap analytic scorer, like LSE's analyzer) and constant or
// uniform verifiers, on small populations so every case is fast.
#include "common/search/draft_verify_policy.h"

#include <set>

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
using ::pruner::testing::UniformModel;

DraftVerifyOptions SmallOptions() {
  DraftVerifyOptions o;
  o.population = 96;
  o.draft_size = 24;
  return o;
}

TEST(DraftVerifyOptionsTest, DefaultsArePrunersAndBadValuesAreRefused) {
  const DraftVerifyOptions o;
  EXPECT_EQ(o.eps_greedy, 0.1);
  EXPECT_EQ(o.population, 1536);
  EXPECT_EQ(o.draft_size, 512);
  EXPECT_EQ(o.draft_num_iters, 2);
  EXPECT_EQ(o.draft_every, 2);
  EXPECT_EQ(o.verify_num_iters, 1);
  EXPECT_EQ(o.use_measured_ratio, 0.1);
  EXPECT_EQ(o.cold_task_draft_share, 1);  // our departure (draft_verify_policy.h)
  EXPECT_TRUE(o.Validate().ok());
  DraftVerifyOptions bad = o;
  bad.draft_every = 0;
  EXPECT_NE(bad.Validate().message().find("draft_every"), std::string::npos);
  bad = o;
  bad.draft_size = 0;
  EXPECT_NE(bad.Validate().message().find("draft_size"), std::string::npos);
  bad = o;
  bad.cold_task_draft_share = 1.5;
  EXPECT_NE(bad.Validate().message().find("cold_task_draft_share"), std::string::npos);
}

TEST(DraftVerifyPolicyTest, PicksComeFromTheDraftWhenTheVerifierCannotTell) {
  const SearchTask task = MakeTask("matmul:M=64,K=64,N=64", "cpu");
  OracleModel drafter(task.device);
  // Every state scores the same, so the verifier's best list keeps the
  // first states offered: the draft, which leads the verify population.
  ConstantModel verifier(1.0);
  DraftVerifyOptions options = SmallOptions();
  options.eps_greedy = 0;
  options.cold_task_draft_share = 0;  // the public code's first round
  DraftVerifySearchPolicy policy(task, &drafter, &verifier, options, 7);
  auto picks = policy.Propose(8);
  ASSERT_TRUE(picks.ok()) << picks.status();
  ASSERT_EQ(picks->size(), 8u);
  const DraftVerifyRoundStats round = *policy.LastDraftVerifyRound();
  EXPECT_TRUE(round.drafted);
  EXPECT_EQ(round.draft, 24);
  EXPECT_GT(round.drafter_scored, 0);
  EXPECT_GT(round.verifier_scored, 0);
  // The picks are the drafter's favourites: their oracle scores beat the
  // random sample's mean.
  double picked = 0;
  for (const State& s : *picks) picked += drafter.Score(s);
  picked /= static_cast<double>(picks->size());
  UniformModel unused(1);
  DraftVerifySearchPolicy baseline(task, &unused, &verifier, options, 7);
  auto random_like = baseline.Propose(8);
  ASSERT_TRUE(random_like.ok());
  double other = 0;
  for (const State& s : *random_like) other += drafter.Score(s);
  other /= static_cast<double>(random_like->size());
  EXPECT_GT(picked, other) << "drafting with the oracle should pick states the oracle likes";
}

TEST(DraftVerifyPolicyTest, ATaskWithNothingMeasuredTakesTheDraftsBest) {
  const SearchTask task = MakeTask("matmul:M=64,K=64,N=64", "cpu");
  OracleModel drafter(task.device);
  ConstantModel verifier(1.0);
  DraftVerifyOptions options = SmallOptions();
  options.eps_greedy = 0;
  options.sketch.seed_schedules = false;  // they would lead round 1's picks
  DraftVerifySearchPolicy policy(task, &drafter, &verifier, options, 5);

  // Round 1: the verifier is not asked, and the picks are the draft's best
  // by the drafter's own scores, best first.
  auto picks = policy.Propose(6);
  ASSERT_TRUE(picks.ok()) << picks.status();
  ASSERT_EQ(picks->size(), 6u);
  EXPECT_EQ(verifier.predict_calls(), 0);
  EXPECT_EQ(policy.LastDraftVerifyRound()->verifier_scored, 0);
  EXPECT_EQ(policy.LastDraftVerifyRound()->draft, 24);
  for (size_t i = 1; i < picks->size(); ++i) {
    EXPECT_GE(drafter.Score((*picks)[i - 1]), drafter.Score((*picks)[i])) << "pick " << i;
  }

  // Failed measurements leave the task cold: round 2 is drafted picks again.
  std::vector<MeasuredState> failed;
  for (const State& s : *picks) failed.push_back(Measured(s, task, 0, false));
  policy.Record(failed);
  auto second = policy.Propose(6);
  ASSERT_TRUE(second.ok()) << second.status();
  EXPECT_EQ(verifier.predict_calls(), 0);

  // One successful measurement and the verifier ranks from then on.
  policy.Record({Measured((*second)[0], task, 1e-3, true)});
  auto third = policy.Propose(6);
  ASSERT_TRUE(third.ok()) << third.status();
  EXPECT_GT(verifier.predict_calls(), 0);
  EXPECT_GT(policy.LastDraftVerifyRound()->verifier_scored, 0);
}

// With a share of 1/2 a cold task's first picks are the draft's best, in
// the drafter's order (the same as with a share of 1 and the same seed),
// and the rest come from the verifier's search.
TEST(DraftVerifyPolicyTest, AColdTaskSplitsItsPicksBetweenDraftAndVerifier) {
  const SearchTask task = MakeTask("matmul:M=64,K=64,N=64", "cpu");
  OracleModel drafter(task.device);
  DraftVerifyOptions options = SmallOptions();
  options.eps_greedy = 0;
  options.sketch.seed_schedules = false;
  // Round 1's six picks with a verifier and a share.
  auto first_round = [&](UniformModel* verifier, double share) {
    options.cold_task_draft_share = share;
    DraftVerifySearchPolicy policy(task, &drafter, verifier, options, 5);
    auto picks = policy.Propose(6);
    EXPECT_TRUE(picks.ok()) << picks.status();
    EXPECT_EQ(policy.LastDraftVerifyRound()->verifier_scored > 0, verifier->predict_calls() > 0);
    return picks.ok() ? *picks : std::vector<State>{};
  };
  UniformModel unused(3);
  const std::vector<State> all_drafted = first_round(&unused, 1);
  EXPECT_EQ(unused.predict_calls(), 0);
  UniformModel verifier(3);
  const std::vector<State> picks = first_round(&verifier, 0.5);
  EXPECT_GT(verifier.predict_calls(), 0);
  ASSERT_EQ(all_drafted.size(), 6u);
  ASSERT_EQ(picks.size(), 6u);
  EXPECT_EQ(Strs({picks[0], picks[1], picks[2]}),
            Strs({all_drafted[0], all_drafted[1], all_drafted[2]}));
  EXPECT_NE(Strs({picks[3], picks[4], picks[5]}),
            Strs({all_drafted[3], all_drafted[4], all_drafted[5]}));
  std::set<std::string> distinct;
  for (const State& s : picks) EXPECT_TRUE(distinct.insert(s.ToStr()).second) << s.ToStr();
}

TEST(DraftVerifyPolicyTest, RedraftsEverySecondRoundAndNeverProposesTwice) {
  const SearchTask task = MakeTask("matmul:M=64,K=64,N=64", "cpu");
  OracleModel drafter(task.device);
  UniformModel verifier(3);
  DraftVerifySearchPolicy policy(task, &drafter, &verifier, SmallOptions(), 11);
  std::set<std::string> seen;
  std::vector<bool> drafted;
  for (int round = 0; round < 4; ++round) {
    auto picks = policy.Propose(6);
    ASSERT_TRUE(picks.ok()) << picks.status();
    ASSERT_FALSE(picks->empty());
    drafted.push_back(policy.LastDraftVerifyRound()->drafted);
    std::vector<MeasuredState> results;
    for (const State& s : *picks) {
      EXPECT_TRUE(seen.insert(s.ToStr()).second) << "proposed twice: " << s.ToStr();
      results.push_back(Measured(s, task, 1e-3, true));
    }
    policy.Record(results);
  }
  EXPECT_EQ(drafted, (std::vector<bool>{true, false, true, false}));
  // Measured states seed the verify population from the second round on.
  EXPECT_GT(policy.LastDraftVerifyRound()->seeds, 0);
  EXPECT_GT(policy.drafter_scored(), 0);
  EXPECT_GT(policy.verifier_scored(), 0);
}

TEST(DraftVerifyPolicyTest, NeedsBothModels) {
  const SearchTask task = MakeTask("relu:shape=8", "cpu");
  OracleModel drafter(task.device);
  DraftVerifySearchPolicy policy(task, &drafter, nullptr, SmallOptions(), 1);
  EXPECT_EQ(policy.Propose(4).status().code(), absl::StatusCode::kFailedPrecondition);
  EXPECT_EQ(policy.Propose(0).status().code(), absl::StatusCode::kInvalidArgument);
}

}  // namespace
}  // namespace pruner
