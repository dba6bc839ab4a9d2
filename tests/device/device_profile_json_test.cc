// JSON exchange of device profiles between workers and the scheduler.
#include "common/device/device_profile_json.h"

#include <nlohmann/json.hpp>

#include "gtest/gtest.h"

namespace pruner {
namespace {

using nlohmann::json;

// Every field set to a distinct non-default value, so a field the codec
// forgets cannot survive the round trip.
DeviceProfile EveryFieldSet() {
  DeviceProfile p;
  p.name = "synthetic";
  p.kind = DeviceKind::kGpu;
  p.description = "Synthetic GPU \"quoted\" \u00e9";
  p.peak_gflops = 12345.678901234567;
  p.mem_bandwidth_gbps = 0.1;
  p.clock_mhz = 1234.5;
  p.vector_unit_bytes = 3;
  p.cache_line_bytes = 5;
  p.l2_cache_bytes = int64_t{1} << 40;
  p.sm_count = 7;
  p.warp_size = 11;
  p.max_threads_per_block = 13;
  p.max_threads_per_sm = 17;
  p.max_blocks_per_sm = 19;
  p.max_shared_memory_per_block = 23;
  p.max_shared_memory_per_block_optin = 29;
  p.shared_memory_per_sm = 31;
  p.max_local_memory_per_block = 37;
  p.registers_per_block = 41;
  p.registers_per_sm = 43;
  p.max_registers_per_thread = 47;
  p.reg_cap = 53;
  p.active_blocks_per_sm = 59;
  p.sm_partitions = 61;
  p.max_vthread_extent = 67;
  p.dram_transaction_bytes = 71;
  p.compute_capability_major = 73;
  p.compute_capability_minor = 79;
  p.max_block_dims = {83, 89, 97};
  p.max_grid_dims = {101, 103, 107};
  p.num_cores = 109;
  p.physical_cores = 113;
  p.vector_isa = "isa";
  p.l1d_cache_bytes = 127;
  p.l3_cache_bytes = 131;
  p.fma_units_per_core = 137;
  p.notes = "notes";
  return p;
}

TEST(DeviceProfileJsonTest, RoundTripsEveryField) {
  DeviceProfile original = EveryFieldSet();
  json j = DeviceProfileToJson(original);
  EXPECT_EQ(j["kind"], "gpu");
  EXPECT_EQ(j["max_grid_dims"], json::array({101, 103, 107}));
  absl::StatusOr<DeviceProfile> back = DeviceProfileFromJson(j);
  ASSERT_TRUE(back.ok()) << back.status();
  EXPECT_EQ(*back, original);
}

TEST(DeviceProfileJsonTest, RoundTripsEveryBuiltinThroughText) {
  for (const std::string& name : KnownDeviceProfiles()) {
    absl::StatusOr<DeviceProfile> profile = GetDeviceProfile(name);
    ASSERT_TRUE(profile.ok()) << profile.status();
    for (int indent : {-1, 2}) {
      std::string text = DeviceProfileToJsonString(*profile, indent);
      absl::StatusOr<DeviceProfile> back = DeviceProfileFromJsonString(text);
      ASSERT_TRUE(back.ok()) << back.status() << "\n" << text;
      EXPECT_EQ(*back, *profile) << text;
    }
  }
}

TEST(DeviceProfileJsonTest, PartialReportLeavesTheRestUnknown) {
  absl::StatusOr<DeviceProfile> p = DeviceProfileFromJsonString(
      R"({"name": "gpu0", "kind": "gpu", "warp_size": 32, "sm_count": 108,
          "compute_capability_major": 8, "future_field": [1, 2]})");
  ASSERT_TRUE(p.ok()) << p.status();
  EXPECT_EQ(p->name, "gpu0");
  EXPECT_TRUE(p->IsGpu());
  EXPECT_EQ(p->sm_count, 108);
  EXPECT_EQ(p->peak_gflops, 0);
  EXPECT_EQ(p->max_grid_dims, (std::array<int64_t, 3>{0, 0, 0}));
  absl::StatusOr<DeviceProfile> builtin = GetDeviceProfile("a100");
  ASSERT_TRUE(builtin.ok());
  EXPECT_TRUE(CheckCompatible(*p, *builtin).ok());
}

TEST(DeviceProfileJsonTest, IntegralDoublesAndUnsignedIntegersAreAccepted) {
  absl::StatusOr<DeviceProfile> p = DeviceProfileFromJson(
      json{{"name", "x"}, {"kind", "cpu"}, {"peak_gflops", 100},
           {"num_cores", 8u}});
  ASSERT_TRUE(p.ok()) << p.status();
  EXPECT_EQ(p->peak_gflops, 100.0);
  EXPECT_EQ(p->num_cores, 8);
}

TEST(DeviceProfileJsonTest, RejectsMalformedInput) {
  const char* const bad[] = {
      "not json",
      "[1, 2]",
      R"({"name": "x"})",                               // no kind
      R"({"name": "x", "kind": "tpu"})",                // unknown kind
      R"({"name": "x", "kind": 1})",                    // kind not a string
      R"({"kind": "gpu"})",                             // no name
      R"({"name": "x", "kind": "gpu", "sm_count": "108"})",
      R"({"name": "x", "kind": "gpu", "sm_count": 1.5})",
      R"({"name": "x", "kind": "gpu", "sm_count": 4294967296})",
      R"({"name": "x", "kind": "gpu", "sm_count": -4294967296})",
      R"({"name": "x", "kind": "gpu", "l2_cache_bytes": 18446744073709551615})",
      R"({"name": "x", "kind": "gpu", "peak_gflops": "fast"})",
      R"({"name": "x", "kind": "gpu", "max_grid_dims": [1, 2]})",
      R"({"name": "x", "kind": "gpu", "max_grid_dims": [1, 2, "3"]})",
      R"({"name": "x", "kind": "cpu", "vector_isa": 512})",
  };
  for (const char* text : bad) {
    absl::StatusOr<DeviceProfile> p = DeviceProfileFromJsonString(text);
    EXPECT_FALSE(p.ok()) << text;
    if (!p.ok()) {
      EXPECT_EQ(p.status().code(), absl::StatusCode::kInvalidArgument)
          << text;
    }
  }
}

TEST(DeviceProfileJsonTest, ErrorNamesTheField) {
  absl::StatusOr<DeviceProfile> p = DeviceProfileFromJsonString(
      R"({"name": "x", "kind": "gpu", "warp_size": "32"})");
  ASSERT_FALSE(p.ok());
  EXPECT_NE(p.status().message().find("warp_size"), std::string::npos)
      << p.status();
}

}  // namespace
}  // namespace pruner
