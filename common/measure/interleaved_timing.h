// Timing several kernels or models against each other on a shared machine
// (the benchmarks, and `pruner run --torchscript` against PyTorch).
//
// On these machines the same kernel's time drifts by up to ~45% over
// minutes (other tenants, frequency changes), so two best times taken at
// different moments do not compare. Interleaving puts every contender in
// every moment: each round visits each contender once (a few back-to-back
// calls, at least 20 ms of them), and the start of the round's order
// rotates so that no contender always follows the same neighbour. Two
// figures come out: the median over the rounds of each visit's best call
// (a kernel's figure: what it does in the quiet moments of each visit), and
// the median over every counted call (a model's latency as a user running
// it back to back sees it, its runtime's own idle threads included).
//
// A visit may start with a settling stretch whose calls are made but not
// counted: runtimes in one process leave threads spinning after their
// calls (OpenBLAS's workers, which PyTorch uses, yield-spin for about
// 0.1 s; OpenMP's for a few ms), and those steal cores from whichever
// contender comes next — a cost that contender would never pay alone.
#ifndef PRUNER_COMMON_MEASURE_INTERLEAVED_TIMING_H_
#define PRUNER_COMMON_MEASURE_INTERLEAVED_TIMING_H_

#include <functional>
#include <string>
#include <vector>

namespace pruner {

struct Contender {
  std::string label;
  std::function<void()> call;  // one synchronous call
};

struct InterleavedTimes {
  std::vector<double> round_s;  // per round: best of the round's counted calls
  double median_s = 0;          // of round_s
  double min_s = 0;             // of round_s
  std::vector<double> call_s;   // every counted call, in order
  std::vector<int> call_round;  // the round of each of call_s
  double median_call_s = 0;     // of call_s
};

struct InterleaveOptions {
  int rounds = 30;
  // Back-to-back calls per contender per round: at least this many, and
  // until min_visit_s passed, so that a 0.5 ms kernel is not judged by
  // 1.5 ms that a compiler on the other core happened to share.
  int calls_per_round = 3;
  double min_visit_s = 0.02;
  // Calls in the first settle_s of a visit are not counted; the counted
  // stretch still lasts min_visit_s.
  double settle_s = 0;
  int warmup = 3;           // untimed calls per contender before round 1
  // Called with the round's index before each round's first visit (a
  // probe of the machine's state: thread_round_trip.h); may be empty.
  std::function<void(int round)> before_round;
};

// A whole model against another runtime in the same process (bench/model,
// `pruner run --torchscript`): 150 ms settling outlasts OpenBLAS's ~0.1 s
// of spinning; 100 ms counted gives a few calls of even a 20 ms model.
inline constexpr double kModelSettleSeconds = 0.15;
inline constexpr double kModelVisitSeconds = 0.1;

// One result per contender, in order.
std::vector<InterleavedTimes> TimeInterleaved(const std::vector<Contender>& contenders,
                                              const InterleaveOptions& options);

// The median (mean of the middle two for an even count); 0 when empty.
double Median(std::vector<double> xs);

}  // namespace pruner

#endif  // PRUNER_COMMON_MEASURE_INTERLEAVED_TIMING_H_
