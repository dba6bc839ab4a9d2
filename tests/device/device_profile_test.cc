// Built-in profiles, name lookup, compatibility checks and filling in.
#include "common/device/device_profile.h"
#include "common/device/thread_limit.h"

#include <cctype>
#include <string>

#include "gtest/gtest.h"

namespace pruner {
namespace {

const char* const kGpuNames[] = {"a100-40gb", "jetson-orin", "titan-v",
                                 "h100-sxm", "h200-sxm"};

DeviceProfile MustGet(std::string_view name) {
  absl::StatusOr<DeviceProfile> profile = GetDeviceProfile(name);
  EXPECT_TRUE(profile.ok()) << profile.status();
  return profile.ok() ? *profile : DeviceProfile{};
}

TEST(DeviceProfileTest, KnownNamesAreTheSixBuiltins) {
  EXPECT_EQ(KnownDeviceProfiles(),
            (std::vector<std::string>{"a100-40gb", "jetson-orin", "titan-v",
                                      "h100-sxm", "h200-sxm", "cpu-local"}));
  for (const std::string& name : KnownDeviceProfiles()) {
    EXPECT_EQ(MustGet(name).name, name);
  }
}

TEST(DeviceProfileTest, GpuProfilesHaveSanePositiveFields) {
  for (const char* name : kGpuNames) {
    SCOPED_TRACE(name);
    DeviceProfile p = MustGet(name);
    EXPECT_TRUE(p.IsGpu());
    EXPECT_FALSE(p.description.empty());
    EXPECT_FALSE(p.notes.empty());
    EXPECT_GT(p.peak_gflops, 1000);
    EXPECT_GT(p.mem_bandwidth_gbps, 100);
    EXPECT_GT(p.clock_mhz, 500);
    EXPECT_GT(p.sm_count, 0);
    EXPECT_EQ(p.warp_size, 32);
    EXPECT_EQ(p.max_threads_per_block, 1024);
    EXPECT_GE(p.max_threads_per_sm, p.max_threads_per_block);
    EXPECT_GT(p.max_blocks_per_sm, 0);
    EXPECT_EQ(p.max_shared_memory_per_block, 48 * 1024);
    EXPECT_GE(p.max_shared_memory_per_block_optin,
              p.max_shared_memory_per_block);
    EXPECT_GE(p.shared_memory_per_sm, p.max_shared_memory_per_block_optin);
    EXPECT_GT(p.max_local_memory_per_block, 0);
    EXPECT_EQ(p.registers_per_block, 65536);
    EXPECT_GE(p.registers_per_sm, p.registers_per_block);
    EXPECT_EQ(p.max_registers_per_thread, 255);
    EXPECT_EQ(p.reg_cap, 128);
    EXPECT_EQ(p.active_blocks_per_sm, 1);
    EXPECT_EQ(p.sm_partitions, 4);
    EXPECT_EQ(p.max_vthread_extent, p.warp_size / 4);
    EXPECT_EQ(p.vector_unit_bytes, 16);
    EXPECT_EQ(p.cache_line_bytes, 64);
    EXPECT_EQ(p.dram_transaction_bytes, 32);
    EXPECT_GT(p.l2_cache_bytes, 1 << 20);
    EXPECT_GE(p.compute_capability_major, 7);
    EXPECT_EQ(p.max_block_dims, (std::array<int64_t, 3>{1024, 1024, 64}));
    EXPECT_EQ(p.max_grid_dims,
              (std::array<int64_t, 3>{2147483647, 65535, 65535}));
    // CPU-only fields stay unknown on GPUs, as in Ansor's HardwareParams.
    EXPECT_EQ(p.num_cores, 0);
    EXPECT_TRUE(p.vector_isa.empty());
  }
}

// The analyzer numbers must equal Pruner's psamodel_params table.
TEST(DeviceProfileTest, PrunerTableNumbers) {
  struct Row { const char* name; double gflops, gbps; int sms; };
  for (const Row& row : {Row{"a100_40", 19490, 1555, 108},
                         Row{"orin", 2660, 204, 16},
                         Row{"titanv", 14900, 651, 80}}) {
    SCOPED_TRACE(row.name);
    DeviceProfile p = MustGet(row.name);
    EXPECT_EQ(p.peak_gflops, row.gflops);
    EXPECT_EQ(p.mem_bandwidth_gbps, row.gbps);
    EXPECT_EQ(p.sm_count, row.sms);
  }
}

// Peak = SMs x fp32 lanes per SM x 2 x boost clock, within 0.1%; Orin's
// Pruner number is half of that on purpose (see gpu_profiles.cc).
TEST(DeviceProfileTest, PeakMatchesLanesTimesClock) {
  struct Row { const char* name; int lanes_per_sm; double factor; };
  for (const Row& row : {Row{"a100-40gb", 64, 1.0}, Row{"titan-v", 64, 1.0},
                         Row{"h100-sxm", 128, 1.0}, Row{"h200-sxm", 128, 1.0},
                         Row{"jetson-orin", 128, 0.5}}) {
    SCOPED_TRACE(row.name);
    DeviceProfile p = MustGet(row.name);
    double datasheet =
        p.sm_count * row.lanes_per_sm * 2.0 * p.clock_mhz / 1000.0;
    EXPECT_NEAR(p.peak_gflops, datasheet * row.factor,
                datasheet * row.factor * 0.001);
  }
}

TEST(DeviceProfileTest, SpecificHardwareFacts) {
  DeviceProfile a100 = MustGet("a100");
  EXPECT_EQ(a100.shared_memory_per_sm, 164 * 1024);
  EXPECT_EQ(a100.max_shared_memory_per_block_optin, 163 * 1024);
  EXPECT_EQ(a100.compute_capability_major, 8);
  EXPECT_EQ(a100.compute_capability_minor, 0);
  DeviceProfile h100 = MustGet("h100");
  EXPECT_EQ(h100.shared_memory_per_sm, 228 * 1024);
  EXPECT_EQ(h100.compute_capability_major, 9);
  EXPECT_EQ(h100.mem_bandwidth_gbps, 3350);
  DeviceProfile titan = MustGet("titanv");
  EXPECT_EQ(titan.compute_capability_major, 7);
  EXPECT_EQ(titan.compute_capability_minor, 0);
  DeviceProfile orin = MustGet("orin");
  EXPECT_EQ(orin.compute_capability_minor, 7);
  EXPECT_EQ(orin.max_threads_per_sm, 1536);
}

TEST(DeviceProfileTest, AliasesResolve) {
  const std::pair<const char*, const char*> cases[] = {
      {"a100", "a100-40gb"},      {"A100-40GB", "a100-40gb"},
      {"a100_40", "a100-40gb"},   {"orin", "jetson-orin"},
      {"Jetson_Orin", "jetson-orin"}, {"titanv", "titan-v"},
      {" TitanV ", "titan-v"},    {"titan-v", "titan-v"},
      {"h100", "h100-sxm"},       {"H100-SXM", "h100-sxm"},
      {"h200", "h200-sxm"},       {"H200_SXM", "h200-sxm"},
      {"cpu", "cpu-local"},       {"local", "cpu-local"},
      {"cpu-local", "cpu-local"},
  };
  for (const auto& [alias, canonical] : cases) {
    EXPECT_EQ(MustGet(alias).name, canonical) << alias;
  }
}

TEST(DeviceProfileTest, LocalAliasIsTheDetectedCpu) {
  DeviceProfile cpu = MustGet("cpu");
  EXPECT_EQ(cpu.kind, DeviceKind::kCpu);
  EXPECT_GE(cpu.num_cores, 1);
  EXPECT_EQ(cpu, MustGet("local"));  // detected once, cached
}

// The key records carry names this CPU too, whatever CPU runs the test.
TEST(DeviceProfileTest, StableKeyOfThisCpuIsTheDetectedCpu) {
  const DeviceProfile keyed = WithStableCpuKey(MustGet("cpu"));
  ASSERT_EQ(keyed.name.rfind("cpu-", 0), 0u) << keyed.name;
  EXPECT_EQ(MustGet(keyed.name), keyed);
  std::string shouted = keyed.name;
  for (char& c : shouted) c = c == '-' ? '_' : static_cast<char>(std::toupper(c));
  EXPECT_EQ(MustGet(shouted), keyed);
}

TEST(DeviceProfileTest, AnotherCpusKeySaysWhichCpuThisIs) {
  const std::string here = WithStableCpuKey(MustGet("cpu")).name;
  const std::string other =
      here == "cpu-no-such-cpu-1t-sse2" ? "cpu-no-such-cpu-2t-sse2" : "cpu-no-such-cpu-1t-sse2";
  absl::StatusOr<DeviceProfile> profile = GetDeviceProfile(other);
  ASSERT_FALSE(profile.ok());
  EXPECT_EQ(profile.status().code(), absl::StatusCode::kNotFound);
  const std::string message(profile.status().message());
  EXPECT_NE(message.find(other), std::string::npos) << message;
  EXPECT_NE(message.find(here), std::string::npos) << message;
}

TEST(DeviceProfileTest, UnknownNameListsKnownNames) {
  absl::StatusOr<DeviceProfile> profile = GetDeviceProfile("v100");
  ASSERT_FALSE(profile.ok());
  EXPECT_EQ(profile.status().code(), absl::StatusCode::kNotFound);
  std::string message(profile.status().message());
  EXPECT_NE(message.find("v100"), std::string::npos);
  for (const std::string& name : KnownDeviceProfiles()) {
    EXPECT_NE(message.find(name), std::string::npos) << message;
  }
  EXPECT_NE(message.find("titanv"), std::string::npos) << message;
}

TEST(DeviceProfileTest, DeviceKindNames) {
  EXPECT_EQ(DeviceKindName(DeviceKind::kGpu), "gpu");
  EXPECT_EQ(DeviceKindName(DeviceKind::kCpu), "cpu");
  EXPECT_EQ(ParseDeviceKind("gpu"), DeviceKind::kGpu);
  EXPECT_EQ(ParseDeviceKind("cpu"), DeviceKind::kCpu);
  EXPECT_EQ(ParseDeviceKind("tpu"), std::nullopt);
}

TEST(CheckCompatibleTest, IdenticalProfilesAreCompatible) {
  for (const std::string& name : KnownDeviceProfiles()) {
    DeviceProfile p = MustGet(name);
    EXPECT_TRUE(CheckCompatible(p, p).ok()) << name;
  }
}

TEST(CheckCompatibleTest, SameMajorAndCloseSmCountPass) {
  DeviceProfile reported = MustGet("a100");
  reported.name = "worker-gpu0";
  reported.compute_capability_minor = 6;  // only the major is compared
  reported.sm_count = 84;                 // within 2x of 108
  reported.peak_gflops = 1;               // analyzer numbers are not checked
  EXPECT_TRUE(CheckCompatible(reported, MustGet("a100")).ok());
}

TEST(CheckCompatibleTest, KindMismatchFails) {
  absl::Status s = CheckCompatible(MustGet("cpu"), MustGet("a100"));
  EXPECT_EQ(s.code(), absl::StatusCode::kFailedPrecondition);
  EXPECT_NE(s.message().find("kind"), std::string::npos) << s;
}

TEST(CheckCompatibleTest, GpuMismatchesAreAllListed) {
  DeviceProfile reported = MustGet("a100");
  reported.warp_size = 64;
  reported.compute_capability_major = 7;
  reported.sm_count = 40;  // 108 > 2 x 40
  absl::Status s = CheckCompatible(reported, MustGet("a100"));
  EXPECT_EQ(s.code(), absl::StatusCode::kFailedPrecondition);
  std::string message(s.message());
  EXPECT_NE(message.find("warp size 64"), std::string::npos) << message;
  EXPECT_NE(message.find("compute capability 7.0"), std::string::npos)
      << message;
  EXPECT_NE(message.find("SM count 40"), std::string::npos) << message;
}

TEST(CheckCompatibleTest, EachGpuRuleAloneFails) {
  const DeviceProfile builtin = MustGet("h100");
  DeviceProfile warp = builtin;
  warp.warp_size = 16;
  DeviceProfile major = builtin;
  major.compute_capability_major = 8;
  DeviceProfile too_many = builtin;
  too_many.sm_count = 265;  // > 2 x 132
  for (const DeviceProfile& reported : {warp, major, too_many}) {
    EXPECT_FALSE(CheckCompatible(reported, builtin).ok());
  }
  DeviceProfile twice = builtin;
  twice.sm_count = 264;  // exactly 2x is still accepted
  EXPECT_TRUE(CheckCompatible(twice, builtin).ok());
}

TEST(CheckCompatibleTest, UnreportedFieldsAreNotChecked) {
  DeviceProfile reported;
  reported.name = "minimal-worker";
  reported.kind = DeviceKind::kGpu;
  EXPECT_TRUE(CheckCompatible(reported, MustGet("titanv")).ok());
}

TEST(CheckCompatibleTest, CpuCoreCounts) {
  DeviceProfile builtin;
  builtin.name = "cpu-local";
  builtin.kind = DeviceKind::kCpu;
  builtin.num_cores = 8;
  DeviceProfile reported = builtin;
  reported.num_cores = 4;
  EXPECT_TRUE(CheckCompatible(reported, builtin).ok());
  reported.num_cores = 3;
  absl::Status s = CheckCompatible(reported, builtin);
  EXPECT_EQ(s.code(), absl::StatusCode::kFailedPrecondition);
  EXPECT_NE(s.message().find("core count 3"), std::string::npos) << s;
  reported.num_cores = 17;
  EXPECT_FALSE(CheckCompatible(reported, builtin).ok());
}

TEST(WithThreadLimitTest, KeepsTheThreadsKernelsRunOnAndTheName) {
  DeviceProfile cpu = MustGet("cpu");
  cpu.name = "cpu-test-8t-avx2";
  cpu.num_cores = 8;
  cpu.physical_cores = 4;
  cpu.peak_gflops = 800;
  cpu.mem_bandwidth_gbps = 40;
  const DeviceProfile two = WithThreadLimit(cpu, 2);
  EXPECT_EQ(two.name, cpu.name);
  EXPECT_EQ(two.num_cores, 2);
  EXPECT_EQ(two.physical_cores, 2);
  EXPECT_DOUBLE_EQ(two.peak_gflops, 200);
  EXPECT_DOUBLE_EQ(two.mem_bandwidth_gbps, 40);
  const DeviceProfile six = WithThreadLimit(cpu, 6);
  EXPECT_EQ(six.num_cores, 6);
  EXPECT_EQ(six.physical_cores, 4);  // never more than it had
  EXPECT_DOUBLE_EQ(six.peak_gflops, 600);
  for (int threads : {0, -1, 8, 16}) {  // all threads, or more than there are
    const DeviceProfile same = WithThreadLimit(cpu, threads);
    EXPECT_EQ(same.num_cores, 8) << threads;
    EXPECT_DOUBLE_EQ(same.peak_gflops, 800) << threads;
  }
  const DeviceProfile gpu = WithThreadLimit(MustGet("a100"), 1);
  EXPECT_EQ(gpu.sm_count, MustGet("a100").sm_count);
  EXPECT_DOUBLE_EQ(gpu.peak_gflops, MustGet("a100").peak_gflops);
}

TEST(FillUnknownFieldsTest, ReportedValuesWinAndGapsAreFilled) {
  const DeviceProfile builtin = MustGet("a100");
  DeviceProfile reported;
  reported.name = "a100-worker-3";
  reported.kind = DeviceKind::kGpu;
  reported.sm_count = 98;  // e.g. a MIG slice or a binned part
  reported.description = "NVIDIA A100-PCIE-40GB";
  DeviceProfile filled = FillUnknownFields(reported, builtin);
  EXPECT_EQ(filled.name, "a100-worker-3");
  EXPECT_EQ(filled.sm_count, 98);
  EXPECT_EQ(filled.description, "NVIDIA A100-PCIE-40GB");
  EXPECT_EQ(filled.peak_gflops, builtin.peak_gflops);
  EXPECT_EQ(filled.shared_memory_per_sm, builtin.shared_memory_per_sm);
  EXPECT_EQ(filled.max_grid_dims, builtin.max_grid_dims);
  EXPECT_EQ(filled.reg_cap, 128);
  EXPECT_EQ(filled.notes, builtin.notes);
}

}  // namespace
}  // namespace pruner
