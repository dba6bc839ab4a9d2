// Group 3 (../shared/specs/ansor.md §5.4): the arithmetic-intensity curve of a store.
#ifndef PRUNER_COMMON_FEATURES_INTENSITY_CURVE_H_
#define PRUNER_COMMON_FEATURES_INTENSITY_CURVE_H_

#include <vector>

namespace pruner {

// `log_ops[i]` and `log_bytes[i]` are log2 of the float ops and of the bytes
// touched with the loops from level i inward running, innermost level
// first. Writes kArithCurvePoints values: at x = (k+1)/10 of the total
// log-ops, the piecewise-linear interpolation of log_ops / log_bytes. All
// zero when the statement does no float work or has no loops. Not slog'ed.
void ArithmeticIntensityCurve(double float_ops_per_iteration, const std::vector<double>& log_ops,
                              const std::vector<double>& log_bytes, float* out);

}  // namespace pruner

#endif  // PRUNER_COMMON_FEATURES_INTENSITY_CURVE_H_
