#include "common/features/intensity_curve.h"

#include <algorithm>

#include "common/features/feature_columns.h"

namespace pruner {
namespace {

// log-ops over log-bytes at one level. Only a one-byte footprint has
// log-bytes 0 (no such dtype is computed today); it is kept finite.
double Ratio(double log_ops, double log_bytes) { return log_ops / std::max(log_bytes, 1.0); }

}  // namespace

void ArithmeticIntensityCurve(double float_ops_per_iteration, const std::vector<double>& log_ops,
                              const std::vector<double>& log_bytes, float* out) {
  constexpr int kPoints = feature_columns::kArithCurvePoints;
  std::fill(out, out + kPoints, 0.0f);
  if (float_ops_per_iteration <= 0 || log_ops.empty()) return;
  const size_t n = log_ops.size();
  size_t pt = 0;
  for (int k = 0; k < kPoints; ++k) {
    const double x = log_ops.back() * (k + 1) / kPoints;
    while (pt + 1 < n && log_ops[pt] < x - 1e-4) ++pt;
    double value;
    if (pt == 0) {
      value = Ratio(log_ops[0], log_bytes[0]);
    } else {
      const double base = Ratio(log_ops[pt - 1], log_bytes[pt - 1]);
      const double slope =
          (Ratio(log_ops[pt], log_bytes[pt]) - base) / (log_ops[pt] - log_ops[pt - 1]);
      value = base + slope * (x - log_ops[pt - 1]);
    }
    out[k] = static_cast<float>(value);
  }
}

}  // namespace pruner
