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

// One candidate of a batch; the pointers must outlive the call.
struct CudaRunItem {
  const Program* program = nullptr;
  const CudaModuleSource* module = nullptr;
  const std::string* image = nullptr;  // PTX
  const std::vector<Tensor>* inputs = nullptr;
  const std::vector<Tensor>* expected = nullptr;
};

// Like RunCudaModuleSandboxed for each item, in order, but sharing sandbox
// children: one child opens the device once (CUDA initialization costs
// ~0.3 s per process) and runs the items one after another, replying after
// each. A child whose item fails to launch (CUDA errors are sticky to the
// context), crashes or outlives run_timeout_s ends there; that item gets
// the failure and a fresh child takes the next. One outcome per item;
// wall_s is the time from the previous item's reply.
std::vector<RunOutcome> RunCudaModulesSandboxed(const std::vector<CudaRunItem>& items,
                                                const MeasureOptions& options);

}  // namespace pruner

#endif  // PRUNER_COMMON_MEASURE_CUDA_RUNNER_SANDBOXED_H_
