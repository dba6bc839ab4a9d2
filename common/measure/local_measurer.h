// Measures a batch of schedules on this machine: lower -> codegen ->
// parallel builds -> sandboxed runs one at a time -> correctness check ->
// raw repeat times.
//
// Pipeline per input (the error class and phase of each failure in
// parentheses):
// 1. State::Replay of the steps, then Lower (kInvalidSchedule, "lower").
// 2. GenerateCpuSource / GenerateCudaSource (kInvalidSchedule for programs
//    the generator rejects as not runnable, kBuildError otherwise;
//    "codegen").
// 3. CPU: BuildPool with max_parallel_builds compilers, each under
//    build_timeout_s (kBuildError, kBuildTimeout, or kInvalidSchedule for
//    resource checks; "build"). GPU: NVRTC to PTX for the profile's compute
//    capability (kBuildError; "build").
// 4. Runs, strictly one after another so that timings never overlap, each in
//    a sandbox child with deadline run_timeout_s (kRunError, kRunTimeout;
//    "run"), checked against the reference executor on the same random
//    non-zero inputs, computed once per workload (kWrongResult; "check").
// GPU inputs on a machine where the driver or a device is missing all get
// kDeviceError with the driver's message ("no CUDA driver: ...",
// "no CUDA device"). Nothing here aborts or kills the calling process.
//
// Runs fork the caller (see sandbox.h): the caller should not have run
// OpenMP kernels or initialized CUDA in its own process. Runs are serialized
// process-wide (concurrent MeasureBatch calls build in parallel but never
// time at the same moment); other processes on the machine still add noise.
#ifndef PRUNER_COMMON_MEASURE_LOCAL_MEASURER_H_
#define PRUNER_COMMON_MEASURE_LOCAL_MEASURER_H_

#include <vector>

#include "common/measure/measure_types.h"

namespace pruner {

// One result per input, in order.
std::vector<MeasureResult> MeasureBatch(const std::vector<MeasureInput>& inputs,
                                        const MeasureOptions& options);

}  // namespace pruner

#endif  // PRUNER_COMMON_MEASURE_LOCAL_MEASURER_H_
