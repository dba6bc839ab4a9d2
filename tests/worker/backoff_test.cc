// Backoff: doubles from the initial delay, never exceeds the cap, jitter
// only shortens, Reset starts over.
#include "worker/backoff.h"

#include <chrono>
#include <set>

#include "gtest/gtest.h"

namespace pruner {
namespace {

using std::chrono::milliseconds;

TEST(WorkerBackoffTest, DoublesUpToTheCapWithJitterBelowTheNominalDelay) {
  BackoffPolicy policy;  // 200 ms, x2, 5 s, 20 % jitter
  Backoff backoff(policy, 1);
  const int64_t nominal[] = {200, 400, 800, 1600, 3200, 5000, 5000, 5000};
  for (int64_t expected : nominal) {
    const int64_t got = backoff.Next().count();
    EXPECT_LE(got, expected);
    EXPECT_GE(got, expected * 8 / 10 - 1);
  }
}

TEST(WorkerBackoffTest, ResetStartsFromTheInitialDelay) {
  BackoffPolicy policy;
  policy.jitter = 0;
  Backoff backoff(policy, 2);
  for (int i = 0; i < 10; ++i) backoff.Next();
  EXPECT_EQ(backoff.Next(), milliseconds(5000));
  backoff.Reset();
  EXPECT_EQ(backoff.Next(), milliseconds(200));
  EXPECT_EQ(backoff.Next(), milliseconds(400));
}

TEST(WorkerBackoffTest, WorkersWithDifferentSeedsDoNotRetryInLockStep) {
  BackoffPolicy policy;
  std::set<int64_t> first_delays;
  for (uint64_t seed = 0; seed < 20; ++seed) {
    first_delays.insert(Backoff(policy, seed).Next().count());
  }
  EXPECT_GT(first_delays.size(), 5u);
}

}  // namespace
}  // namespace pruner
