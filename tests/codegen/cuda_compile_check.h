// Random GPU schedules of an operator, carried through the whole CUDA path:
// sample -> Lower -> GenerateCudaSource -> NVRTC (per architecture) ->
// ptxas resource report -> device resource check. Shared by the gtest
// (a handful per operator) and the codegen_cuda_check tool (hundreds).
#ifndef PRUNER_TESTS_CODEGEN_CUDA_COMPILE_CHECK_H_
#define PRUNER_TESTS_CODEGEN_CUDA_COMPILE_CHECK_H_

#include <cstdint>
#include <map>
#include <string>
#include <vector>

#include "absl/status/statusor.h"
#include "common/device/device_profile.h"

namespace pruner {

struct CudaCompileCheckOptions {
  int num_schedules = 5;
  uint64_t seed = 1;
  std::vector<std::string> archs = {"compute_80", "compute_90"};
  bool run_ptxas = true;  // resource report per kernel (needs ptxas)
};

struct CudaArchStats {
  int compiled = 0;        // NVRTC produced PTX
  int assembled = 0;       // ptxas accepted it and reported resources
  int resource_invalid = 0;  // CheckKernelResources said invalid schedule
  std::vector<int> registers;  // per kernel
  int64_t max_shared_bytes = 0;
  int kernels_spilling = 0;
  int64_t max_cubin_bytes = 0;
  double nvrtc_ms = 0;  // summed
};

struct CudaCompileCheckReport {
  std::string spec;
  int sampled = 0;
  int lowered = 0;
  int generated = 0;  // CUDA source produced
  std::map<std::string, CudaArchStats> per_arch;
  std::map<std::string, int> failures;  // "stage: first line of message" -> count
  std::string first_failure;            // message, sentence and source of one failure
  std::string example_source;           // the first generated module
};

// One spec per operator of the library, sized like real layers but small
// enough for hundreds of compiles.
std::vector<std::string> CudaCheckSpecs();

absl::StatusOr<CudaCompileCheckReport> CheckCudaCompile(const std::string& spec,
                                                        const DeviceProfile& device,
                                                        const CudaCompileCheckOptions& options);

}  // namespace pruner

#endif  // PRUNER_TESTS_CODEGEN_CUDA_COMPILE_CHECK_H_
