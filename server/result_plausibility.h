// What the server believes of a worker's report. A worker holds the farm's
// credentials, so its numbers are claims: a result that cannot be true of
// the program on the target (non-finite, faster than the device can
// compute, slower than the run timeout the worker enforces) is refused
// before it reaches the records database, and the refusal is the worker's
// fault, never the program's (dispatcher.h re-queues the candidate).
#ifndef PRUNER_SERVER_RESULT_PLAUSIBILITY_H_
#define PRUNER_SERVER_RESULT_PLAUSIBILITY_H_

#include <cstddef>

#include "absl/status/status.h"
#include "pruner/v1/types.pb.h"

namespace pruner {

// What a batch's results are checked against.
struct PlausibilityLimits {
  double flops = 0;          // per call of the workload; 0: not checked
  double peak_gflops = 0;    // the target's fp32 peak; 0: not checked
  double run_timeout_s = 0;  // the run deadline the worker applies; 0: the default (10 s)
};

// A call may beat the profile's peak by this factor before it is refused:
// profiles estimate peaks (boost clocks, FMA units), and a tuned kernel
// never exceeds its device's real peak.
inline constexpr double kPeakMargin = 2.0;
// Stored text fields are cut to these lengths (a worker's message is
// evidence, not storage).
inline constexpr size_t kMaxResultMessageBytes = 4096;
inline constexpr size_t kMaxResultFieldBytes = 256;  // phase, measured_by
inline constexpr int kMaxRepeatCosts = 1024;

// Ok, or FailedPrecondition naming what cannot be true. Cuts the message,
// phase and measured_by of `result` to the limits above (that alone never
// refuses a result).
absl::Status CheckPlausible(const PlausibilityLimits& limits, v1::MeasureResult* result);

}  // namespace pruner

#endif  // PRUNER_SERVER_RESULT_PLAUSIBILITY_H_
