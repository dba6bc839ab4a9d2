#include "bench/dataset/ranking_metrics.h"

#include <algorithm>
#include <cmath>
#include <limits>
#include <numeric>
#include <random>

namespace pruner::dataset {
namespace {

constexpr double kNaN = std::numeric_limits<double>::quiet_NaN();

double ScoreKey(double score) {
  return std::isnan(score) ? -std::numeric_limits<double>::infinity() : score;
}

// The schedules a top-`take` cut keeps for sure (`fixed`), and the tie group
// straddling the cut (`tied`), of which a uniformly random `draw` make it.
struct TopCut {
  std::vector<double> fixed;
  std::vector<double> tied;
  int draw = 0;
};

TopCut CutTop(const std::vector<double>& latency_s, const std::vector<double>& score, int take) {
  const int n = static_cast<int>(latency_s.size());
  auto key = [&](int i) { return score.empty() ? 0.0 : ScoreKey(score[i]); };
  std::vector<int> order(n);
  std::iota(order.begin(), order.end(), 0);
  std::sort(order.begin(), order.end(), [&](int a, int b) { return key(a) > key(b); });
  TopCut cut;
  int i = 0;
  while (i < n && static_cast<int>(cut.fixed.size()) < take) {
    int j = i;
    while (j < n && key(order[j]) == key(order[i])) ++j;
    const int group = j - i;
    const int room = take - static_cast<int>(cut.fixed.size());
    if (group <= room) {
      for (int t = i; t < j; ++t) cut.fixed.push_back(latency_s[order[t]]);
    } else {
      for (int t = i; t < j; ++t) cut.tied.push_back(latency_s[order[t]]);
      cut.draw = room;
      break;
    }
    i = j;
  }
  return cut;
}

// log(m!) for m = 0..n.
std::vector<double> LogFactorials(int n) {
  std::vector<double> lf(n + 1, 0.0);
  for (int m = 2; m <= n; ++m) lf[m] = lf[m - 1] + std::log(static_cast<double>(m));
  return lf;
}

double LogChoose(const std::vector<double>& lf, int n, int r) {
  return lf[n] - lf[r] - lf[n - r];
}

// P(Y >= t) for Y ~ Hypergeometric(population n, successes good, draws r).
double HypergeometricTail(const std::vector<double>& lf, int n, int good, int r, int t) {
  const int lo = std::max({t, 0, r - (n - good)});
  const int hi = std::min(good, r);
  if (t <= std::max(0, r - (n - good))) return 1.0;
  double p = 0;
  const double total = LogChoose(lf, n, r);
  for (int y = lo; y <= hi; ++y) {
    p += std::exp(LogChoose(lf, good, y) + LogChoose(lf, n - good, r - y) - total);
  }
  return std::min(p, 1.0);
}

}  // namespace

int ClippedSize(int s, int n) { return std::min(s, n); }

double ExpectedKthBestOfTop(const std::vector<double>& latency_s,
                            const std::vector<double>& score, int take, int k) {
  const int n = static_cast<int>(latency_s.size());
  take = ClippedSize(take, n);
  if (k < 1 || take < k) return kNaN;
  TopCut cut = CutTop(latency_s, score, take);
  std::sort(cut.fixed.begin(), cut.fixed.end());
  if (cut.draw == 0) return cut.fixed[k - 1];

  // X = k-th smallest of fixed ∪ (a random `draw`-subset of tied).
  // P(X <= v) = P(#fixed <= v  +  #drawn tied <= v  >= k), the second count
  // hypergeometric; E[X] = v_1 + Σ_j (v_j - v_{j-1}) · P(X > v_{j-1}).
  std::sort(cut.tied.begin(), cut.tied.end());
  std::vector<double> values = cut.fixed;
  values.insert(values.end(), cut.tied.begin(), cut.tied.end());
  std::sort(values.begin(), values.end());
  values.erase(std::unique(values.begin(), values.end()), values.end());
  const int g = static_cast<int>(cut.tied.size());
  const std::vector<double> lf = LogFactorials(g);
  double expected = values[0];
  for (size_t j = 1; j < values.size(); ++j) {
    const double v = values[j - 1];
    const int fixed_le = static_cast<int>(
        std::upper_bound(cut.fixed.begin(), cut.fixed.end(), v) - cut.fixed.begin());
    const int tied_le = static_cast<int>(
        std::upper_bound(cut.tied.begin(), cut.tied.end(), v) - cut.tied.begin());
    const double p_le = HypergeometricTail(lf, g, tied_le, cut.draw, k - fixed_le);
    expected += (values[j] - v) * (1.0 - p_le);
  }
  return expected;
}

WeightedRatio ExpectedBestK(const std::vector<ScoredWorkload>& workloads,
                            const std::vector<int>& spec_sizes, int k) {
  WeightedRatio out;
  double num = 0, den = 0;
  for (size_t i = 0; i < workloads.size(); ++i) {
    const ScoredWorkload& w = workloads[i];
    const double kth = ExpectedKthBestOfTop(w.latency_s, w.score, spec_sizes[i], k);
    if (std::isnan(kth)) {
      ++out.left_out;
      continue;
    }
    num += w.weight * *std::min_element(w.latency_s.begin(), w.latency_s.end());
    den += w.weight * kth;
    ++out.workloads;
  }
  out.value = out.workloads > 0 ? num / den : kNaN;
  return out;
}

WeightedRatio ExpectedBestK(const std::vector<ScoredWorkload>& workloads, int s, int k) {
  return ExpectedBestK(workloads, std::vector<int>(workloads.size(), s), k);
}

std::vector<int> ProportionalSpecSizes(const std::vector<ScoredWorkload>& workloads, int s,
                                       int space) {
  std::vector<int> sizes;
  for (const ScoredWorkload& w : workloads) {
    const double scaled = static_cast<double>(w.latency_s.size()) * s / space;
    sizes.push_back(std::max(1, static_cast<int>(std::lround(scaled))));
  }
  return sizes;
}

WeightedRatio ExpectedTopK(const std::vector<ScoredWorkload>& workloads, int k) {
  WeightedRatio out;
  double num = 0, den = 0;
  for (const ScoredWorkload& w : workloads) {
    if (w.latency_s.empty()) {
      ++out.left_out;
      continue;
    }
    // The best of the model's top k is the 1st best of its top-k cut.
    num += w.weight * *std::min_element(w.latency_s.begin(), w.latency_s.end());
    den += w.weight * ExpectedKthBestOfTop(w.latency_s, w.score, k, 1);
    ++out.workloads;
  }
  out.value = out.workloads > 0 ? num / den : kNaN;
  return out;
}

DrawStats RandomDraftBestK(const std::vector<ScoredWorkload>& workloads,
                           const std::vector<int>& spec_sizes, int k, int draws, uint64_t seed) {
  DrawStats out;
  out.draws = draws;
  std::vector<const ScoredWorkload*> used;
  std::vector<int> sizes;
  double num = 0;
  for (size_t i = 0; i < workloads.size(); ++i) {
    const ScoredWorkload& w = workloads[i];
    const int m = ClippedSize(spec_sizes[i], static_cast<int>(w.latency_s.size()));
    if (k < 1 || m < k) {
      ++out.left_out;
      continue;
    }
    used.push_back(&w);
    sizes.push_back(m);
    num += w.weight * *std::min_element(w.latency_s.begin(), w.latency_s.end());
  }
  out.workloads = static_cast<int>(used.size());
  if (used.empty() || draws <= 0) {
    out.mean = out.stddev = kNaN;
    return out;
  }
  std::mt19937_64 rng(seed);
  std::vector<std::vector<double>> pools;
  for (const ScoredWorkload* w : used) pools.push_back(w->latency_s);
  double sum = 0, sum_sq = 0;
  for (int d = 0; d < draws; ++d) {
    double den = 0;
    for (size_t i = 0; i < used.size(); ++i) {
      std::vector<double>& pool = pools[i];
      const int n = static_cast<int>(pool.size());
      const int m = sizes[i];
      // Partial Fisher-Yates: pool[0, m) becomes a uniform m-subset.
      for (int t = 0; t < m; ++t) {
        std::uniform_int_distribution<int> pick(t, n - 1);
        std::swap(pool[t], pool[pick(rng)]);
      }
      std::nth_element(pool.begin(), pool.begin() + (k - 1), pool.begin() + m);
      den += used[i]->weight * pool[k - 1];
    }
    const double score = num / den;
    sum += score;
    sum_sq += score * score;
  }
  out.mean = sum / draws;
  out.stddev = std::sqrt(std::max(0.0, sum_sq / draws - out.mean * out.mean));
  return out;
}

}  // namespace pruner::dataset
