// The transform TVM applies to every count and size feature.
#ifndef PRUNER_COMMON_FEATURES_FEATURE_MATH_H_
#define PRUNER_COMMON_FEATURES_FEATURE_MATH_H_

#include <cmath>

namespace pruner {

// slog(x) = sign(x) * log2(|x| + 1): compresses counts spanning many orders
// of magnitude while keeping slog(0) == 0.
inline float Slog(double x) {
  return static_cast<float>(x < 0 ? -std::log2(-x + 1) : std::log2(x + 1));
}

}  // namespace pruner

#endif  // PRUNER_COMMON_FEATURES_FEATURE_MATH_H_
