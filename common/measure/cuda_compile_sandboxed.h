// NVRTC in a sandbox child.
//
// Why not in the measuring process: NVRTC 13's nvrtcCompileProgram loads
// libcuda and opens the device (seen on an H100 with driver 580.159: after
// one compile in a process, /dev/nvidia0 and libcuda are mapped there, and a
// child forked afterwards gets CUDA_ERROR_NOT_INITIALIZED from cuInit). Every
// GPU run happens in a forked child (cuda_runner_sandboxed.h), so one
// in-process compile would leave the process unable to run a single kernel.
// A compiling child also takes a crash or hang of the compiler with it.
#ifndef PRUNER_COMMON_MEASURE_CUDA_COMPILE_SANDBOXED_H_
#define PRUNER_COMMON_MEASURE_CUDA_COMPILE_SANDBOXED_H_

#include <string>
#include <string_view>

#include "absl/status/statusor.h"
#include "common/codegen/cuda_codegen.h"
#include "common/codegen/cuda_nvrtc.h"

namespace pruner {

// CompileCuda(module, arch, timeout_s) run in a forked child. The result
// carries the PTX, NVRTC's log and compile time (no cubin). Errors keep
// CompileCuda's codes; a child that dies or outlives timeout_s (plus a
// second for the fork) is an Internal or DeadlineExceeded "build error".
absl::StatusOr<CompiledCuda> CompileCudaSandboxed(const CudaModuleSource& module,
                                                  std::string_view arch, double timeout_s);

// The child's reply, exposed for tests.
std::string EncodeCompiledCuda(const absl::StatusOr<CompiledCuda>& compiled);
absl::StatusOr<CompiledCuda> DecodeCompiledCuda(std::string_view bytes);

}  // namespace pruner

#endif  // PRUNER_COMMON_MEASURE_CUDA_COMPILE_SANDBOXED_H_
