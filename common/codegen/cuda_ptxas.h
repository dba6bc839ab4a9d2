// Per-kernel resource report for generated CUDA: ptxas -v assembles the PTX
// for the real architecture and says how many registers, how much static
// shared memory, stack and spill each kernel needs, and how large the cubin
// is. The numbers are checked against the device, so a schedule whose
// kernel cannot launch (too many registers for its block, too much shared
// memory) is reported as an invalid schedule instead of failing at launch.
#ifndef PRUNER_COMMON_CODEGEN_CUDA_PTXAS_H_
#define PRUNER_COMMON_CODEGEN_CUDA_PTXAS_H_

#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

#include "absl/status/statusor.h"
#include "common/codegen/cuda_codegen.h"
#include "common/device/device_profile.h"

namespace pruner {

struct KernelResources {
  std::string name;
  int registers = 0;           // per thread
  int64_t shared_bytes = 0;    // static shared memory per block
  int64_t stack_bytes = 0;     // stack frame per thread (local memory)
  int64_t spill_store_bytes = 0;
  int64_t spill_load_bytes = 0;
  int barriers = 0;
};

struct CudaResourceReport {
  std::string gpu_name;  // "sm_80"
  std::vector<KernelResources> kernels;  // in ptxas's order
  int64_t cubin_bytes = 0;  // size of the assembled binary

  const KernelResources* Find(std::string_view kernel) const;
};

// Parses `ptxas -v` output. Entry functions with no "Used ..." line are
// still listed (all counts zero).
CudaResourceReport ParsePtxasOutput(std::string_view text);

// Runs `ptxas -v --gpu-name <gpu_name> -O3` on the PTX in a child process.
// ptxas refusing the kernel for shared memory over the architecture's
// static limit is InvalidArgument "invalid schedule: ..."; other ptxas
// failures are Internal "build error: ptxas: <its output>"; a missing ptxas
// is FailedPrecondition.
absl::StatusOr<CudaResourceReport> RunPtxas(std::string_view ptx, std::string_view gpu_name,
                                            double timeout_s = 60);

// InvalidArgument "invalid schedule: kernel <name>: ..." when a kernel of
// `module` needs more registers for its block than the device has
// (allocated per warp in units of 256, as the hardware does), more
// registers per thread than allowed, or more shared memory per block.
absl::Status CheckKernelResources(const CudaResourceReport& report, const CudaModuleSource& module,
                                  const DeviceProfile& device);

}  // namespace pruner

#endif  // PRUNER_COMMON_CODEGEN_CUDA_PTXAS_H_
