// Exponential backoff for calls to a server that does not answer: 200 ms,
// 400 ms, 800 ms, ... capped at 5 s by default. Each delay is scaled by a
// random factor in [1 - jitter, 1], so that a farm of workers that lost the
// same server does not hammer it in lock-step when it comes back; the cap is
// never exceeded.
#ifndef PRUNER_WORKER_BACKOFF_H_
#define PRUNER_WORKER_BACKOFF_H_

#include <chrono>
#include <cstdint>
#include <random>

namespace pruner {

struct BackoffPolicy {
  std::chrono::milliseconds initial{200};
  double multiplier = 2;
  std::chrono::milliseconds max{5000};
  double jitter = 0.2;  // in [0, 1)
};

// Not thread-safe: one per retry loop.
class Backoff {
 public:
  explicit Backoff(const BackoffPolicy& policy, uint64_t seed = std::random_device{}());

  // The delay before the next attempt; grows with every call.
  std::chrono::milliseconds Next();
  // After a success: the next failure starts again from `initial`.
  void Reset();

 private:
  BackoffPolicy policy_;
  double current_ms_;
  std::mt19937_64 rng_;
};

}  // namespace pruner

#endif  // PRUNER_WORKER_BACKOFF_H_
