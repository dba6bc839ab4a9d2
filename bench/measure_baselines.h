// Baselines for the benchmarks, run in the same process as the generated
// kernels: the machine's fp32 FMA peak (a register-only microkernel on every
// core), OpenBLAS sgemm and oneDNN's direct convolution. Each library is
// optional at build time (PRUNER_BENCH_HAVE_OPENBLAS / _ONEDNN); a missing
// one reports available = false.
#ifndef PRUNER_BENCH_MEASURE_BASELINES_H_
#define PRUNER_BENCH_MEASURE_BASELINES_H_

#include <chrono>
#include <functional>
#include <string>
#include <vector>

#include "common/ir/tensor.h"

namespace pruner::bench {

using Clock = std::chrono::steady_clock;

// Seconds elapsed since `t`.
inline double Since(Clock::time_point t) {
  return std::chrono::duration<double>(Clock::now() - t).count();
}

// The 1-minute load average (-1 when unknown): above ~0.5 other work is
// running and every number a benchmark prints drops.
double LoadAverage();

struct FmaPeak {
  double gflops = 0;        // best of the variants, all threads
  double gflops_zmm = 0;    // 512-bit FMAs (0 when the CPU has no AVX-512F)
  double gflops_ymm = 0;    // 256-bit FMAs (0 without FMA/AVX2)
  int threads = 0;
};
// Runs the microkernel on `threads` threads for about `seconds` per variant.
FmaPeak MeasureFmaPeak(int threads, double seconds);

struct BaselineResult {
  bool available = false;
  std::string name;     // what ran, e.g. "OpenBLAS 0.3.21 sgemm NT"
  std::string error;    // why it did not run / did not match
  double seconds = 0;   // best time of one call
  Tensor output;        // for the check against the reference
};

// A library kernel set up once (copies of the operands, layouts, primitives)
// and then callable any number of times, so that a benchmark can interleave
// its calls with those of generated kernels. `call` and `output` are empty
// when the library is unavailable (then `error` says why).
struct LibraryKernel {
  bool available = false;
  std::string name;
  std::string error;
  std::function<void()> call;      // one synchronous call
  std::function<Tensor()> output;  // the last call's result, in the reference layout
};

// C[M,N] = A[M,K] * (trans_b ? B[N,K]^T : B[K,N]), row-major.
LibraryKernel PrepareOpenBlasSgemm(const Tensor& a, const Tensor& b, bool trans_b);

// NCHW data x KCRS weights, symmetric padding, output NKPQ; oneDNN picks its
// preferred (blocked) layouts and the reorders into them are done here, once,
// outside every timed call (as a framework holding weights would); the
// reorder of the result back to NCHW happens in `output`.
LibraryKernel PrepareOneDnnConv2d(const Tensor& data, const Tensor& weight, int stride, int pad);

// Two warm-up calls, then the best of at least `repeats` calls and 1 s.
BaselineResult TimeLibraryKernel(const LibraryKernel& kernel, int repeats);

// Prepare + TimeLibraryKernel.
BaselineResult RunOpenBlasSgemm(const Tensor& a, const Tensor& b, bool trans_b, int repeats);
BaselineResult RunOneDnnConv2d(const Tensor& data, const Tensor& weight, int stride, int pad,
                               int repeats);

}  // namespace pruner::bench

#endif  // PRUNER_BENCH_MEASURE_BASELINES_H_
