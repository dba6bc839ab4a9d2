// Baselines for bench_measure, run in the same process as the generated
// kernels: the machine's fp32 FMA peak (a register-only microkernel on every
// core), OpenBLAS sgemm and oneDNN's direct convolution. Each library is
// optional at build time (PRUNER_BENCH_HAVE_OPENBLAS / _ONEDNN); a missing
// one reports available = false.
#ifndef PRUNER_BENCH_MEASURE_BASELINES_H_
#define PRUNER_BENCH_MEASURE_BASELINES_H_

#include <chrono>
#include <string>
#include <vector>

#include "common/ir/tensor.h"

namespace pruner::bench {

using Clock = std::chrono::steady_clock;

// Seconds elapsed since `t`.
inline double Since(Clock::time_point t) {
  return std::chrono::duration<double>(Clock::now() - t).count();
}

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

// C[M,N] = A[M,K] * (trans_b ? B[N,K]^T : B[K,N]), row-major.
BaselineResult RunOpenBlasSgemm(const Tensor& a, const Tensor& b, bool trans_b, int repeats);

// NCHW data x KCRS weights, symmetric padding, output NKPQ; oneDNN picks its
// preferred (blocked) layouts and the reorders into them are done once,
// outside the timed region (as a framework holding weights would).
BaselineResult RunOneDnnConv2d(const Tensor& data, const Tensor& weight, int stride, int pad,
                               int repeats);

}  // namespace pruner::bench

#endif  // PRUNER_BENCH_MEASURE_BASELINES_H_
