#include "common/sketch/random.h"

#include <utility>

namespace pruner {

uint64_t Rng::Below(uint64_t n) {
  // Reject the top partial bucket so every residue is equally likely.
  const uint64_t limit = UINT64_MAX - UINT64_MAX % n;
  uint64_t v = engine_();
  while (v >= limit) v = engine_();
  return v % n;
}

int64_t Rng::UniformInt(int64_t lo, int64_t hi) {
  const uint64_t span = static_cast<uint64_t>(hi) - static_cast<uint64_t>(lo);
  if (span == UINT64_MAX) return static_cast<int64_t>(engine_());
  return lo + static_cast<int64_t>(Below(span + 1));
}

double Rng::UniformReal() {
  // 53 random bits scaled into [0, 1): exactly representable doubles.
  return static_cast<double>(engine_() >> 11) * (1.0 / 9007199254740992.0);
}

size_t Rng::WeightedIndex(const std::vector<double>& weights) {
  double total = 0;
  for (double w : weights) total += w;
  const double r = UniformReal() * total;
  double acc = 0;
  for (size_t i = 0; i < weights.size(); ++i) {
    acc += weights[i];
    if (r < acc) return i;
  }
  // Rounding can leave r == total; fall back to the last positive weight.
  for (size_t i = weights.size(); i-- > 0;) {
    if (weights[i] > 0) return i;
  }
  return 0;
}

std::vector<int> Rng::Permutation(int n) {
  std::vector<int> p(n);
  for (int i = 0; i < n; ++i) p[i] = i;
  for (int i = n - 1; i > 0; --i) std::swap(p[i], p[Below(static_cast<uint64_t>(i) + 1)]);
  return p;
}

}  // namespace pruner
