// Re-measuring the runs' schedules together: for one workload, every
// schedule any run needs a time for is rebuilt in this process from its
// sentence (replay, lower, codegen, g++), checked against the reference
// executor, and timed interleaved with all the others (interleaved_timing.h),
// so every schedule sees the same moments of this shared machine's load.
//
// Runs OpenMP kernels in the calling thread: nothing may fork a sandbox
// child from it afterwards (inprocess_kernel.h).
#ifndef PRUNER_BENCH_SEARCH_EFFICIENCY_REMEASURE_H_
#define PRUNER_BENCH_SEARCH_EFFICIENCY_REMEASURE_H_

#include <map>
#include <string>
#include <vector>

#include "bench/inprocess_kernel.h"
#include "common/codegen/cpu_compiler.h"
#include "common/device/device_profile.h"

namespace pruner::bench {

struct RemeasuredTime {
  bool ok = false;
  std::string error;  // why it was not timed (build failure, wrong output)
  double median_s = 0;
  double min_s = 0;
};

struct RemeasureSettings {
  int rounds = 20;
  int max_parallel_builds = 2;
};

// One entry per distinct sentence of `sentences`.
std::map<std::string, RemeasuredTime> RemeasureAll(const Workload& w,
                                                   const std::vector<std::string>& sentences,
                                                   const DeviceProfile& device,
                                                   const CpuBuildOptions& build,
                                                   const std::string& dir,
                                                   const RemeasureSettings& settings);

}  // namespace pruner::bench

#endif  // PRUNER_BENCH_SEARCH_EFFICIENCY_REMEASURE_H_
