// CUDA C source for a lowered GPU program (common/lower/program.h).
//
// Each Kernel becomes one
//   extern "C" __global__ void __launch_bounds__(threads) name(float* __restrict__ ...)
// whose parameters are the global buffers the kernel touches (read-only ones
// as `const float*`), in buffer-id order. Shared buffers are declared once at
// the top of the kernel (`__shared__ __align__(16) float s[n]`), local
// buffers as per-thread arrays at their Allocate (the compiler keeps them in
// registers when every index is constant after unrolling). Thread-binding
// loops read blockIdx/threadIdx, guarded when their extent is below the
// launch dimension; Barrier statements become __syncthreads().
//
// vthread loops are emitted as fully unrolled serial loops around their
// body, exactly as lowered (program.h): statements that do not depend on
// the vthread variable (a shared fetch attached inside it) run once per
// virtual thread. That is correct (each run stores the same values, between
// the same barriers) but repeats work; hoisting them out, as TVM's
// InjectVirtualThread does, is a later optimization.
//
// Unroll pragmas: kUnrolled and kVectorized loops get `#pragma unroll`;
// below a loop carrying auto_unroll_max_step=N, every serial loop whose
// whole nest runs at most N statements gets it too (TVM's UnrollLoop rule).
#ifndef PRUNER_COMMON_CODEGEN_CUDA_CODEGEN_H_
#define PRUNER_COMMON_CODEGEN_CUDA_CODEGEN_H_

#include <array>
#include <cstdint>
#include <string>
#include <vector>

#include "absl/status/statusor.h"
#include "common/device/device_profile.h"
#include "common/lower/program.h"

namespace pruner {

struct CudaKernelSource {
  std::string name;  // the extern "C" symbol
  std::array<int64_t, 3> grid = {1, 1, 1};
  std::array<int64_t, 3> block = {1, 1, 1};
  int64_t shared_bytes = 0;  // static __shared__ bytes declared by the kernel
  // Program buffer ids passed as the kernel's parameters, in order.
  std::vector<int> params;

  int64_t threads_per_block() const { return block[0] * block[1] * block[2]; }
};

struct CudaModuleSource {
  std::string source;  // one translation unit, no #include
  std::vector<CudaKernelSource> kernels;  // Program::kernels order
};

// Fails with Unimplemented for programs CUDA C cannot express yet (float16
// buffers, buffers of 2^31 or more elements, a barrier below a partial
// thread binding) and InvalidArgument for non-GPU programs.
absl::StatusOr<CudaModuleSource> GenerateCudaSource(const Program& program,
                                                    const DeviceProfile& device);

}  // namespace pruner

#endif  // PRUNER_COMMON_CODEGEN_CUDA_CODEGEN_H_
