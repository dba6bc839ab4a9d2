#include "common/measure/interleaved_timing.h"

#include <algorithm>
#include <chrono>
#include <thread>

#include "common/measure/thread_round_trip.h"
#include "gtest/gtest.h"

namespace pruner {
namespace {

using Clock = std::chrono::steady_clock;
using std::chrono::milliseconds;

// Two contenders: "noisy" leaves the machine disturbed for 40 ms after each
// of its calls (as a runtime's spinning threads do), and "victim" takes 20 ms
// a call while disturbed, 1 ms otherwise.
struct Disturbance {
  Clock::time_point until = Clock::now();
  std::vector<Contender> Contenders() {
    return {
        {"noisy", [this] {
           std::this_thread::sleep_for(milliseconds(1));
           until = Clock::now() + milliseconds(40);
         }},
        {"victim", [this] {
           std::this_thread::sleep_for(Clock::now() < until ? milliseconds(20) : milliseconds(1));
         }},
    };
  }
};

TEST(InterleavedTimingTest, EveryVisitCountsItsCallsAndItsBest) {
  Disturbance d;
  InterleaveOptions o;
  o.rounds = 3;
  o.calls_per_round = 4;
  o.min_visit_s = 0;
  o.warmup = 0;
  const std::vector<InterleavedTimes> t = TimeInterleaved(d.Contenders(), o);
  ASSERT_EQ(t.size(), 2u);
  for (const InterleavedTimes& c : t) {
    EXPECT_EQ(c.round_s.size(), 3u);
    EXPECT_EQ(c.call_s.size(), 12u);
    EXPECT_LE(c.min_s, c.median_s);
    EXPECT_GE(c.median_call_s, c.min_s);
  }
}

TEST(InterleavedTimingTest, CallsWhileTheLastContenderStillDisturbsAreNotCountedAfterSettling) {
  InterleaveOptions o;
  o.rounds = 3;
  o.calls_per_round = 3;
  o.min_visit_s = 0.01;
  o.warmup = 0;
  {
    Disturbance d;
    const std::vector<InterleavedTimes> t = TimeInterleaved(d.Contenders(), o);
    // Unsettled, the victim's first calls of each visit are the disturbed ones.
    double slowest = 0;
    for (double s : t[1].call_s) slowest = std::max(slowest, s);
    EXPECT_GE(slowest, 0.019);
  }
  {
    Disturbance d;
    o.settle_s = 0.06;
    const std::vector<InterleavedTimes> t = TimeInterleaved(d.Contenders(), o);
    ASSERT_GE(t[1].call_s.size(), 9u);
    // Settled, every counted call ran undisturbed (generous against a
    // loaded machine oversleeping a 1 ms sleep).
    EXPECT_LT(t[1].median_call_s, 0.010);
    EXPECT_LT(t[1].median_s, 0.010);
  }
}

TEST(InterleavedTimingTest, EachCallKnowsItsRoundAndAProbeRunsBeforeEachRound) {
  InterleaveOptions o;
  o.rounds = 4;
  o.calls_per_round = 2;
  o.min_visit_s = 0;
  o.warmup = 0;
  std::vector<int> probed;
  o.before_round = [&](int r) { probed.push_back(r); };
  int calls = 0;
  const std::vector<InterleavedTimes> t = TimeInterleaved({{"a", [&] { ++calls; }}}, o);
  EXPECT_EQ(probed, (std::vector<int>{0, 1, 2, 3}));
  ASSERT_EQ(t[0].call_round.size(), t[0].call_s.size());
  EXPECT_EQ(t[0].call_round, (std::vector<int>{0, 0, 1, 1, 2, 2, 3, 3}));
  EXPECT_EQ(calls, 8);
}

TEST(ThreadRoundTripTest, ACacheLineGoesToAnotherThreadAndBackInUnderAMillisecond) {
  // Any machine, one core or many: the exchange ends (the waits yield), and
  // a round trip takes tens of ns between cores sharing a cache, a few
  // hundred across caches, up to a scheduler slice on one core.
  const double ns = ThreadRoundTripNs(200, 2);
  EXPECT_GT(ns, 0);
  EXPECT_LT(ns, 1e6);
}

}  // namespace
}  // namespace pruner
