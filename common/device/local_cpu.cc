#include "common/device/local_cpu.h"

#include <sched.h>

#include <algorithm>
#include <fstream>
#include <map>
#include <sstream>
#include <thread>
#include <utility>

#include "absl/strings/ascii.h"
#include "absl/strings/numbers.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "absl/strings/str_split.h"
#include "common/base/absl_compat.h"

namespace pruner {
namespace {


constexpr int64_t KiB = 1024;
// Used only when the corresponding file is missing; each use is noted.
constexpr int64_t kDefaultL1dBytes = 32 * KiB;
constexpr int64_t kDefaultL2Bytes = 1024 * KiB;
constexpr int kDefaultCacheLineBytes = 64;
constexpr double kDefaultClockMhz = 2000;

std::optional<std::string> ReadFile(const std::string& path) {
  std::ifstream in(path);
  if (!in) return std::nullopt;
  std::ostringstream text;
  text << in.rdbuf();
  return text.str();
}

std::optional<std::string> ReadTrimmed(const std::string& path) {
  std::optional<std::string> text = ReadFile(path);
  if (!text) return std::nullopt;
  return std::string(absl::StripAsciiWhitespace(*text));
}

std::optional<int64_t> ReadInt(const std::string& path) {
  std::optional<std::string> text = ReadTrimmed(path);
  int64_t value = 0;
  if (!text || !absl::SimpleAtoi(*text, &value)) return std::nullopt;
  return value;
}

// One "key : value" map per blank-line separated block of /proc/cpuinfo.
// x86 has one block per logical CPU; Arm adds a trailing block with keys
// such as "Hardware".
using CpuinfoBlock = std::map<std::string, std::string, std::less<>>;

std::vector<CpuinfoBlock> ParseCpuinfo(absl::string_view text) {
  std::vector<CpuinfoBlock> blocks(1);
  for (absl::string_view line : absl::StrSplit(text, '\n')) {
    if (absl::StripAsciiWhitespace(line).empty()) {
      if (!blocks.back().empty()) blocks.emplace_back();
      continue;
    }
    size_t colon = line.find(':');
    if (colon == absl::string_view::npos) continue;
    blocks.back().emplace(
        std::string(absl::StripAsciiWhitespace(line.substr(0, colon))),
        std::string(absl::StripAsciiWhitespace(line.substr(colon + 1))));
  }
  if (blocks.back().empty()) blocks.pop_back();
  return blocks;
}

// The first non-empty value of `key` in any block.
std::string FirstValue(const std::vector<CpuinfoBlock>& blocks,
                       std::string_view key) {
  for (const CpuinfoBlock& block : blocks) {
    auto it = block.find(key);
    if (it != block.end() && !it->second.empty()) return it->second;
  }
  return "";
}

std::string CpuDir(const CpuSources& sources, int cpu) {
  return absl::StrCat(sources.sysfs_cpu_dir, "/cpu", cpu);
}

// Logical CPU ids to describe: the affinity set, else 0..n-1 for whatever
// count is available.
std::vector<int> ChooseCpuIds(const CpuSources& sources,
                              const std::vector<CpuinfoBlock>& cpuinfo,
                              std::vector<std::string>& notes) {
  if (!sources.allowed_cpus.empty()) return sources.allowed_cpus;
  int count = static_cast<int>(std::thread::hardware_concurrency());
  if (count > 0) {
    notes.push_back("CPU affinity unknown: used hardware_concurrency");
  } else {
    for (const CpuinfoBlock& block : cpuinfo) count += block.count("processor");
    notes.push_back(count > 0
                        ? "CPU affinity unknown: counted /proc/cpuinfo entries"
                        : "CPU count unknown: assumed 1");
    count = std::max(count, 1);
  }
  std::vector<int> ids(count);
  for (int i = 0; i < count; ++i) ids[i] = i;
  return ids;
}

// Distinct (package, core) pairs among `cpu_ids`, from sysfs topology, else
// from /proc/cpuinfo's "physical id"/"core id"; nullopt if neither has them.
std::optional<int> CountPhysicalCores(const CpuSources& sources,
                                      const std::vector<int>& cpu_ids,
                                      const std::vector<CpuinfoBlock>& cpuinfo) {
  std::set<std::pair<int64_t, int64_t>> cores;
  for (int cpu : cpu_ids) {
    std::string topology = CpuDir(sources, cpu) + "/topology";
    std::optional<int64_t> package =
        ReadInt(topology + "/physical_package_id");
    std::optional<int64_t> core = ReadInt(topology + "/core_id");
    if (!package || !core) {
      cores.clear();
      break;
    }
    cores.emplace(*package, *core);
  }
  if (!cores.empty()) return static_cast<int>(cores.size());

  std::map<int64_t, const CpuinfoBlock*> by_processor;
  for (const CpuinfoBlock& block : cpuinfo) {
    auto it = block.find("processor");
    int64_t id = 0;
    if (it != block.end() && absl::SimpleAtoi(it->second, &id)) {
      by_processor[id] = &block;
    }
  }
  for (int cpu : cpu_ids) {
    auto it = by_processor.find(cpu);
    if (it == by_processor.end()) return std::nullopt;
    const CpuinfoBlock& block = *it->second;
    int64_t package = 0, core = 0;
    auto p = block.find("physical id");
    auto c = block.find("core id");
    if (p == block.end() || c == block.end() ||
        !absl::SimpleAtoi(p->second, &package) ||
        !absl::SimpleAtoi(c->second, &core)) {
      return std::nullopt;
    }
    cores.emplace(package, core);
  }
  if (cores.empty()) return std::nullopt;
  return static_cast<int>(cores.size());
}

// Fills the cache fields from cpuN/cache/index*/; returns false when no
// cache directory could be read at all.
bool ReadCaches(const std::string& cpu_dir, DeviceProfile& p) {
  bool any = false;
  // index numbers are small and dense on every kernel seen; 32 is ample.
  for (int index = 0; index < 32; ++index) {
    std::string dir = absl::StrCat(cpu_dir, "/cache/index", index);
    std::optional<int64_t> level = ReadInt(dir + "/level");
    if (!level) continue;
    any = true;
    std::string type = ReadTrimmed(dir + "/type").value_or("Unified");
    if (type == "Instruction") continue;
    std::optional<std::string> size_text = ReadTrimmed(dir + "/size");
    const int64_t size =
        size_text ? ParseCacheSize(*size_text).value_or(0) : 0;
    std::optional<int64_t> line = ReadInt(dir + "/coherency_line_size");
    if (line && *line > 0 && (p.cache_line_bytes == 0 || *level == 1)) {
      p.cache_line_bytes = static_cast<int>(*line);
    }
    if (size <= 0) continue;
    if (*level == 1) p.l1d_cache_bytes = size;
    if (*level == 2) p.l2_cache_bytes = size;
    if (*level == 3) p.l3_cache_bytes = size;
  }
  return any;
}

// Maximum clock in MHz: cpufreq's cpuinfo_max_freq (kHz), else the highest
// "cpu MHz" in /proc/cpuinfo (the current clock, so possibly low).
std::optional<double> ReadClockMhz(const std::string& cpu_dir,
                                   const std::vector<CpuinfoBlock>& cpuinfo,
                                   std::vector<std::string>& notes) {
  std::optional<int64_t> khz = ReadInt(cpu_dir + "/cpufreq/cpuinfo_max_freq");
  if (khz && *khz > 0) return *khz / 1000.0;
  double best = 0;
  for (const CpuinfoBlock& block : cpuinfo) {
    auto it = block.find("cpu MHz");
    double mhz = 0;
    if (it != block.end() && absl::SimpleAtod(it->second, &mhz)) {
      best = std::max(best, mhz);
    }
  }
  if (best > 0) {
    notes.push_back("no cpufreq: clock from /proc/cpuinfo 'cpu MHz'");
    return best;
  }
  return std::nullopt;
}

// The architecture /proc/cpuinfo describes: x86 kernels list "vendor_id"
// and SSE flags, Arm kernels "CPU implementer" and Advanced SIMD features;
// "" when it says neither.
std::string CpuinfoArchitecture(const std::vector<CpuinfoBlock>& cpuinfo,
                                const std::set<std::string>& flags) {
  if (!FirstValue(cpuinfo, "vendor_id").empty() || flags.count("sse2") > 0) return "x86-64";
  if (!FirstValue(cpuinfo, "CPU implementer").empty() || flags.count("asimd") > 0) {
    return "aarch64";
  }
  return "";
}

}  // namespace

std::optional<int64_t> ParseCacheSize(std::string_view text_in) {
  absl::string_view text = absl::StripAsciiWhitespace(ToAbsl(text_in));
  if (text.empty()) return std::nullopt;
  int64_t multiplier = 1;
  switch (absl::ascii_toupper(text.back())) {
    case 'K': multiplier = KiB; break;
    case 'M': multiplier = KiB * KiB; break;
    case 'G': multiplier = KiB * KiB * KiB; break;
    default: break;
  }
  if (multiplier != 1) text.remove_suffix(1);
  int64_t value = 0;
  if (!absl::SimpleAtoi(text, &value) || value < 0) return std::nullopt;
  return value * multiplier;
}

std::string CompiledArchitecture() {
#if defined(__x86_64__)
  return "x86-64";
#elif defined(__aarch64__)
  return "aarch64";
#else
  return "";
#endif
}

SimdCapability SimdFromFlags(const std::set<std::string>& flags) {
  auto has = [&](const char* flag) { return flags.count(flag) > 0; };
  // FMA pipes per core are not in any file. The assumptions: two at the
  // widest width on AVX-512 servers (Skylake-SP Gold/Platinum onward, Zen 5;
  // Zen 4 and low-end Xeons have one, so this overestimates them), two on
  // FMA3 cores (Haswell+, Zen), and one for pre-FMA x86, where the separate
  // add and multiply pipes give the same 2 FLOP per lane per cycle. Arm
  // cores of the A76/A78/Neoverse class have two 128-bit FP pipes.
  int fma_pipes = has("fma") ? 2 : 1;
  if (has("avx512f")) return {"avx512f", 64, 2};
  if (has("avx2")) return {"avx2", 32, fma_pipes};
  if (has("avx")) return {"avx", 32, fma_pipes};
  if (has("sse4_2")) return {"sse4.2", 16, 1};
  if (has("sse2")) return {"sse2", 16, 1};
  if (has("asimd") || has("neon")) return {"neon", 16, 2};
#if defined(__x86_64__)
  return {"sse2", 16, 1};  // the x86-64 baseline
#elif defined(__aarch64__)
  return {"neon", 16, 2};  // Advanced SIMD is mandatory on AArch64
#else
  return {"unknown", 16, 1};
#endif
}

CpuSources LocalCpuSources() {
  CpuSources sources;
  cpu_set_t set;
  CPU_ZERO(&set);
  // Fails only on machines with more than CPU_SETSIZE (1024) CPUs; the ids
  // then stay empty and the count comes from hardware_concurrency.
  if (sched_getaffinity(0, sizeof(set), &set) == 0) {
    for (int cpu = 0; cpu < CPU_SETSIZE; ++cpu) {
      if (CPU_ISSET(cpu, &set)) sources.allowed_cpus.push_back(cpu);
    }
  }
  sources.binary_architecture = CompiledArchitecture();
  return sources;
}

DeviceProfile DetectCpuFrom(const CpuSources& sources) {
  DeviceProfile p;
  p.name = "cpu-local";
  p.kind = DeviceKind::kCpu;
  std::vector<std::string> notes;

  std::optional<std::string> cpuinfo_text =
      ReadFile(sources.proc_cpuinfo_path);
  if (!cpuinfo_text) notes.push_back("cannot read " + sources.proc_cpuinfo_path);
  std::vector<CpuinfoBlock> cpuinfo =
      ParseCpuinfo(cpuinfo_text.value_or(""));

  // x86 says "model name"; Arm kernels may say only "Hardware" or
  // "Processor".
  for (const char* key : {"model name", "Hardware", "Processor"}) {
    p.description = FirstValue(cpuinfo, key);
    if (!p.description.empty()) break;
  }
  if (p.description.empty()) p.description = "unknown CPU";

  std::set<std::string> flags;
  for (const char* key : {"flags", "Features"}) {
    for (absl::string_view flag :
         absl::StrSplit(FirstValue(cpuinfo, key), ' ', absl::SkipEmpty())) {
      flags.emplace(flag);
    }
  }
  const std::string host_architecture = CpuinfoArchitecture(cpuinfo, flags);
  const bool emulated = !sources.binary_architecture.empty() && !host_architecture.empty() &&
                        host_architecture != sources.binary_architecture;
  SimdCapability simd = SimdFromFlags(flags);
  if (emulated) {
    // The host's flags say nothing of what the emulator offers this binary:
    // take its architecture's baseline.
    simd = sources.binary_architecture == "aarch64" ? SimdCapability{"neon", 16, 2}
                                                    : SimdCapability{"sse2", 16, 1};
    p.description = absl::StrCat("emulated ", sources.binary_architecture, " on ", p.description);
    notes.push_back(absl::StrCat("emulated: this ", sources.binary_architecture,
                                 " binary runs under a user-mode emulator on an ",
                                 host_architecture, " host; its times are the emulator's, "
                                 "not those of any ", sources.binary_architecture, " device"));
  }
  if (flags.empty()) notes.push_back("no CPU flags: assumed " + simd.isa);
  p.vector_isa = simd.isa;
  p.vector_unit_bytes = simd.vector_bytes;
  p.fma_units_per_core = simd.fma_units;

  std::vector<int> cpu_ids = ChooseCpuIds(sources, cpuinfo, notes);
  p.num_cores = static_cast<int>(cpu_ids.size());
  std::optional<int> physical =
      CountPhysicalCores(sources, cpu_ids, cpuinfo);
  if (!physical) notes.push_back("no core topology: assumed no SMT");
  p.physical_cores = std::clamp(physical.value_or(p.num_cores), 1, p.num_cores);

  // Caches and clock of the first CPU we may run on.
  std::string cpu_dir = CpuDir(sources, cpu_ids.front());
  if (!ReadCaches(cpu_dir, p)) notes.push_back("no sysfs cache info");
  if (p.cache_line_bytes == 0) {
    int64_t alignment = 0;
    if (absl::SimpleAtoi(FirstValue(cpuinfo, "cache_alignment"), &alignment) &&
        alignment > 0) {
      p.cache_line_bytes = static_cast<int>(alignment);
    } else {
      p.cache_line_bytes = kDefaultCacheLineBytes;
      notes.push_back("cache line size unknown: assumed 64");
    }
  }
  if (p.l1d_cache_bytes == 0) {
    p.l1d_cache_bytes = kDefaultL1dBytes;
    notes.push_back("L1d size unknown: assumed 32 KiB");
  }
  if (p.l2_cache_bytes == 0) {
    p.l2_cache_bytes = kDefaultL2Bytes;
    notes.push_back("L2 size unknown: assumed 1 MiB");
  }
  if (p.l3_cache_bytes == 0) notes.push_back("no L3 found");

  std::optional<double> clock = ReadClockMhz(cpu_dir, cpuinfo, notes);
  if (!clock) notes.push_back("clock unknown: assumed 2000 MHz");
  p.clock_mhz = clock.value_or(kDefaultClockMhz);

  // An estimate, not a measurement: every physical core retiring
  // fma_units vector FMAs (2 FLOP per fp32 lane) per cycle at the max clock.
  const int fp32_lanes = p.vector_unit_bytes / 4;
  p.peak_gflops = p.physical_cores * (p.clock_mhz / 1000.0) * fp32_lanes * 2 *
                  p.fma_units_per_core;
  notes.push_back(absl::StrCat(
      "peak_gflops is an estimate: ", p.physical_cores, " cores x ",
      p.clock_mhz, " MHz x ", fp32_lanes, " lanes x 2 x ",
      p.fma_units_per_core, " FMA units (assumed for ", p.vector_isa, ")"));
  notes.push_back("memory bandwidth unknown (not measured)");

  p.notes = absl::StrJoin(notes, "; ");
  return p;
}

DeviceProfile DetectLocalCpu() { return DetectCpuFrom(LocalCpuSources()); }

}  // namespace pruner
