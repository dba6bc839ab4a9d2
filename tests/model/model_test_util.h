// Shared helpers of the cost-model tests: synthetic packs with a known
// pack-sum target, and the correlation/ranking measures the tests assert on.
#ifndef PRUNER_TESTS_MODEL_MODEL_TEST_UTIL_H_
#define PRUNER_TESTS_MODEL_MODEL_TEST_UTIL_H_

#include <algorithm>
#include <cmath>
#include <functional>
#include <numeric>
#include <random>
#include <vector>

#include "common/base/rank_correlation.h"
#include "common/model/packed_rows.h"

namespace pruner::testing {

struct SyntheticPacks {
  PackedRows packs{0};
  std::vector<float> labels;
};

// Packs of 1-4 rows with uniform [0,1) features. The label is a sum over the
// pack's rows of a nonlinear function of three columns (the others are
// noise), scaled into [0, 1] like normalized throughputs:
//   f(row) = row[0] * (row[1] > 0.5 ? 1 : 0.25) + 0.5 * row[2]^2.
// A pack-sum learner can represent it exactly; a per-pack regressor on
// averaged rows cannot.
inline SyntheticPacks MakeSyntheticPacks(int num_packs, int num_columns, uint64_t seed) {
  std::mt19937_64 rng(seed);
  std::uniform_real_distribution<float> u(0.0f, 1.0f);
  SyntheticPacks out{PackedRows(num_columns), {}};
  for (int p = 0; p < num_packs; ++p) {
    const int rows = 1 + static_cast<int>(rng() % 4);
    std::vector<float> values(rows * num_columns);
    double y = 0;
    for (int r = 0; r < rows; ++r) {
      float* row = values.data() + r * num_columns;
      for (int c = 0; c < num_columns; ++c) row[c] = u(rng);
      y += row[0] * (row[1] > 0.5f ? 1.0 : 0.25) + 0.5 * row[2] * row[2];
    }
    out.packs.AddPack(values);
    out.labels.push_back(static_cast<float>(y / 6.0));  // max is 4 * 1.5 = 6
  }
  return out;
}

inline double Pearson(const std::vector<double>& a, const std::vector<double>& b) {
  const double n = static_cast<double>(a.size());
  const double ma = std::accumulate(a.begin(), a.end(), 0.0) / n;
  const double mb = std::accumulate(b.begin(), b.end(), 0.0) / n;
  double sab = 0, saa = 0, sbb = 0;
  for (size_t i = 0; i < a.size(); ++i) {
    sab += (a[i] - ma) * (b[i] - mb);
    saa += (a[i] - ma) * (a[i] - ma);
    sbb += (b[i] - mb) * (b[i] - mb);
  }
  return sab / std::sqrt(saa * sbb);
}

// Spearman's rho (ties averaged): the engine's (common/base/rank_correlation.h).
inline double Spearman(const std::vector<double>& a, const std::vector<double>& b) {
  return SpearmanCorrelation(a, b);
}

// Fraction of pairs with different truths that `pred` orders like `truth`.
inline double PairwiseAccuracy(const std::vector<double>& pred, const std::vector<double>& truth) {
  int64_t agree = 0, total = 0;
  for (size_t i = 0; i < pred.size(); ++i) {
    for (size_t j = i + 1; j < pred.size(); ++j) {
      if (truth[i] == truth[j]) continue;
      ++total;
      if ((pred[i] - pred[j]) * (truth[i] - truth[j]) > 0) ++agree;
    }
  }
  return total == 0 ? 0.0 : static_cast<double>(agree) / total;
}

// Mean truth of the k candidates `pred` ranks highest over the mean of the
// k best truths: what a search that measures the model's top k would get,
// relative to an oracle (1 = perfect).
inline double TopKQuality(const std::vector<double>& pred, const std::vector<double>& truth,
                          size_t k) {
  std::vector<int> by_pred(pred.size());
  std::iota(by_pred.begin(), by_pred.end(), 0);
  std::sort(by_pred.begin(), by_pred.end(), [&](int a, int b) { return pred[a] > pred[b]; });
  std::vector<double> best = truth;
  std::sort(best.begin(), best.end(), std::greater<double>());
  double got = 0, ideal = 0;
  for (size_t i = 0; i < k && i < pred.size(); ++i) {
    got += truth[by_pred[i]];
    ideal += best[i];
  }
  return got / ideal;
}

inline std::vector<double> ToDouble(const std::vector<float>& v) {
  return std::vector<double>(v.begin(), v.end());
}

}  // namespace pruner::testing

#endif  // PRUNER_TESTS_MODEL_MODEL_TEST_UTIL_H_
