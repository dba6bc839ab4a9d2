// Spearman's rank correlation, the ranking measure the draft model is
// calibrated by (common/analysis/issue_fit.h) and reported with
// (bench/dataset).
#ifndef PRUNER_COMMON_BASE_RANK_CORRELATION_H_
#define PRUNER_COMMON_BASE_RANK_CORRELATION_H_

#include <algorithm>
#include <cmath>
#include <limits>
#include <numeric>
#include <vector>

namespace pruner {

// Ranks 0..n-1 in ascending order, ties given their average rank.
inline std::vector<double> AverageRanks(const std::vector<double>& v) {
  std::vector<int> idx(v.size());
  std::iota(idx.begin(), idx.end(), 0);
  std::sort(idx.begin(), idx.end(), [&](int a, int b) { return v[a] < v[b]; });
  std::vector<double> rank(v.size());
  for (size_t i = 0; i < idx.size();) {
    size_t j = i;
    while (j + 1 < idx.size() && v[idx[j + 1]] == v[idx[i]]) ++j;
    for (size_t t = i; t <= j; ++t) rank[idx[t]] = (static_cast<double>(i) + j) / 2.0;
    i = j + 1;
  }
  return rank;
}

// Spearman's rank correlation with ties given their average rank (NaN when
// either side is constant or has fewer than two values). Infinite values
// rank as the largest / smallest; NaNs are not allowed.
inline double SpearmanCorrelation(const std::vector<double>& a, const std::vector<double>& b) {
  constexpr double kNaN = std::numeric_limits<double>::quiet_NaN();
  if (a.size() != b.size() || a.size() < 2) return kNaN;
  const std::vector<double> ra = AverageRanks(a), rb = AverageRanks(b);
  const double n = static_cast<double>(a.size());
  const double ma = std::accumulate(ra.begin(), ra.end(), 0.0) / n;
  const double mb = std::accumulate(rb.begin(), rb.end(), 0.0) / n;
  double sab = 0, saa = 0, sbb = 0;
  for (size_t i = 0; i < ra.size(); ++i) {
    sab += (ra[i] - ma) * (rb[i] - mb);
    saa += (ra[i] - ma) * (ra[i] - ma);
    sbb += (rb[i] - mb) * (rb[i] - mb);
  }
  if (saa == 0 || sbb == 0) return kNaN;
  return sab / std::sqrt(saa * sbb);
}

}  // namespace pruner

#endif  // PRUNER_COMMON_BASE_RANK_CORRELATION_H_
