// Local CPU detection, on this machine and on fake /proc + /sys trees.
#include "common/device/local_cpu.h"

#include <filesystem>
#include <fstream>
#include <sstream>
#include <thread>

#include "absl/strings/str_split.h"
#include "gtest/gtest.h"

namespace pruner {
namespace {

namespace fs = std::filesystem;

// The vector width /proc/cpuinfo's flags imply, written independently of
// SimdFromFlags: AVX-512 64 bytes, AVX/AVX2 32, SSE/NEON 16.
int ExpectedVectorBytesFromProcCpuinfo() {
  std::ifstream in("/proc/cpuinfo");
  std::string line;
  std::set<std::string> flags;
  while (std::getline(in, line)) {
    if (line.rfind("flags", 0) == 0 || line.rfind("Features", 0) == 0) {
      std::string words = line.substr(line.find(':') + 1);
      for (auto w : absl::StrSplit(words, ' ', absl::SkipEmpty())) {
        flags.emplace(w);
      }
      break;
    }
  }
  if (flags.count("avx512f")) return 64;
  if (flags.count("avx2") || flags.count("avx")) return 32;
  return 16;
}

TEST(LocalCpuTest, DetectsThisMachine) {
  DeviceProfile p = DetectLocalCpu();
  EXPECT_EQ(p.name, "cpu-local");
  EXPECT_EQ(p.kind, DeviceKind::kCpu);
  EXPECT_GE(p.num_cores, 1);
  unsigned hw = std::thread::hardware_concurrency();
  if (hw > 0) {
    EXPECT_LE(p.num_cores, static_cast<int>(hw));
  }
  EXPECT_GE(p.physical_cores, 1);
  EXPECT_LE(p.physical_cores, p.num_cores);
  EXPECT_EQ(p.vector_unit_bytes, ExpectedVectorBytesFromProcCpuinfo())
      << p.vector_isa;
  EXPECT_FALSE(p.vector_isa.empty());
  EXPECT_GT(p.cache_line_bytes, 0);
  EXPECT_GT(p.l1d_cache_bytes, 0);
  EXPECT_GT(p.l2_cache_bytes, 0);
  EXPECT_GE(p.l3_cache_bytes, 0);
  EXPECT_GT(p.clock_mhz, 0);
  EXPECT_GT(p.fma_units_per_core, 0);
  EXPECT_DOUBLE_EQ(p.peak_gflops, p.physical_cores * p.clock_mhz / 1000.0 *
                                      (p.vector_unit_bytes / 4) * 2 *
                                      p.fma_units_per_core);
  EXPECT_NE(p.notes.find("estimate"), std::string::npos) << p.notes;
  // GPU fields stay 0 on CPUs, as in Ansor's CPU HardwareParams.
  EXPECT_EQ(p.sm_count, 0);
  EXPECT_EQ(p.warp_size, 0);
  EXPECT_EQ(p.max_shared_memory_per_block, 0);
}

TEST(LocalCpuTest, AffinityGivesAtLeastOneCpu) {
  CpuSources sources = LocalCpuSources();
  EXPECT_FALSE(sources.allowed_cpus.empty());
}

TEST(LocalCpuTest, ParseCacheSize) {
  EXPECT_EQ(ParseCacheSize("48K"), 48 * 1024);
  EXPECT_EQ(ParseCacheSize("1024K\n"), 1024 * 1024);
  EXPECT_EQ(ParseCacheSize("32M"), 32 * 1024 * 1024);
  EXPECT_EQ(ParseCacheSize("1G"), int64_t{1} << 30);
  EXPECT_EQ(ParseCacheSize("512"), 512);
  EXPECT_EQ(ParseCacheSize(""), std::nullopt);
  EXPECT_EQ(ParseCacheSize("K"), std::nullopt);
  EXPECT_EQ(ParseCacheSize("big"), std::nullopt);
}

TEST(LocalCpuTest, SimdFromFlags) {
  auto simd = [](std::set<std::string> flags) { return SimdFromFlags(flags); };
  SimdCapability avx512 = simd({"sse2", "avx2", "fma", "avx512f"});
  EXPECT_EQ(avx512.isa, "avx512f");
  EXPECT_EQ(avx512.vector_bytes, 64);
  EXPECT_EQ(avx512.fma_units, 2);
  SimdCapability avx2 = simd({"sse4_2", "avx", "avx2", "fma"});
  EXPECT_EQ(avx2.isa, "avx2");
  EXPECT_EQ(avx2.vector_bytes, 32);
  EXPECT_EQ(avx2.fma_units, 2);
  SimdCapability avx = simd({"sse4_2", "avx"});
  EXPECT_EQ(avx.isa, "avx");
  EXPECT_EQ(avx.fma_units, 1);
  EXPECT_EQ(simd({"sse2", "sse4_2"}).isa, "sse4.2");
  EXPECT_EQ(simd({"sse2", "sse4_2"}).vector_bytes, 16);
  EXPECT_EQ(simd({"fp", "asimd"}).isa, "neon");
  EXPECT_EQ(simd({"neon", "vfpv4"}).vector_bytes, 16);
  EXPECT_GT(simd({}).vector_bytes, 0);  // compile-time baseline
}

// Writes files under a fresh temporary directory.
class FakeCpuTree : public ::testing::Test {
 protected:
  void SetUp() override {
    root_ = fs::path(::testing::TempDir()) /
            ::testing::UnitTest::GetInstance()->current_test_info()->name();
    fs::remove_all(root_);
    fs::create_directories(root_);
  }
  void TearDown() override { fs::remove_all(root_); }

  void Write(const std::string& relative, const std::string& text) {
    fs::path path = root_ / relative;
    fs::create_directories(path.parent_path());
    std::ofstream(path) << text;
  }
  CpuSources Sources(std::vector<int> cpus) const {
    CpuSources s;
    s.proc_cpuinfo_path = (root_ / "cpuinfo").string();
    s.sysfs_cpu_dir = (root_ / "sys").string();
    s.allowed_cpus = std::move(cpus);
    return s;
  }

  fs::path root_;
};

TEST_F(FakeCpuTree, ArmWithFullSysfs) {
  Write("cpuinfo",
        "processor\t: 0\nBogoMIPS\t: 50.00\n"
        "Features\t: fp asimd evtstrm aes crc32\nCPU part\t: 0xd42\n\n"
        "processor\t: 1\nFeatures\t: fp asimd\n\n"
        "Hardware\t: Jetson AGX Orin\n");
  for (int cpu = 0; cpu < 4; ++cpu) {
    std::string dir = "sys/cpu" + std::to_string(cpu);
    Write(dir + "/topology/physical_package_id", "0\n");
    Write(dir + "/topology/core_id", std::to_string(cpu) + "\n");
  }
  Write("sys/cpu2/cache/index0/level", "1\n");
  Write("sys/cpu2/cache/index0/type", "Data\n");
  Write("sys/cpu2/cache/index0/size", "64K\n");
  Write("sys/cpu2/cache/index0/coherency_line_size", "64\n");
  Write("sys/cpu2/cache/index1/level", "1\n");
  Write("sys/cpu2/cache/index1/type", "Instruction\n");
  Write("sys/cpu2/cache/index1/size", "128K\n");
  Write("sys/cpu2/cache/index2/level", "2\n");
  Write("sys/cpu2/cache/index2/type", "Unified\n");
  Write("sys/cpu2/cache/index2/size", "256K\n");
  Write("sys/cpu2/cache/index3/level", "3\n");
  Write("sys/cpu2/cache/index3/type", "Unified\n");
  Write("sys/cpu2/cache/index3/size", "4096K\n");
  Write("sys/cpu2/cpufreq/cpuinfo_max_freq", "2201600\n");

  DeviceProfile p = DetectCpuFrom(Sources({2, 3}));
  EXPECT_EQ(p.description, "Jetson AGX Orin");
  EXPECT_EQ(p.vector_isa, "neon");
  EXPECT_EQ(p.vector_unit_bytes, 16);
  EXPECT_EQ(p.num_cores, 2);
  EXPECT_EQ(p.physical_cores, 2);
  // Caches and clock are read from the first allowed CPU, cpu2.
  EXPECT_EQ(p.l1d_cache_bytes, 64 * 1024);
  EXPECT_EQ(p.l2_cache_bytes, 256 * 1024);
  EXPECT_EQ(p.l3_cache_bytes, 4096 * 1024);
  EXPECT_EQ(p.cache_line_bytes, 64);
  EXPECT_DOUBLE_EQ(p.clock_mhz, 2201.6);
  EXPECT_DOUBLE_EQ(p.peak_gflops, 2 * 2.2016 * 4 * 2 * 2);
  EXPECT_EQ(p.notes.find("assumed 32 KiB"), std::string::npos) << p.notes;
}

TEST_F(FakeCpuTree, X86SmtSiblingsCountOncePhysically) {
  std::string cpuinfo;
  for (int cpu = 0; cpu < 4; ++cpu) {
    cpuinfo += "processor\t: " + std::to_string(cpu) +
               "\nmodel name\t: Fake Xeon\nflags\t\t: fpu sse2 avx avx2 fma\n"
               "cpu MHz\t\t: " + (cpu == 1 ? "3100.5" : "1200.0") +
               "\nphysical id\t: 0\ncore id\t\t: " + std::to_string(cpu / 2) +
               "\ncache_alignment\t: 64\n\n";
  }
  Write("cpuinfo", cpuinfo);  // no sysfs at all

  DeviceProfile p = DetectCpuFrom(Sources({0, 1, 2, 3}));
  EXPECT_EQ(p.description, "Fake Xeon");
  EXPECT_EQ(p.vector_isa, "avx2");
  EXPECT_EQ(p.vector_unit_bytes, 32);
  EXPECT_EQ(p.num_cores, 4);
  EXPECT_EQ(p.physical_cores, 2);  // topology from cpuinfo's core ids
  EXPECT_DOUBLE_EQ(p.clock_mhz, 3100.5);  // highest "cpu MHz"
  EXPECT_EQ(p.cache_line_bytes, 64);      // cache_alignment
  EXPECT_EQ(p.l1d_cache_bytes, 32 * 1024);  // defaults, noted
  EXPECT_NE(p.notes.find("no sysfs cache info"), std::string::npos);
  EXPECT_NE(p.notes.find("L1d size unknown"), std::string::npos);
  EXPECT_NE(p.notes.find("cpu MHz"), std::string::npos);
}

// qemu-aarch64 on an x86-64 host: /proc/cpuinfo is the host's. The worker
// must register as an emulated AArch64 CPU at the NEON baseline, under a key
// no real device has, never as the host's AVX-512 CPU.
TEST_F(FakeCpuTree, AnAarch64BinaryReadingX86CpuinfoIsEmulated) {
  Write("cpuinfo",
        "processor\t: 0\nvendor_id\t: AuthenticAMD\nmodel name\t: AMD EPYC 9B45\n"
        "flags\t\t: fpu sse2 avx avx2 fma avx512f\n\n"
        "processor\t: 1\nvendor_id\t: AuthenticAMD\nmodel name\t: AMD EPYC 9B45\n"
        "flags\t\t: fpu sse2 avx avx2 fma avx512f\n\n");
  CpuSources sources = Sources({0, 1});
  sources.binary_architecture = "aarch64";
  DeviceProfile p = DetectCpuFrom(sources);
  EXPECT_EQ(p.description, "emulated aarch64 on AMD EPYC 9B45");
  EXPECT_EQ(p.vector_isa, "neon");
  EXPECT_EQ(p.vector_unit_bytes, 16);
  EXPECT_NE(p.notes.find("user-mode emulator"), std::string::npos) << p.notes;
  const DeviceProfile keyed = WithStableCpuKey(p);
  EXPECT_EQ(keyed.name, "cpu-emulated-aarch64-on-amd-epyc-9b45-2t-neon");
  EXPECT_TRUE(IsEmulatedDevice(keyed.name));

  // The same binary on a real Arm board, and an x86-64 binary on its host:
  // not emulated.
  Write("cpuinfo", "processor\t: 0\nFeatures\t: fp asimd\nCPU implementer\t: 0x41\n\n"
                   "processor\t: 1\nFeatures\t: fp asimd\nCPU implementer\t: 0x41\n\n");
  DeviceProfile arm = DetectCpuFrom(sources);
  EXPECT_EQ(arm.notes.find("emulat"), std::string::npos) << arm.notes;
  EXPECT_FALSE(IsEmulatedDevice(WithStableCpuKey(arm).name));
  Write("cpuinfo", "processor\t: 0\nvendor_id\t: GenuineIntel\nmodel name\t: Xeon\n"
                   "flags\t\t: sse2 avx512f\n\n");
  sources.binary_architecture = "x86-64";
  DeviceProfile x86 = DetectCpuFrom(sources);
  EXPECT_EQ(x86.vector_isa, "avx512f");
  EXPECT_FALSE(IsEmulatedDevice(WithStableCpuKey(x86).name));
}

TEST_F(FakeCpuTree, NothingReadableFallsBackWithoutCrashing) {
  DeviceProfile p = DetectCpuFrom(Sources({}));  // no files, no affinity
  EXPECT_EQ(p.kind, DeviceKind::kCpu);
  EXPECT_EQ(p.description, "unknown CPU");
  EXPECT_GE(p.num_cores, 1);
  EXPECT_EQ(p.physical_cores, p.num_cores);
  EXPECT_EQ(p.cache_line_bytes, 64);
  EXPECT_EQ(p.l1d_cache_bytes, 32 * 1024);
  EXPECT_EQ(p.l2_cache_bytes, 1024 * 1024);
  EXPECT_EQ(p.l3_cache_bytes, 0);
  EXPECT_EQ(p.clock_mhz, 2000);
  EXPECT_GT(p.peak_gflops, 0);
  for (const char* fallback :
       {"cannot read", "no CPU flags", "no core topology", "clock unknown",
        "no sysfs cache info", "no L3 found"}) {
    EXPECT_NE(p.notes.find(fallback), std::string::npos)
        << fallback << " missing from: " << p.notes;
  }
}

}  // namespace
}  // namespace pruner
