// A seeded random source for sketch annotation and mutation.
//
// Search must be reproducible: the same seed, sketches and device give the
// same schedules on every machine. std::uniform_int_distribution is
// implementation-defined, so the bounded draws here are built directly on the
// 64-bit Mersenne Twister, whose output sequence the standard fixes.
#ifndef PRUNER_COMMON_SKETCH_RANDOM_H_
#define PRUNER_COMMON_SKETCH_RANDOM_H_

#include <cstddef>
#include <cstdint>
#include <random>
#include <vector>

namespace pruner {

class Rng {
 public:
  explicit Rng(uint64_t seed) : engine_(seed) {}

  // The next raw 64-bit value.
  uint64_t Next() { return engine_(); }
  // Uniform in [0, n); n must be positive. Unbiased (rejection sampling).
  uint64_t Below(uint64_t n);
  // Uniform in [lo, hi], both inclusive; lo <= hi.
  int64_t UniformInt(int64_t lo, int64_t hi);
  // Uniform in [0, 1).
  double UniformReal();
  // A uniformly chosen element; `items` must not be empty.
  template <typename T>
  const T& Choice(const std::vector<T>& items) {
    return items[Below(items.size())];
  }
  // Index drawn with probability proportional to weights[i] (all >= 0, at
  // least one > 0).
  size_t WeightedIndex(const std::vector<double>& weights);
  // A uniformly random permutation of 0..n-1 (Fisher-Yates).
  std::vector<int> Permutation(int n);
  // An independent generator seeded from this one, so that a batch of
  // samples can each own a stream without sharing state.
  Rng Fork() { return Rng(Next()); }

 private:
  std::mt19937_64 engine_;
};

}  // namespace pruner

#endif  // PRUNER_COMMON_SKETCH_RANDOM_H_
