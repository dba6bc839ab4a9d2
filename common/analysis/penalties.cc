// Penalty formulas. Quantization uses the paper's x / (ceil(x / u) * u):
// the share of u parallel units that x equal pieces of work keep busy over
// the waves they need.
//
// GPU (paper; T = S4 threads, G = S6 blocks, warps = ceil(T / warp)):
//   P_l0,c = 1 / (1 + 1 / (1 + S2 / MemWorkload))  (the code's bounded
//            thread_pen; the paper's literal 1 + S2/S1 grows without bound)
//   P_l1,c = warps / (ceil(warps / schedulers) * schedulers)
//   alpha  = T / (warps * warp)
//   P_l2,c = G / (ceil(G / (SMs * active)) * SMs * active)
//   P_l0,m = min(reg_cap / S1_kernel, 1): S1_kernel is the largest S1 of the
//            kernel's compute rows; spilled registers slow every transfer
//            the kernel makes
//   P_l1,m = min(m_l1 / S3, 1), m_l1 = shared memory per SM / the blocks
//            that its thread slots could hold (min(max blocks, max threads
//            / T)): a block that uses more lowers occupancy and with it
//            latency hiding. (The shared capacity of one block is a
//            validity check in lowering, so a capacity of 48 KiB would
//            never bind.)
//   P_l2,m = S7 / (ceil(S7 / sector) * sector)
// GPU (code, fold_warp_scheduling_into_grid): P_l1,c = 1 and P_l2,c =
//   peak_pen of ../shared/specs/pruner.md §2.5; alpha is the code's warp_pen.
//
// CPU (S4 = vectorized extent, S6 = parallel iterations):
//   P_l0,c = as on GPUs, over the register window (cpu_symbols.cc)
//   P_l1,c = min(chains / (FMA pipes x FMA latency), 1), chains = the
//            register tile's accumulators / the vector width it uses: a
//            reduction keeps the pipes busy only with that many
//            independent accumulators. 1 without a reduction.
//   alpha  = S4 / (ceil(S4 / lanes) * lanes): a scalar loop uses one lane
//   P_l2,c = S6 / (ceil(S6 / cores) * cores)
//   P_l0,m = min(vector registers x lanes / S1, 1)
//   P_l1,m = min(L1 / S3, 1)
//   P_l2,m = S7 / (ceil(S7 / line) * line)
#include "common/analysis/penalties.h"

#include <algorithm>
#include <cmath>

#include "absl/strings/str_format.h"

namespace pruner {
namespace {

double Quantized(double work, double units) {
  if (work <= 0 || units <= 0) return 1;
  return work / (std::ceil(work / units) * units);
}

double CapacityRatio(double capacity, double used) {
  if (used <= 0 || capacity <= 0) return 1;
  return std::min(capacity / used, 1.0);
}

// thread_pen of the code, as a utilization.
double ReusePenalty(const BufferSymbols& row) {
  double reuse = 1;
  if (row.reuse_flops > 0 && row.reuse_elements > 0) reuse = 1 + row.reuse_flops / row.reuse_elements;
  return 1 / (1 + 1 / reuse);
}

// The code's peak_pen (../shared/specs/pruner.md §2.5).
double CodePeakPenalty(double blocks, double warps, const MachineParams& m) {
  double units, total;
  if (blocks >= m.l2_units) {  // sm_nums x active_blocks_per_sm
    units = blocks;
    total = m.l2_units;
  } else {
    units = blocks * std::min<double>(warps, m.l1_units);
    total = static_cast<double>(m.l1_units) * m.sm_count;
  }
  return Quantized(units, total);
}

void GpuPenalties(const BufferSymbols& row, const KernelSymbols& kernel, const MachineParams& m,
                  const AnalyzerOptions& options, RowPenalties* p) {
  const double threads = std::max(row.s4_l1_parallel, 1.0);
  const double warps = std::ceil(threads / m.l1_width);
  if (options.enabled(Penalty::kL0Compute)) p->l0_compute = ReusePenalty(row);
  if (options.enabled(Penalty::kL1Compute)) {
    p->l1_waste = threads / (warps * m.l1_width);
    if (!options.fold_warp_scheduling_into_grid) p->l1_compute = Quantized(warps, m.l1_units);
  }
  if (options.enabled(Penalty::kL2Compute)) {
    p->l2_compute = options.fold_warp_scheduling_into_grid
                        ? CodePeakPenalty(row.s6_l2_parallel, warps, m)
                        : Quantized(row.s6_l2_parallel, m.l2_units);
  }
  if (options.register_penalty_on_compute && row.s1_registers >= m.register_capacity) {
    p->register_divisor = row.s1_registers / m.register_capacity;
  }
  if (options.enabled(Penalty::kL0Memory)) {
    p->l0_memory = CapacityRatio(m.register_capacity, kernel.max_registers);
  }
  if (options.enabled(Penalty::kL1Memory)) {
    const double blocks_per_sm = std::max<double>(
        1, std::min<double>(m.max_blocks_per_sm, std::floor(m.max_threads_per_sm / threads)));
    p->l1_memory = CapacityRatio(m.shared_bytes_per_sm / blocks_per_sm, row.s3_l1_bytes);
  }
  if (options.enabled(Penalty::kL2Memory)) {
    p->l2_memory = Quantized(row.s7_transfer_bytes, m.transaction_bytes);
  }
}

void CpuPenalties(const BufferSymbols& row, const MachineParams& m, const AnalyzerOptions& options,
                  RowPenalties* p) {
  const double lanes = m.l1_width;
  const double vector = std::max(row.s4_l1_parallel, 1.0);
  if (options.enabled(Penalty::kL0Compute)) p->l0_compute = ReusePenalty(row);
  if (options.enabled(Penalty::kL1Compute)) {
    p->l1_waste = vector / (std::ceil(vector / lanes) * lanes);
    if (row.register_tile_outputs > 0) {
      const double chains = std::ceil(row.register_tile_outputs / std::min(vector, lanes));
      p->l1_compute = std::min(chains / m.l1_units, 1.0);
    }
  }
  if (options.enabled(Penalty::kL2Compute)) p->l2_compute = Quantized(row.s6_l2_parallel, m.l2_units);
  if (options.register_penalty_on_compute && row.s1_registers >= m.register_capacity) {
    p->register_divisor = row.s1_registers / m.register_capacity;
  }
  if (options.enabled(Penalty::kL0Memory)) {
    p->l0_memory = CapacityRatio(m.register_capacity, row.s1_registers);
  }
  if (options.enabled(Penalty::kL1Memory)) {
    p->l1_memory = CapacityRatio(static_cast<double>(m.l1_cache_bytes), row.s3_l1_bytes);
  }
  if (options.enabled(Penalty::kL2Memory)) {
    p->l2_memory = Quantized(row.s7_transfer_bytes, m.transaction_bytes);
  }
}

}  // namespace

RowPenalties ComputePenalties(const BufferSymbols& row, const KernelSymbols& kernel,
                              const MachineParams& machine, const AnalyzerOptions& options) {
  RowPenalties p;
  if (machine.kind == DeviceKind::kGpu) {
    GpuPenalties(row, kernel, machine, options, &p);
  } else {
    CpuPenalties(row, machine, options, &p);
  }
  return p;
}

std::string RowPenalties::ToString() const {
  return absl::StrFormat(
      "P_l0,c=%.3g P_l1,c=%.3g alpha=%.3g P_l2,c=%.3g reg_div=%.3g | P_l0,m=%.3g P_l1,m=%.3g "
      "P_l2,m=%.3g",
      l0_compute, l1_compute, l1_waste, l2_compute, register_divisor, l0_memory, l1_memory,
      l2_memory);
}

}  // namespace pruner
