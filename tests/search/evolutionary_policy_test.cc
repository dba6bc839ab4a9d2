// Ansor's evolutionary policy with test-only models (test_models.h): small
// populations (128, 2 generations) keep every case fast.
#include "common/search/evolutionary_policy.h"

#include <numeric>
#include <set>

#include "common/search/random_policy.h"
#include "common/search/task_sketches.h"
#include "common/sketch/seed_schedules.h"
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

EvolutionaryOptions SmallOptions() {
  EvolutionaryOptions o;
  o.population = 128;
  o.num_iters = 2;
  // The tests count the policy's own picks: no seed schedules ahead of them.
  o.sketch.seed_schedules = false;
  return o;
}

TEST(EvolutionaryOptionsTest, DefaultsAreAnsorsAndPrunersAreExpressible) {
  const EvolutionaryOptions a = EvolutionaryOptions::Ansor();
  EXPECT_EQ(a.eps_greedy, 0.05);
  EXPECT_EQ(a.sample_init_min_population, 50);
  EXPECT_EQ(a.use_measured_ratio, 0.2);
  EXPECT_EQ(a.population, 2048);
  EXPECT_EQ(a.mutation_prob, 0.85);
  EXPECT_EQ(a.retry_on_empty, 1);
  EXPECT_TRUE(a.Validate().ok());
  const EvolutionaryOptions p = EvolutionaryOptions::PrunerDefaults();
  EXPECT_EQ(p.eps_greedy, 0.1);
  EXPECT_EQ(p.use_measured_ratio, 0.1);
  EXPECT_EQ(p.population, 1536);
  EXPECT_EQ(p.num_iters, 1);

  // Ansor: 4 generations (2 with random scores, which the strategy picks:
  // see tune's strategy test).
  EXPECT_EQ(a.num_iters, 4);
  const SearchTask task = MakeTask("relu:shape=8", "cpu");
  OracleModel oracle(task.device);

  EvolutionaryOptions bad = a;
  bad.population = 0;
  EXPECT_EQ(EvolutionarySearchPolicy(task, &oracle, bad, 1).Propose(4).status().code(),
            absl::StatusCode::kInvalidArgument);
  bad = a;
  bad.eps_greedy = 1.5;
  EXPECT_FALSE(bad.Validate().ok());
  EXPECT_EQ(EvolutionarySearchPolicy(task, nullptr, a, 1).Propose(4).status().code(),
            absl::StatusCode::kFailedPrecondition);
}

// The seed schedules (seed_schedules.h) of a task, as the policies see them.
std::set<std::string> SeedStrs(const SearchTask& task) {
  auto sketches = TaskSketches(task, SketchOptions{});
  EXPECT_TRUE(sketches.ok()) << sketches.status();
  return sketches.ok() ? Strs(SeedSchedules(*sketches, task.device)) : std::set<std::string>{};
}

TEST(EvolutionaryPolicyTest, SeedSchedulesComeFirstUnlessTurnedOff) {
  const SearchTask task = MakeTask("dense:M=64,K=64,N=64", "cpu");
  const std::set<std::string> seeds = SeedStrs(task);
  ASSERT_FALSE(seeds.empty()) << "a dense layer has matrix-product seeds";
  OracleModel oracle(task.device);
  for (const bool on : {true, false}) {
    EvolutionaryOptions o = SmallOptions();
    o.sketch.seed_schedules = on;
    EvolutionarySearchPolicy policy(task, &oracle, o, 5);
    auto states = policy.Propose(16);
    ASSERT_TRUE(states.ok()) << states.status();
    ASSERT_EQ(states->size(), 16u);
    int proposed_seeds = 0;
    for (size_t i = 0; i < states->size(); ++i) {
      const bool is_seed = seeds.count((*states)[i].ToStr()) > 0;
      proposed_seeds += is_seed;
      if (on && i < seeds.size()) EXPECT_TRUE(is_seed) << i;
    }
    EXPECT_EQ(proposed_seeds, on ? static_cast<int>(seeds.size()) : 0) << on;
  }
  // The random policy is the random baseline: never a seed.
  RandomSearchPolicy random(task, 5);
  auto drawn = random.Propose(64);
  ASSERT_TRUE(drawn.ok());
  for (const State& s : *drawn) EXPECT_EQ(seeds.count(s.ToStr()), 0u) << s.ToSentence();
}

TEST(EvolutionaryPolicyTest, NeverProposesARecordedOrProposedState) {
  const SearchTask task = MakeTask("dense:M=64,K=64,N=64", "cpu");
  OracleModel oracle(task.device);
  EvolutionarySearchPolicy policy(task, &oracle, SmallOptions(), 1);
  EXPECT_EQ(policy.Name(), "evolutionary");

  // States measured by someone else (restored records) are known upfront.
  RandomSearchPolicy other(task, 2);
  auto restored = other.Propose(32);
  ASSERT_TRUE(restored.ok());
  std::vector<MeasuredState> records;
  for (const State& s : *restored) {
    // 10 of them ran; the others failed.
    records.push_back(Measured(s, task, 1e-3 / oracle.Score(s), records.size() < 10));
  }
  policy.Record(records);
  std::set<std::string> known = Strs(*restored);

  for (int round = 0; round < 4; ++round) {
    auto states = policy.Propose(16);
    ASSERT_TRUE(states.ok()) << states.status();
    EXPECT_EQ(states->size(), 16u);
    std::vector<MeasuredState> results;
    for (const State& s : *states) {
      EXPECT_TRUE(known.insert(s.ToStr()).second) << "round " << round << ": " << s.ToSentence();
      // Half of them "fail": failures must not come back either.
      results.push_back(Measured(s, task, 1e-3 / oracle.Score(s), results.size() % 2 == 0));
    }
    policy.Record(results);
    // The measured ok states seed the population, at most 0.2 x 128 = 25.
    EXPECT_EQ(policy.last_round().seeds, std::min(10 + 8 * round, 25));
  }
  EXPECT_EQ(policy.num_known(), known.size());
}

TEST(EvolutionaryPolicyTest, OracleGuidedProposalsBeatRandomOnes) {
  for (const char* device : {"cpu", "a100"}) {
    SCOPED_TRACE(device);
    const SearchTask task = MakeTask("dense:M=64,K=64,N=64", device);
    OracleModel oracle(task.device);
    EvolutionarySearchPolicy evo(task, &oracle, SmallOptions(), 4);
    RandomSearchPolicy random(task, 4);
    auto evo_states = evo.Propose(32);
    auto random_states = random.Propose(32);
    ASSERT_TRUE(evo_states.ok()) << evo_states.status();
    ASSERT_TRUE(random_states.ok()) << random_states.status();
    ASSERT_EQ(evo_states->size(), 32u);
    ASSERT_EQ(random_states->size(), 32u);
    const double evo_mean = oracle.MeanScore(*evo_states);
    const double random_mean = oracle.MeanScore(*random_states);
    std::cout << device << ": oracle mean, evolutionary " << evo_mean << " vs random "
              << random_mean << "\n";
    EXPECT_GT(evo_mean, 1.3 * random_mean);
  }
}

TEST(EvolutionaryPolicyTest, EpsGreedyShareOfRandomPicks) {
  const SearchTask task = MakeTask("dense:M=64,K=64,N=64", "cpu");
  OracleModel oracle(task.device);
  for (auto [eps, n] : {std::pair{0.05, 64}, std::pair{0.25, 32}, std::pair{0.0, 16}}) {
    EvolutionaryOptions o = SmallOptions();
    o.eps_greedy = eps;
    EvolutionarySearchPolicy policy(task, &oracle, o, 7);
    auto states = policy.Propose(n);
    ASSERT_TRUE(states.ok());
    ASSERT_EQ(static_cast<int>(states->size()), n);
    const PickStats& picks = policy.last_round().picks;
    const int want_random = static_cast<int>(eps * n);  // 3, 8, 0
    EXPECT_EQ(picks.from_random, want_random) << eps;
    EXPECT_EQ(picks.from_best, n - want_random) << eps;
    EXPECT_EQ(policy.last_round().random_pool, 3 * want_random);
    EXPECT_EQ(policy.last_round().best_found, 2 * n);
  }
}

TEST(EvolutionaryPolicyTest, AllNonPositiveScoresStillSearch) {
  const SearchTask task = MakeTask("dense:M=64,K=64,N=64", "cpu");
  for (double score : {0.0, -1.0}) {
    ConstantModel model(score);
    EvolutionarySearchPolicy policy(task, &model, SmallOptions(), 3);
    auto states = policy.Propose(16);
    ASSERT_TRUE(states.ok()) << states.status();
    EXPECT_EQ(states->size(), 16u);
    EXPECT_EQ(Strs(*states).size(), 16u);
    EXPECT_GT(policy.Counters().mutations_ok, 0);  // the GA did run
  }
}

TEST(EvolutionaryPolicyTest, UnscorableStatesAreNeverProposedFromTheBestList) {
  const SearchTask task = MakeTask("dense:M=64,K=64,N=64", "cpu");
  ConstantModel model(-std::numeric_limits<double>::infinity());
  EvolutionaryOptions o = SmallOptions();
  o.eps_greedy = 0.25;
  EvolutionarySearchPolicy policy(task, &model, o, 3);
  auto states = policy.Propose(16);
  ASSERT_TRUE(states.ok());
  // Only the eps-greedy share, drawn at random, is left.
  EXPECT_EQ(policy.last_round().best_found, 0);
  EXPECT_EQ(policy.last_round().picks.from_random, static_cast<int>(states->size()));
  EXPECT_GT(states->size(), 0u);
  EXPECT_LE(states->size(), 12u);  // 4 random picks x 3, some may repeat
}

TEST(EvolutionaryPolicyTest, OnePredictPerGenerationAndCounters) {
  const SearchTask task = MakeTask("dense:M=64,K=64,N=64", "a100");
  OracleModel oracle(task.device);
  EvolutionarySearchPolicy policy(task, &oracle, SmallOptions(), 5);
  auto states = policy.Propose(8);
  ASSERT_TRUE(states.ok()) << states.status();
  EXPECT_EQ(states->size(), 8u);
  // 2 generations of mutation: 3 scorings.
  EXPECT_EQ(oracle.predict_calls(), 3);
  for (size_t b : oracle.batch_sizes()) EXPECT_LE(b, 128u);
  const SearchCounters c = policy.Counters();
  EXPECT_EQ(c.rounds, 1);
  EXPECT_EQ(c.proposed, 8);
  EXPECT_EQ(c.predict_calls, 3);
  EXPECT_EQ(c.predicted_states,
            std::accumulate(oracle.batch_sizes().begin(), oracle.batch_sizes().end(), int64_t{0}));
  // Ansor's init sampling draws whole batches of `population`.
  EXPECT_EQ(c.sample_attempts % 128, 0);
  EXPECT_GE(policy.last_round().init_population, 1);
  EXPECT_GT(c.mutations_ok, 0);
  EXPECT_GT(c.predict_s, 0);
  EXPECT_GE(c.total_s, c.sample_s + c.mutate_s + c.predict_s);
}

TEST(EvolutionaryPolicyTest, ExhaustsATinySpace) {
  const SearchTask task = MakeTask("relu:shape=1024", "a100");
  OracleModel oracle(task.device);
  EvolutionarySearchPolicy policy(task, &oracle, SmallOptions(), 2);
  std::set<std::string> seen;
  for (int call = 0; call < 20; ++call) {
    auto states = policy.Propose(2);
    ASSERT_TRUE(states.ok());
    if (states->empty()) break;
    for (const State& s : *states) EXPECT_TRUE(seen.insert(s.ToStr()).second);
  }
  EXPECT_GT(seen.size(), 2u);
  EXPECT_TRUE(policy.Propose(2)->empty());
  // An empty answer is retried once before it is believed.
  const int64_t rounds = policy.Counters().rounds;
  EXPECT_TRUE(policy.Propose(2)->empty());
  EXPECT_EQ(policy.Counters().rounds, rounds + 2);
}

TEST(EvolutionaryPolicyTest, SameSeedSameProposals) {
  const SearchTask task = MakeTask("dense:M=64,K=64,N=64", "cpu");
  OracleModel oracle(task.device);
  EvolutionarySearchPolicy a(task, &oracle, SmallOptions(), 9);
  EvolutionarySearchPolicy b(task, &oracle, SmallOptions(), 9);
  ::pruner::testing::ExpectSameProposals(a, b, 16);
}

}  // namespace
}  // namespace pruner
