// Compiling generated CUDA C with NVRTC, loaded at run time.
//
// libnvrtc is found with dlopen (libnvrtc.so.13, .so.12, .so, then the
// toolkit folders), never linked, so binaries start on machines without the
// toolkit and say "NVRTC not found" when asked to compile. No CUDA header is
// needed either: the handful of NVRTC types are declared in the .cc.
//
// Error classes (the prefix of the message, like lowering's "invalid
// schedule:"):
//   FailedPrecondition "NVRTC not found: ..."   no usable libnvrtc
//   Internal           "build error: ..."       NVRTC rejected the source; the
//                                               message carries its log
//   DeadlineExceeded   "build error: NVRTC timed out ..."
//   InvalidArgument    bad architecture text
#ifndef PRUNER_COMMON_CODEGEN_CUDA_NVRTC_H_
#define PRUNER_COMMON_CODEGEN_CUDA_NVRTC_H_

#include <string>
#include <string_view>

#include "absl/status/statusor.h"
#include "common/codegen/cuda_codegen.h"

namespace pruner {

// A target: the virtual architecture NVRTC compiles for ("compute_80") and
// the real one ptxas and the driver see ("sm_80").
struct CudaArch {
  int number = 0;  // 80, 86, 90 ...
  char suffix = 0;  // 'a' or 'f' for arch-specific targets (sm_90a), else 0
  bool real = false;  // asked for sm_XX: NVRTC produces a cubin too

  std::string compute_name() const;  // "compute_80"
  std::string sm_name() const;       // "sm_80"
};
// Accepts "compute_80", "sm_80", "sm_90a", "80" and "8.0".
absl::StatusOr<CudaArch> ParseCudaArch(std::string_view text);

struct CompiledCuda {
  CudaArch arch;
  std::string ptx;
  std::string cubin;  // only for real (sm_XX) targets
  std::string log;    // NVRTC's log, often empty on success
  double compile_ms = 0;
};

struct NvrtcInfo {
  std::string library;  // the path dlopen resolved
  int major = 0;
  int minor = 0;
};

// Loads NVRTC once per process (thread-safe); later calls return the same
// answer.
absl::StatusOr<NvrtcInfo> LoadNvrtc();

// Compiles the module for `arch` ("compute_80" gives PTX, "sm_80" PTX and a
// cubin) with -default-device and the module's own no-header source. When
// NVRTC runs past timeout_s the call returns DeadlineExceeded and the compile
// is left to finish on a detached thread (NVRTC cannot be interrupted).
absl::StatusOr<CompiledCuda> CompileCuda(const CudaModuleSource& module, std::string_view arch,
                                         double timeout_s = 60);

}  // namespace pruner

#endif  // PRUNER_COMMON_CODEGEN_CUDA_NVRTC_H_
