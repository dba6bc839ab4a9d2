// Where a tuning job sends its candidates to be built, run and timed. The
// in-process loop uses LocalMeasurer; the service puts worker
// leases behind the same interface (server/remote_measurer.h).
#ifndef PRUNER_COMMON_MEASURE_MEASURER_H_
#define PRUNER_COMMON_MEASURE_MEASURER_H_

#include <memory>
#include <string>
#include <vector>

#include "absl/status/statusor.h"
#include "common/measure/measure_types.h"

namespace pruner {

class Measurer {
 public:
  virtual ~Measurer() = default;
  // "local:<host>" or a worker name; recorded as StoredRecord::measured_by.
  virtual std::string Name() const = 0;
  // One result per input, in order. A program's failure is an error class
  // in its result, never an error status. An error status means the batch
  // could not be measured at all and nothing of it may be recorded:
  // Cancelled (the job was cancelled), Unavailable (the service is shutting
  // down). The caller stops the job; a resume measures the round again.
  virtual absl::StatusOr<std::vector<MeasureResult>> Measure(
      const std::vector<MeasureInput>& inputs) = 0;
};

// MeasureBatch on this machine, called from one dedicated thread that does
// nothing else.
//
// Why a thread of its own: MeasureBatch forks a sandbox child per run, and
// libgomp's thread pool belongs to the thread that ran a parallel region as
// its master. A child forked from a thread that already ran OpenMP (XGBoost
// training, LibTorch, feature extraction) inherits a pool whose threads do
// not exist there, and the generated kernel's first `omp parallel` hangs
// until the run deadline. The measurement thread never runs OpenMP, so its
// children start with a fresh pool whatever the rest of the process did.
std::unique_ptr<Measurer> MakeLocalMeasurer(const MeasureOptions& options);

}  // namespace pruner

#endif  // PRUNER_COMMON_MEASURE_MEASURER_H_
