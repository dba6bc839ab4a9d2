// The random policy: distinct new states every call, never more than asked,
// and an empty answer once a tiny space is used up.
#include "common/search/random_policy.h"

#include <set>

#include "common/lower/lower.h"
#include "common/sketch/annotate.h"
#include "common/search/task_sketches.h"
#include "gtest/gtest.h"
#include "tests/search/search_test_support.h"

namespace pruner {
namespace {

using ::pruner::testing::MakeTask;
using ::pruner::testing::Measured;
using ::pruner::testing::Strs;

TEST(RandomPolicyTest, NeverRepeatsAcrossCallsAndReturnsAtMostN) {
  const SearchTask task = MakeTask("dense:M=64,K=64,N=64", "cpu");
  RandomSearchPolicy policy(task, 1);
  EXPECT_EQ(policy.Name(), "random");
  std::set<std::string> seen;
  for (int n : {16, 1, 7, 16, 16}) {
    auto states = policy.Propose(n);
    ASSERT_TRUE(states.ok()) << states.status();
    // A 64^3 dense has thousands of CPU schedules: every call is full.
    EXPECT_EQ(static_cast<int>(states->size()), n);
    for (const State& s : *states) {
      EXPECT_TRUE(s.IsConcrete());
      EXPECT_TRUE(seen.insert(s.ToStr()).second) << "proposed twice: " << s.ToSentence();
    }
  }
  // Everything proposed lowers for the device.
  auto more = policy.Propose(4);
  ASSERT_TRUE(more.ok());
  for (const State& s : *more) EXPECT_TRUE(Lower(s, task.device).ok()) << s.ToSentence();
  EXPECT_EQ(policy.num_known(), seen.size() + 4);
  const SearchCounters c = policy.Counters();
  EXPECT_EQ(c.proposed, static_cast<int64_t>(seen.size()) + 4);
  EXPECT_EQ(c.rounds, 6);
  EXPECT_GE(c.sample_attempts, c.proposed);
  EXPECT_GT(c.sample_s, 0);
}

// Proposes `per_call` at a time until the policy answers empty; returns
// everything it proposed.
std::set<std::string> ProposeUntilEmpty(SearchPolicy& policy, int per_call) {
  std::set<std::string> seen;
  for (int calls = 0;; ++calls) {
    EXPECT_LT(calls, 50) << "never exhausted";
    if (calls >= 50) break;
    auto states = policy.Propose(per_call);
    EXPECT_TRUE(states.ok()) << states.status();
    if (!states.ok() || states->empty()) break;
    EXPECT_LE(static_cast<int>(states->size()), per_call);
    for (const State& s : *states) EXPECT_TRUE(seen.insert(s.ToStr()).second);
  }
  return seen;
}

// An independent, much larger draw finds nothing outside `seen`.
void ExpectCovers(const SearchTask& task, const std::set<std::string>& seen) {
  auto sketches = TaskSketches(task, {});
  ASSERT_TRUE(sketches.ok());
  Rng rng(99);
  for (const State& s : SampleInitPopulation(*sketches, task.device, 200, rng)) {
    EXPECT_EQ(seen.count(s.ToStr()), 1u) << "missed " << s.ToSentence();
  }
}

TEST(RandomPolicyTest, ExhaustsATinySpace) {
  // An 8-element ReLU has one CPU schedule (fused, parallel, vectorized);
  // a 1024-element one a handful of GPU thread bindings.
  const SearchTask cpu = MakeTask("relu:shape=8", "cpu");
  RandomSearchPolicy cpu_policy(cpu, 3);
  const std::set<std::string> cpu_seen = ProposeUntilEmpty(cpu_policy, 2);
  EXPECT_EQ(cpu_seen.size(), 1u);
  EXPECT_TRUE(cpu_policy.Propose(2)->empty());  // stays exhausted
  ExpectCovers(cpu, cpu_seen);

  const SearchTask gpu = MakeTask("relu:shape=1024", "a100");
  RandomSearchPolicy gpu_policy(gpu, 3);
  const std::set<std::string> gpu_seen = ProposeUntilEmpty(gpu_policy, 2);
  EXPECT_GT(gpu_seen.size(), 2u);  // took several calls
  EXPECT_EQ(gpu_policy.num_known(), gpu_seen.size());
  ExpectCovers(gpu, gpu_seen);
}

TEST(RandomPolicyTest, RecordedStatesAreNeverProposed) {
  const SearchTask task = MakeTask("matmul:M=32,K=32,N=32", "cpu");
  // Same seed: without the records, `fresh` would draw exactly `first`.
  RandomSearchPolicy first_policy(task, 5);
  auto first = first_policy.Propose(24);
  ASSERT_TRUE(first.ok());
  RandomSearchPolicy fresh(task, 5);
  std::vector<MeasuredState> records;
  for (const State& s : *first) {
    // Restored from the database: the sentence replayed, ok or failed.
    auto replayed = State::Replay(task.dag, s.steps());
    ASSERT_TRUE(replayed.ok());
    records.push_back(Measured(*replayed, task, 1e-3, records.size() % 2 == 0));
  }
  fresh.Record(records);
  auto second = fresh.Propose(24);
  ASSERT_TRUE(second.ok());
  EXPECT_EQ(second->size(), 24u);
  const std::set<std::string> a = Strs(*first);
  for (const State& s : *second) EXPECT_EQ(a.count(s.ToStr()), 0u) << s.ToSentence();
}

TEST(RandomPolicyTest, BadRequestsAreErrors) {
  RandomSearchPolicy policy(MakeTask("relu:shape=8", "cpu"), 1);
  EXPECT_EQ(policy.Propose(0).status().code(), absl::StatusCode::kInvalidArgument);
  SearchTask no_dag;
  no_dag.name = "empty";
  RandomSearchPolicy broken(no_dag, 1);
  EXPECT_FALSE(broken.Propose(4).ok());
}

TEST(RandomPolicyTest, SameSeedSameProposals) {
  const SearchTask task = MakeTask("conv2d:N=1,C=8,H=14,W=14,K=16,R=3,S=3,stride=1,pad=1", "a100");
  RandomSearchPolicy a(task, 11), b(task, 11);
  ::pruner::testing::ExpectSameProposals(a, b, 8);
  EXPECT_EQ(a.num_known(), 8u);
}

}  // namespace
}  // namespace pruner
