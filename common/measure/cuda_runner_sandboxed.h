// The GPU path of the measurer: every use of the CUDA driver happens in a
// sandbox child (a parent that initialized CUDA could not use it in forked
// children, and a hung or faulting kernel must not take the caller down).
// NVRTC compilation happens in the caller: it does not touch the driver.
//
// Written against the driver wrappers of common/codegen; exercised only
// where a GPU exists (on a machine without one, every GPU input is a
// kDeviceError carrying the driver's "no CUDA driver"/"no CUDA device").
#ifndef PRUNER_COMMON_MEASURE_CUDA_RUNNER_SANDBOXED_H_
#define PRUNER_COMMON_MEASURE_CUDA_RUNNER_SANDBOXED_H_

#include <string>
#include <vector>

#include "common/codegen/cuda_codegen.h"
#include "common/ir/tensor.h"
#include "common/lower/program.h"
#include "common/measure/measure_types.h"
#include "common/measure/run_reply.h"

namespace pruner {

// OK outcome when device 0 can be used; kDeviceError with the driver's
// message ("no CUDA driver: ...", "no CUDA device") otherwise. Runs in a
// child with a 30 s deadline.
RunOutcome ProbeCudaDevice();

// Loads `image` (PTX) on device 0, runs the program once, compares with
// `expected`, then times `repeat` repeats of `number` launch sequences
// (number raised until a repeat lasts min_repeat_ms, as on the CPU).
RunOutcome RunCudaModuleSandboxed(const Program& program, const CudaModuleSource& module,
                                  const std::string& image, const std::vector<Tensor>& inputs,
                                  const std::vector<Tensor>& expected,
                                  const MeasureOptions& options);

}  // namespace pruner

#endif  // PRUNER_COMMON_MEASURE_CUDA_RUNNER_SANDBOXED_H_
