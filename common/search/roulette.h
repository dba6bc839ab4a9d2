// Roulette-wheel selection of parents for the evolutionary search (ansor.md
// §3.3): index i is drawn with probability proportional to max(score_i, 0).
//
// Ansor divides by the sum of those weights, which is zero when every score
// is <= 0 (a model that has learned only failures, or one that scores by
// negative latency). Then selection falls back to uniform over the states
// that have a finite score (uniform over all if none has): the search keeps
// moving instead of producing NaN probabilities.
#ifndef PRUNER_COMMON_SEARCH_ROULETTE_H_
#define PRUNER_COMMON_SEARCH_ROULETTE_H_

#include <cstddef>
#include <vector>

#include "common/sketch/random.h"

namespace pruner {

class Roulette {
 public:
  // `scores` must not be empty.
  explicit Roulette(const std::vector<double>& scores);

  size_t Draw(Rng& rng) const;
  // True when the wheel fell back to uniform selection.
  bool uniform() const { return uniform_; }

 private:
  bool uniform_ = false;
  std::vector<double> prefix_;   // weighted: running sums of the weights
  std::vector<size_t> choices_;  // uniform: the indices to choose from
};

}  // namespace pruner

#endif  // PRUNER_COMMON_SEARCH_ROULETTE_H_
