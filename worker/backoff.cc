#include "worker/backoff.h"

#include <algorithm>

namespace pruner {

Backoff::Backoff(const BackoffPolicy& policy, uint64_t seed)
    : policy_(policy), current_ms_(static_cast<double>(policy.initial.count())), rng_(seed) {}

std::chrono::milliseconds Backoff::Next() {
  const double max_ms = static_cast<double>(policy_.max.count());
  const double base = std::min(current_ms_, max_ms);
  current_ms_ = std::min(current_ms_ * std::max(policy_.multiplier, 1.0), max_ms);
  const double jitter = std::clamp(policy_.jitter, 0.0, 0.99);
  std::uniform_real_distribution<double> factor(1.0 - jitter, 1.0);
  return std::chrono::milliseconds(std::max<int64_t>(1, static_cast<int64_t>(base * factor(rng_))));
}

void Backoff::Reset() { current_ms_ = static_cast<double>(policy_.initial.count()); }

}  // namespace pruner
