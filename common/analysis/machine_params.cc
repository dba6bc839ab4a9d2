#include "common/analysis/machine_params.h"

#include <algorithm>

#include "absl/strings/match.h"
#include "absl/strings/str_cat.h"

namespace pruner {
namespace {

// Picks `value` when known (> 0), else `fallback`, noting the fallback.
template <typename T>
T Known(T value, T fallback, const char* what, std::string* notes) {
  if (value > 0) return value;
  absl::StrAppend(notes, notes->empty() ? "" : "; ", what, " unknown, assumed ", fallback);
  return fallback;
}

// Architectural vector registers of the ISA: 32 zmm with AVX-512, 32 with
// NEON/SVE, 16 for SSE/AVX/AVX2 and anything unknown.
int VectorRegisters(const std::string& isa) {
  if (isa == "avx512f" || isa == "neon") return 32;
  return 16;
}

// Cycles an FMA result takes before a dependent FMA can use it (4 on
// Skylake to Zen 4 and on recent Arm cores). A core keeps all its FMA pipes
// busy only with latency x pipes independent accumulation chains.
constexpr int kFmaLatencyCycles = 4;

absl::StatusOr<MachineParams> ResolveGpu(const DeviceProfile& d) {
  MachineParams m;
  m.kind = DeviceKind::kGpu;
  if (d.peak_gflops <= 0 || d.mem_bandwidth_gbps <= 0 || d.sm_count <= 0) {
    return absl::FailedPreconditionError(absl::StrCat(
        "symbol analyzer: GPU profile ", d.name,
        " needs peak_gflops, mem_bandwidth_gbps and sm_count"));
  }
  m.peak_gflops = d.peak_gflops;
  m.bandwidth_gbps = d.mem_bandwidth_gbps;
  // Pruner's PSAModelInternal defaults (../shared/specs/pruner.md §1.1).
  m.register_capacity = Known(d.reg_cap, 128, "reg_cap", &m.notes);
  m.l1_width = Known(d.warp_size, 32, "warp_size", &m.notes);
  m.l1_units = Known(d.sm_partitions, 4, "sm_partitions", &m.notes);
  m.sm_count = d.sm_count;
  m.l2_units = d.sm_count * Known(d.active_blocks_per_sm, 1, "active_blocks_per_sm", &m.notes);
  m.transaction_bytes = Known(d.dram_transaction_bytes, 32, "dram_transaction_bytes", &m.notes);
  const int64_t per_block = Known<int64_t>(d.max_shared_memory_per_block, 48 * 1024,
                                           "max_shared_memory_per_block", &m.notes);
  m.shared_bytes_per_sm = Known(d.shared_memory_per_sm, per_block, "shared_memory_per_sm", &m.notes);
  m.max_threads_per_sm = Known<int64_t>(d.max_threads_per_sm, 2048, "max_threads_per_sm", &m.notes);
  m.max_blocks_per_sm = Known<int64_t>(d.max_blocks_per_sm, 32, "max_blocks_per_sm", &m.notes);
  return m;
}

absl::StatusOr<MachineParams> ResolveCpu(const DeviceProfile& d, const AnalyzerOptions& options) {
  MachineParams m;
  m.kind = DeviceKind::kCpu;
  if (d.peak_gflops <= 0) {
    return absl::FailedPreconditionError(
        absl::StrCat("symbol analyzer: CPU profile ", d.name, " needs peak_gflops"));
  }
  m.peak_gflops = d.peak_gflops;
  const int cores = Known(d.num_cores, std::max(d.physical_cores, 1), "num_cores", &m.notes);
  const int physical = Known(d.physical_cores, cores, "physical_cores", &m.notes);
  if (d.mem_bandwidth_gbps > 0) {
    m.bandwidth_gbps = d.mem_bandwidth_gbps;
  } else {
    m.bandwidth_gbps = options.cpu_fallback_gbps_per_core * physical;
    absl::StrAppend(&m.notes, m.notes.empty() ? "" : "; ", "mem_bandwidth_gbps unknown, assumed ",
                    options.cpu_fallback_gbps_per_core, " per core");
  }
  // fp32 lanes: only float32 is computed today.
  m.l1_width = std::max(1, Known(d.vector_unit_bytes, 16, "vector_unit_bytes", &m.notes) / 4);
  // g++ tunes Intel's AVX-512 cores for 256-bit vectors (its Skylake to
  // Sapphire Rapids tunings set -mprefer-vector-width=256): a 16-lane loop
  // is two ymm instructions and the register file 32 registers of 8 lanes.
  // (g++ 12 builds an AMD EPYC's code with zmm.)
  if (options.cpu_codegen == CpuBackend::kGcc && d.vector_isa == "avx512f" &&
      absl::StrContains(d.description, "Intel")) {
    m.l1_width = std::min(m.l1_width, 8);
  }
  m.register_capacity = static_cast<double>(VectorRegisters(d.vector_isa)) * m.l1_width;
  m.l1_units = Known(d.fma_units_per_core, 2, "fma_units_per_core", &m.notes) * kFmaLatencyCycles;
  m.l1_cache_bytes = Known<int64_t>(d.l1d_cache_bytes, 32 * 1024, "l1d_cache_bytes", &m.notes);
  m.l2_cache_bytes = Known<int64_t>(d.l2_cache_bytes, 1024 * 1024, "l2_cache_bytes", &m.notes);
  // No L3 known: no level between L2 and DRAM.
  m.l3_cache_bytes = std::max(d.l3_cache_bytes, m.l2_cache_bytes);
  // TVM's thread pool runs one worker per hardware thread.
  m.l2_units = cores;
  m.transaction_bytes = Known(d.cache_line_bytes, 64, "cache_line_bytes", &m.notes);
  m.clock_hz = Known(d.clock_mhz, 3000.0, "clock_mhz", &m.notes) * 1e6;
  m.guarded_reads_branch = options.cpu_codegen == CpuBackend::kLlvm;
  m.promotes_moving_accumulators = options.cpu_codegen == CpuBackend::kLlvm;
  m.remainder_in_halving_vectors = options.cpu_codegen == CpuBackend::kGcc;
  return m;
}

}  // namespace

absl::StatusOr<MachineParams> ResolveMachineParams(const DeviceProfile& device,
                                                   const AnalyzerOptions& options) {
  return device.IsGpu() ? ResolveGpu(device) : ResolveCpu(device, options);
}

}  // namespace pruner
