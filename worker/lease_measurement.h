// Measures one lease: checks what the server sent, replays each candidate's
// sentence, measures the batch with the engine's sandboxed MeasureBatch and
// turns the outcome into the CandidateResults of a report.
//
// Two kinds of failure, kept apart because the server treats them
// differently:
// - A problem with the lease itself (a workload whose text does not hash to
//   its key, a device profile that does not parse, options out of range, a
//   lease for another device) means this worker cannot measure anything: the
//   outcome has `infrastructure_error` set and no results, and the server
//   re-queues the candidates. Such candidates are never recorded as bad
//   programs.
// - A problem with one candidate (a sentence that does not parse, a
//   schedule that fails to lower, build, run or check) is that candidate's
//   result, with its error class and phase; the others are measured.
//
// Candidates are measured in chunks of `build_jobs` (the builds of a chunk
// still run in parallel), and `keep_going` is asked
// before each chunk, so a revoked lease or a stopping worker costs at most
// one chunk of extra work.
#ifndef PRUNER_WORKER_LEASE_MEASUREMENT_H_
#define PRUNER_WORKER_LEASE_MEASUREMENT_H_

#include <functional>
#include <string>
#include <vector>

#include "common/measure/measure_types.h"
#include "pruner/v1/worker_service.pb.h"

namespace pruner {

struct LeaseMeasurementContext {
  std::string worker_name;  // becomes each result's measured_by
  // The key this worker registered; a lease for another device is refused
  // as an infrastructure error (its results would be keyed wrongly).
  std::string device_key;
  std::string work_dir;  // MeasureOptions::work_dir ("" = fresh per batch)
  // Compilers run at once (MeasureOptions::max_parallel_builds): a property
  // of this host, not of the job, so the lease does not carry it.
  int build_jobs = MeasureOptions{}.max_parallel_builds;
  // How this host builds CPU kernels (backend, compiler, -march): also a
  // property of the host (an Arm board builds with its own compiler).
  CpuBuildOptions cpu_build;
};

struct LeaseMeasurement {
  // One per candidate decided, in the lease's order: all of them unless
  // abandoned.
  std::vector<v1::CandidateResult> results;
  std::string infrastructure_error;  // non-empty: nothing was measured
  bool abandoned = false;            // keep_going() said stop first
};

LeaseMeasurement MeasureLease(const v1::Lease& lease, const LeaseMeasurementContext& context,
                              const std::function<bool()>& keep_going);

}  // namespace pruner

#endif  // PRUNER_WORKER_LEASE_MEASUREMENT_H_
