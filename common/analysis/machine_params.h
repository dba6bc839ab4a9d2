// The device numbers Eq. 1 and the penalties read, resolved once per
// (device, options) from a DeviceProfile, with the fallbacks a profile that
// leaves a field unknown (0) needs. The analyzer runs for thousands of
// candidates per round; resolving once keeps the per-program work small.
#ifndef PRUNER_COMMON_ANALYSIS_MACHINE_PARAMS_H_
#define PRUNER_COMMON_ANALYSIS_MACHINE_PARAMS_H_

#include <cstdint>
#include <string>

#include "absl/status/statusor.h"
#include "common/analysis/analyzer_options.h"
#include "common/device/device_profile.h"

namespace pruner {

struct MachineParams {
  DeviceKind kind = DeviceKind::kGpu;
  double peak_gflops = 0;     // T_p
  double bandwidth_gbps = 0;  // T_m (CPU: for traffic that misses the core's L2)

  // L0: registers of one thread (GPU) / one core's vector register file (CPU).
  double register_capacity = 0;  // m_l0, elements

  // L1: one SM (GPU) / one core (CPU).
  int l1_width = 0;  // n_l1: warp size (GPU) / fp32 vector lanes (CPU)
  int l1_units = 0;  // pu_l1: warp schedulers per SM (GPU) / FMA chains in flight (CPU)
  // GPU: what bounds how many blocks share an SM (the m_l1 of P_l1,m).
  int64_t shared_bytes_per_sm = 0;
  int64_t max_threads_per_sm = 0;
  int64_t max_blocks_per_sm = 0;
  // CPU: private caches of one core.
  int64_t l1_cache_bytes = 0;  // m_l1 of P_l1,m
  int64_t l2_cache_bytes = 0;  // capacity of the traffic model (S5)
  // CPU: the last-level cache the cores share; traffic past L2 that fits it
  // is served there, the rest by DRAM. Equal to L2 when the profile has no
  // L3 (then everything past L2 comes from DRAM).
  int64_t l3_cache_bytes = 0;

  // L2: the whole device.
  int l2_units = 0;           // pu_l2: SMs x active blocks (GPU) / cores (CPU)
  int sm_count = 0;           // GPU
  int transaction_bytes = 0;  // n_l2: DRAM sector (GPU) / cache line (CPU)
  double clock_hz = 0;        // CPU: core clock (the issue model counts cycles)
  // CPU: a read in a select's arm is a branch in scalar code, which the
  // SLP vectorizer does not pack (LLVM's code); false: a blend (g++'s).
  bool guarded_reads_branch = true;
  // CPU: a reduction's accumulators stay in registers across the loop M
  // wherever they live, as LLVM's LICM promotes any location M does not
  // move; false (g++'s code): only when the unrolled body addresses them at
  // constant offsets (g++ scalarizes such a tile), so an accumulator whose
  // address an outer loop moves is loaded and stored at every step of M.
  bool promotes_moving_accumulators = true;
  // CPU: how a vector loop's lanes that do not fill a register are emitted:
  // one vector (LLVM, vector_pieces.h: 7 lanes are one register); true
  // (g++'s epilogue vectorization): halving vectors down to a scalar, 7
  // lanes a 4-, a 2-lane vector and a scalar, three instructions.
  bool remainder_in_halving_vectors = false;

  // Every fallback taken, for logs ("" when the profile had everything).
  std::string notes;
};

// FailedPrecondition when the profile lacks what has no sensible default
// (peak throughput; on GPUs also bandwidth and SM count).
absl::StatusOr<MachineParams> ResolveMachineParams(const DeviceProfile& device,
                                                   const AnalyzerOptions& options);

}  // namespace pruner

#endif  // PRUNER_COMMON_ANALYSIS_MACHINE_PARAMS_H_
