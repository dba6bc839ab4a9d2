// Timing several kernels against each other on a shared machine.
//
// On these machines the same kernel's time drifts by up to ~45% over
// minutes (other tenants, frequency changes), so two best times taken at
// different moments do not compare. Interleaving puts every contender in
// every moment: each round visits each contender once (the best of a few
// back-to-back calls, at least 20 ms of them), the start of the round's
// order rotates so that no contender always follows the same neighbour, and
// the median over the rounds is the figure; the minimum is the
// quiet-moment figure.
#ifndef PRUNER_BENCH_INTERLEAVED_TIMING_H_
#define PRUNER_BENCH_INTERLEAVED_TIMING_H_

#include <functional>
#include <string>
#include <vector>

namespace pruner::bench {

struct Contender {
  std::string label;
  std::function<void()> call;  // one synchronous call
};

struct InterleavedTimes {
  std::vector<double> round_s;  // per round: best of the round's calls
  double median_s = 0;
  double min_s = 0;
};

struct InterleaveOptions {
  int rounds = 30;
  // Back-to-back calls per contender per round: at least this many, and
  // until min_visit_s passed, so that a 0.5 ms kernel is not judged by
  // 1.5 ms that a compiler on the other core happened to share.
  int calls_per_round = 3;
  double min_visit_s = 0.02;
  int warmup = 3;           // untimed calls per contender before round 1
};

// One result per contender, in order.
std::vector<InterleavedTimes> TimeInterleaved(const std::vector<Contender>& contenders,
                                              const InterleaveOptions& options);

// The median (mean of the middle two for an even count); 0 when empty.
double Median(std::vector<double> xs);

}  // namespace pruner::bench

#endif  // PRUNER_BENCH_INTERLEAVED_TIMING_H_
