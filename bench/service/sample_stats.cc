#include "bench/service/sample_stats.h"

#include <algorithm>
#include <cmath>
#include <numeric>

namespace pruner::bench {

double Percentile(std::vector<double> values, double q) {
  if (values.empty()) return 0;
  std::sort(values.begin(), values.end());
  const double rank = std::ceil(q * static_cast<double>(values.size()));
  const size_t index = rank < 1 ? 0 : static_cast<size_t>(rank) - 1;
  return values[std::min(index, values.size() - 1)];
}

double Mean(const std::vector<double>& values) {
  if (values.empty()) return 0;
  return std::accumulate(values.begin(), values.end(), 0.0) / static_cast<double>(values.size());
}

double StepwiseRate(const std::vector<CountSample>& samples) {
  if (samples.size() < 2) return 0;
  // Index of the sample at which each step was first seen.
  std::vector<size_t> steps;
  for (size_t i = 1; i < samples.size(); ++i) {
    if (samples[i].count > samples[i - 1].count) steps.push_back(i);
  }
  const CountSample* from = &samples.front();
  const CountSample* to = &samples.back();
  if (steps.size() >= 2) {
    from = &samples[steps.front()];
    to = &samples[steps.back()];
  }
  const double dt = to->t_s - from->t_s;
  return dt > 0 ? static_cast<double>(to->count - from->count) / dt : 0;
}

}  // namespace pruner::bench
