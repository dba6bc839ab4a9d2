// What the analyzers, the sketch rules and the validity checks need to know
// about a target device. A profile is plain data: the built-in ones are
// published numbers, the local CPU's is read from /proc and /sys, and a
// worker's is received as JSON and checked against the built-in one.
//
// Convention: a numeric field of 0 (or an empty string) means "unknown / not
// applicable". GPU-only fields are 0 on CPU profiles and vice versa, exactly
// like Ansor's HardwareParams for CPU targets.
#ifndef PRUNER_COMMON_DEVICE_DEVICE_PROFILE_H_
#define PRUNER_COMMON_DEVICE_DEVICE_PROFILE_H_

#include <array>
#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "absl/status/status.h"
#include "absl/status/statusor.h"

namespace pruner {

enum class DeviceKind : uint8_t { kCpu, kGpu };

// "cpu" or "gpu".
std::string_view DeviceKindName(DeviceKind kind);
std::optional<DeviceKind> ParseDeviceKind(std::string_view name);

struct DeviceProfile {
  // Canonical profile name: "a100-40gb", "jetson-orin", "titan-v",
  // "h100-sxm", "cpu-local".
  std::string name;
  DeviceKind kind = DeviceKind::kCpu;
  // Marketing / model name, e.g. "NVIDIA A100-SXM4-40GB" or the CPU's
  // "model name" line.
  std::string description;

  // ---- Both kinds --------------------------------------------------------
  // Peak fp32 throughput in GFLOP/s (Pruner's `peak_performance`, T_p).
  double peak_gflops = 0;
  // DRAM bandwidth in GB/s (Pruner's `glbmem_bandwidth`, T_m). 0 on the
  // detected CPU: nothing in /proc or /sys tells it.
  double mem_bandwidth_gbps = 0;
  // GPU boost clock, or the CPU's maximum clock the peak estimate used.
  double clock_mhz = 0;
  // Bytes of one vector register/access. GPUs: 16 (float4), as Ansor's CUDA
  // HardwareParams. CPUs: the real SIMD width (Ansor hard-codes 64 for every
  // CPU; we report what the ISA has).
  int vector_unit_bytes = 0;
  // Ansor's HardwareParams.cache_line_bytes: 64 for CUDA (Ansor's constant),
  // the coherency line size for CPUs.
  int cache_line_bytes = 0;
  // L2 cache, whole device for GPUs, the cache cpu0 sees for CPUs.
  int64_t l2_cache_bytes = 0;

  // ---- GPU ---------------------------------------------------------------
  int sm_count = 0;
  int warp_size = 0;
  int max_threads_per_block = 0;
  int max_threads_per_sm = 0;
  int max_blocks_per_sm = 0;
  // What cudaDeviceProp.sharedMemPerBlock reports (48 KiB on every NVIDIA
  // part) and TVM's verifier uses. Larger blocks need an explicit opt-in at
  // launch, which TVM's generated kernels do not do.
  int64_t max_shared_memory_per_block = 0;
  // sharedMemPerBlockOptin: the most a block may use after opting in.
  int64_t max_shared_memory_per_block_optin = 0;
  // sharedMemPerMultiprocessor.
  int64_t shared_memory_per_sm = 0;
  // Ansor's max_local_memory_per_block: INT32_MAX on CUDA, i.e. not checked.
  int64_t max_local_memory_per_block = 0;
  int registers_per_block = 0;  // 32-bit registers
  int registers_per_sm = 0;     // 32-bit registers
  int max_registers_per_thread = 0;
  // Per-thread fp32 elements the Pruner analyzer assumes fit in registers
  // (paper m_l0; a hard-coded 128 in PSAModelInternal).
  int reg_cap = 0;
  // Thread blocks per SM the Pruner analyzer assumes resident (always 1);
  // pu_l2 = sm_count * active_blocks_per_sm.
  int active_blocks_per_sm = 0;
  // Warp schedulers per SM (Pruner's arch_sm_partition, ~pu_l1).
  int sm_partitions = 0;
  // Ansor: warp_size / 4.
  int max_vthread_extent = 0;
  // DRAM access granularity (32-byte sectors; paper n_l2).
  int dram_transaction_bytes = 0;
  int compute_capability_major = 0;
  int compute_capability_minor = 0;
  std::array<int64_t, 3> max_block_dims = {0, 0, 0};
  std::array<int64_t, 3> max_grid_dims = {0, 0, 0};

  // ---- CPU ---------------------------------------------------------------
  // Hardware threads this process may run on (Ansor's num_cores: TVM's
  // MaxConcurrency, which counts hardware threads, not physical cores).
  int num_cores = 0;
  // Physical cores among those threads; the peak estimate uses these because
  // SMT siblings share the FMA pipes.
  int physical_cores = 0;
  // "avx512f", "avx2", "avx", "sse4.2", "sse2", "neon" or "unknown".
  std::string vector_isa;
  int64_t l1d_cache_bytes = 0;
  int64_t l3_cache_bytes = 0;
  // FMA pipes per core at the vector width above (an assumption per ISA;
  // see local_cpu.cc).
  int fma_units_per_core = 0;

  // Where the numbers came from, known discrepancies, and (for detected
  // profiles) every fallback that was taken.
  std::string notes;

  bool IsGpu() const { return kind == DeviceKind::kGpu; }
  friend bool operator==(const DeviceProfile&, const DeviceProfile&) = default;
};

// Canonical names of the built-in profiles, in a stable order.
std::vector<std::string> KnownDeviceProfiles();

// Looks a profile up by canonical name or alias, case-insensitively, with '_'
// and '-' interchangeable ("a100", "A100_40", "orin", "titanv", "h100",
// "cpu", "local", ...). "cpu-local" and its aliases return the detected local
// CPU (detected once per process); so does its stable key (WithStableCpuKey,
// e.g. "cpu-amd-epyc-2t-avx512f"), returned under that key. Another CPU's
// key is NotFound, saying which CPU this is; NotFound lists every known name.
absl::StatusOr<DeviceProfile> GetDeviceProfile(std::string_view name);

// Reads this machine's CPU from /proc/cpuinfo and /sys. Never fails: missing
// files give defaults, each recorded in `notes`. Defined in local_cpu.cc.
DeviceProfile DetectLocalCpu();

// `device` renamed by what it is: "cpu-<model slug>-<N>t-<isa>", e.g.
// "cpu-amd-epyc-9b45-2t-avx512f". Records of different CPUs must not mix in
// a shared database, so a CPU is never keyed "cpu-local". GPU profiles are
// returned unchanged.
DeviceProfile WithStableCpuKey(DeviceProfile device);

// True for the stable key of a CPU detected under a user-mode emulator
// ("cpu-emulated-aarch64-on-..."; see DetectCpuFrom): its times are the
// emulator's and say nothing of a real device.
bool IsEmulatedDevice(std::string_view device_key);

// Checks a profile a worker reported against the built-in one for the same
// device. An error (FailedPrecondition, listing every mismatch) on: different
// kind; GPUs: different warp size or compute-capability major, SM counts
// more than 2x apart; CPUs: core counts more than 2x apart. A field the
// worker left at 0 was not reported and is not checked.
absl::Status CheckCompatible(const DeviceProfile& reported,
                             const DeviceProfile& builtin);

// The reported profile with every field it left unknown (0 / empty) taken
// from `defaults`; what the worker did report wins.
DeviceProfile FillUnknownFields(const DeviceProfile& reported,
                                const DeviceProfile& defaults);

}  // namespace pruner

#endif  // PRUNER_COMMON_DEVICE_DEVICE_PROFILE_H_
