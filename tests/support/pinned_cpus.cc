#include "tests/support/pinned_cpus.h"

namespace pruner::testing {
namespace {

// The fields DetectLocalCpu() fills for a 2-core AVX-512 machine; peak is
// cores x MHz x 16 fp32 lanes x 2 (FMA) x 2 FMA units, as it estimates.
DeviceProfile TwoCoreAvx512(const char* name, const char* description, double clock_mhz) {
  DeviceProfile cpu;
  cpu.name = name;
  cpu.kind = DeviceKind::kCpu;
  cpu.description = description;
  cpu.num_cores = 2;
  cpu.physical_cores = 2;
  cpu.vector_isa = "avx512f";
  cpu.vector_unit_bytes = 64;
  cpu.fma_units_per_core = 2;
  cpu.cache_line_bytes = 64;
  cpu.clock_mhz = clock_mhz;
  cpu.peak_gflops = 2 * clock_mhz * 16 * 2 * 2 / 1000;
  cpu.notes = "pinned test profile";
  return cpu;
}

}  // namespace

DeviceProfile HandCpu() {
  DeviceProfile cpu;
  cpu.name = "hand-cpu";
  cpu.kind = DeviceKind::kCpu;
  cpu.num_cores = 8;
  cpu.physical_cores = 8;
  cpu.vector_isa = "avx2";
  cpu.vector_unit_bytes = 32;
  cpu.fma_units_per_core = 2;
  cpu.cache_line_bytes = 64;
  cpu.l1d_cache_bytes = 32 * 1024;
  cpu.l2_cache_bytes = 1024 * 1024;
  cpu.l3_cache_bytes = 16 * 1024 * 1024;
  cpu.clock_mhz = 3000;
  cpu.peak_gflops = 768;
  cpu.mem_bandwidth_gbps = 50;
  return cpu;
}

DeviceProfile PinnedEpycCpu() {
  DeviceProfile cpu = TwoCoreAvx512("cpu-pinned-epyc-2t-avx512f", "AMD EPYC", 2596.142);
  cpu.l1d_cache_bytes = 32 * 1024;
  cpu.l2_cache_bytes = 1024 * 1024;
  cpu.l3_cache_bytes = 32 * 1024 * 1024;
  return cpu;
}

DeviceProfile PinnedXeonCpu() {
  DeviceProfile cpu =
      TwoCoreAvx512("cpu-pinned-xeon-spr-2t-avx512f", "Intel Xeon (Sapphire Rapids)", 2000);
  cpu.l1d_cache_bytes = 48 * 1024;
  cpu.l2_cache_bytes = 2 * 1024 * 1024;
  cpu.l3_cache_bytes = 105 * 1024 * 1024;
  return cpu;
}

}  // namespace pruner::testing
