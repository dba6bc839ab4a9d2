// CPU code generation: a lowered CPU Program -> one self-contained C++
// translation unit with one exported entry point.
//
// The entry point is
//   extern "C" int <symbol>(float* const* args);
// where args holds the program's input buffers then its output buffers, in
// Program::inputs / Program::outputs order, each 64-byte aligned and
// row-major (every dtype is stored as float, as common/ir Tensors are), with
// kCpuReadSlackBytes of readable memory before and after it. It returns 0, or
// kCpuErrorOutOfMemory when a heap allocation failed (the outputs are then
// undefined).
//
// Why the slack: the compiler's vector code may load, and discard, lanes just
// outside a buffer. GCC 12 on x86 expands a masked load whose mask is a
// compile-time constant (a padding read `k >= 1 ? in[k - 1] : 0` in a fully
// unrolled vector loop) into a full-width load and a blend, so the masked-off
// lanes are read anyway; with -march=sapphirerapids that put MobileNet's
// padded depthwise convs a few floats past their input's end, onto the
// measurement's guard page (SIGSEGV). Such a load always holds at least one
// lane that is read for real, so it strays less than one vector from the
// buffer. Heap buffers the kernel allocates itself have the same slack.
//
// How the loop kinds come out:
// - parallel: `#pragma omp parallel for` (the unit is built with -fopenmp);
// - vectorized: a constant-trip loop over restrict, assume-aligned pointers,
//   with `#pragma omp simd` when every store in it writes a distinct element
//   per iteration (otherwise the assertion could be false, e.g. a reduce
//   loop, and the compiler is left to prove what it can);
// - unrolled: `#pragma GCC unroll <extent>`; a loop carrying
//   auto_unroll_max_step=N unrolls every serial loop in its scope (itself
//   included) whose step count (TVM's: stores, times loop extents) is <= N;
// - vthread and serial: plain loops.
// Root intermediates are aligned heap allocations freed before returning;
// attached buffers (cache and compute_at stages) are alignas(64) stack arrays
// up to kCpuMaxStackBufferBytes and scoped heap buffers above that.
#ifndef PRUNER_COMMON_CODEGEN_CPU_CODEGEN_H_
#define PRUNER_COMMON_CODEGEN_CPU_CODEGEN_H_

#include <cstdint>
#include <string>

#include "absl/status/statusor.h"
#include "common/device/device_profile.h"
#include "common/lower/program.h"

namespace pruner {

inline constexpr int kCpuErrorOutOfMemory = 2;
// Readable bytes every buffer needs before and after its data: one 512-bit
// vector (see the top of this file).
inline constexpr int64_t kCpuReadSlackBytes = 64;
// Larger attached buffers go to the heap: OpenMP worker threads may run on
// stacks of a few MiB, and a tile that big gains nothing from the stack.
inline constexpr int64_t kCpuMaxStackBufferBytes = 32 * 1024;

struct CpuKernelSource {
  std::string symbol;  // the exported entry point
  std::string code;    // the translation unit
  int num_inputs = 0;
  int num_outputs = 0;
  // Resource summary: bytes of stack arrays (summed over all, an upper bound
  // of what one thread holds) and of heap buffers (root intermediates plus
  // attached heap buffers, one copy each).
  int64_t stack_bytes = 0;
  int64_t heap_bytes = 0;
};

// The symbol is "pruner_cpu_<hash>" with a hash of the program text, so equal
// programs get equal names and different ones (almost surely) different
// names. Fails (InvalidArgument) on programs that are not CPU programs
// (thread bindings, barriers, several kernels) or are malformed (variables
// outside their loop, wrong index ranks).
absl::StatusOr<CpuKernelSource> GenerateCpuSource(const Program& program,
                                                  const DeviceProfile& device);

}  // namespace pruner

#endif  // PRUNER_COMMON_CODEGEN_CPU_CODEGEN_H_
