// Detection of the CPU this process runs on. DetectLocalCpu() (declared in
// device_profile.h) reads the real files; the pieces below take their inputs
// explicitly so tests can feed fake /proc and /sys trees.
#ifndef PRUNER_COMMON_DEVICE_LOCAL_CPU_H_
#define PRUNER_COMMON_DEVICE_LOCAL_CPU_H_

#include <cstdint>
#include <optional>
#include <set>
#include <string>
#include <string_view>
#include <vector>

#include "common/device/device_profile.h"

namespace pruner {

// Where detection reads from.
struct CpuSources {
  std::string proc_cpuinfo_path = "/proc/cpuinfo";
  // Holds cpuN/topology, cpuN/cache/indexK and cpuN/cpufreq.
  std::string sysfs_cpu_dir = "/sys/devices/system/cpu";
  // Logical CPU ids this process may run on; empty means unknown, and then
  // std::thread::hardware_concurrency() decides the count.
  std::vector<int> allowed_cpus;
  // The architecture this binary runs as ("x86-64", "aarch64"); "" skips
  // the emulation check. When /proc/cpuinfo describes another one, a
  // user-mode emulator (qemu-user) runs the binary: see DetectCpuFrom.
  std::string binary_architecture;
};

// "x86-64" or "aarch64" as this binary was compiled, "" otherwise.
std::string CompiledArchitecture();

// The real paths and the ids from sched_getaffinity (empty if that fails).
CpuSources LocalCpuSources();

// Builds a "cpu-local" profile from `sources`. Never fails; each fallback is
// recorded in `notes`. Under emulation (cpuinfo of another architecture than
// sources.binary_architecture) the profile is the binary's architecture at
// its baseline ISA, described as "emulated <arch> on <host>", so that its
// stable key starts with "cpu-emulated-" (IsEmulatedDevice): times measured
// there are the emulator's, never a device's, and never mix with them.
DeviceProfile DetectCpuFrom(const CpuSources& sources);

// What the SIMD flags imply for the peak estimate.
struct SimdCapability {
  std::string isa;         // "avx512f", "avx2", "avx", "sse4.2", "sse2", "neon"
  int vector_bytes = 0;    // register width the ISA gives fp32 code
  int fma_units = 0;       // assumed FMA pipes per core at that width
};

// `flags` is the union of /proc/cpuinfo's "flags" (x86) and "Features" (Arm)
// words. With no recognised flag, falls back to the baseline of the
// architecture this binary was compiled for (sse2 on x86-64, neon on
// AArch64) and reports isa "unknown" elsewhere.
SimdCapability SimdFromFlags(const std::set<std::string>& flags);

// Parses sysfs cache sizes such as "48K", "1024K", "32M", "512": bytes, or
// nullopt when malformed.
std::optional<int64_t> ParseCacheSize(std::string_view text);

}  // namespace pruner

#endif  // PRUNER_COMMON_DEVICE_LOCAL_CPU_H_
