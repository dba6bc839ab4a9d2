#include "common/measure/thread_round_trip.h"

#include <algorithm>
#include <atomic>
#include <thread>

#include "common/base/clock.h"

namespace pruner {
namespace {

// Spins until `ball` holds `want`; yields now and then, so that the
// exchange still ends when both threads must share one core.
void WaitFor(const std::atomic<int>& ball, int want) {
  for (int spins = 1; ball.load(std::memory_order_acquire) != want; ++spins) {
    if (spins % 4096 == 0) std::this_thread::yield();
  }
}

double OneRun(int round_trips) {
  // Odd values: the caller's serve; even: the other thread's return.
  alignas(64) std::atomic<int> ball{0};
  std::thread other([&] {
    for (int i = 0; i < round_trips; ++i) {
      WaitFor(ball, 2 * i + 1);
      ball.store(2 * i + 2, std::memory_order_release);
    }
  });
  // Wait until the other thread runs, so that its start-up is not timed.
  ball.store(1, std::memory_order_release);
  WaitFor(ball, 2);
  const auto start = SteadyClock::now();
  for (int i = 1; i < round_trips; ++i) {
    ball.store(2 * i + 1, std::memory_order_release);
    WaitFor(ball, 2 * i + 2);
  }
  const double s = SecondsSince(start);
  other.join();
  return s / std::max(1, round_trips - 1) * 1e9;
}

}  // namespace

double ThreadRoundTripNs(int round_trips, int tries) {
  double best = 1e30;
  for (int t = 0; t < std::max(1, tries); ++t) best = std::min(best, OneRun(std::max(2, round_trips)));
  return best;
}

}  // namespace pruner
