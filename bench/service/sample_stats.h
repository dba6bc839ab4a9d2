// Small statistics over samples: percentiles and means, nothing else.
#ifndef PRUNER_BENCH_SERVICE_SAMPLE_STATS_H_
#define PRUNER_BENCH_SERVICE_SAMPLE_STATS_H_

#include <cstdint>
#include <vector>

namespace pruner::bench {

// Nearest-rank percentile, q in [0, 1]; 0 for no samples. Takes a copy: it
// sorts.
double Percentile(std::vector<double> values, double q);
double Mean(const std::vector<double>& values);

// A counter read at a time (seconds from any fixed origin).
struct CountSample {
  double t_s = 0;
  int64_t count = 0;
};

// The rate of a counter that grows in steps, from samples in time order:
// the growth between the first and the last step seen, over the time
// between them. For steps of B every P seconds that is B / P whatever the
// phase, where the difference of the window's ends would be off by up to
// B / window. With fewer than two steps, the ends' difference.
double StepwiseRate(const std::vector<CountSample>& samples);

}  // namespace pruner::bench

#endif  // PRUNER_BENCH_SERVICE_SAMPLE_STATS_H_
