#include "common/search/roulette.h"

#include <algorithm>
#include <cmath>

namespace pruner {

Roulette::Roulette(const std::vector<double>& scores) {
  prefix_.reserve(scores.size());
  double sum = 0;
  for (double s : scores) {
    if (std::isfinite(s) && s > 0) sum += s;
    prefix_.push_back(sum);
  }
  if (sum > 0 && std::isfinite(sum)) return;
  uniform_ = true;
  prefix_.clear();
  for (size_t i = 0; i < scores.size(); ++i) {
    if (std::isfinite(scores[i])) choices_.push_back(i);
  }
  if (choices_.empty()) {
    for (size_t i = 0; i < scores.size(); ++i) choices_.push_back(i);
  }
}

size_t Roulette::Draw(Rng& rng) const {
  if (uniform_) return choices_[rng.Below(choices_.size())];
  const double x = rng.UniformReal() * prefix_.back();
  // The first index whose running sum exceeds x: zero-weight entries have
  // the same sum as their predecessor and so are never chosen.
  auto it = std::upper_bound(prefix_.begin(), prefix_.end(), x);
  if (it == prefix_.end()) {
    // x rounded up to the total: the last entry with a positive weight is
    // the first one whose running sum reaches the total.
    it = std::lower_bound(prefix_.begin(), prefix_.end(), prefix_.back());
  }
  return static_cast<size_t>(it - prefix_.begin());
}

}  // namespace pruner
