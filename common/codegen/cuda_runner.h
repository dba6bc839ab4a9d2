// Runs a generated CUDA module on a device: allocates every global buffer
// of the program, copies the inputs in, launches the kernels in program
// order with their recorded grid/block, and copies the outputs back. The
// check a worker makes before timing (compare with the reference), and what
// the GPU tests use.
#ifndef PRUNER_COMMON_CODEGEN_CUDA_RUNNER_H_
#define PRUNER_COMMON_CODEGEN_CUDA_RUNNER_H_

#include <string>
#include <vector>

#include "absl/status/statusor.h"
#include "common/codegen/cuda_codegen.h"
#include "common/codegen/cuda_driver.h"
#include "common/ir/tensor.h"
#include "common/lower/program.h"

namespace pruner {

struct CudaRunResult {
  std::vector<Tensor> outputs;  // Program::outputs order
  double ms_per_run = 0;        // all kernels, CUDA events; 0 unless timed
};

// `image` is the PTX or cubin of `module`; `inputs` follow Program::inputs.
// With timing_repeat > 0, the kernel sequence is then timed that many times
// (kernel by kernel, summed).
absl::StatusOr<CudaRunResult> RunCudaModule(CudaDevice& device, const Program& program,
                                            const CudaModuleSource& module,
                                            const std::string& image,
                                            const std::vector<Tensor>& inputs,
                                            int timing_repeat = 0);

}  // namespace pruner

#endif  // PRUNER_COMMON_CODEGEN_CUDA_RUNNER_H_
