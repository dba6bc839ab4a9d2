// Device resolution: the local CPU under its stable key, GPU profiles only
// with a GPU that matches them.
#include "worker/worker_device.h"

#include "common/codegen/cuda_driver.h"
#include "worker/gpu_query.h"
#include "gtest/gtest.h"
#include "proto/wire_convert.h"

namespace pruner {
namespace {

// An H100 SXM as cuDeviceGetAttribute describes it.
CudaDeviceProperties H100Properties() {
  CudaDeviceProperties p;
  p.name = "NVIDIA H100 80GB HBM3";
  p.compute_capability_major = 9;
  p.compute_capability_minor = 0;
  p.sm_count = 132;
  p.warp_size = 32;
  p.max_threads_per_block = 1024;
  p.max_threads_per_sm = 2048;
  p.registers_per_block = 65536;
  p.registers_per_sm = 65536;
  p.shared_memory_per_block = 49152;
  p.shared_memory_per_block_optin = 232448;
  p.shared_memory_per_sm = 233472;
  p.l2_cache_bytes = 52428800;
  p.total_memory_bytes = 85017755648;
  p.clock_khz = 1980000;
  return p;
}

TEST(WorkerDeviceTest, CpuIsTheDetectedCpuUnderItsStableKey) {
  auto device = ResolveWorkerDevice("cpu");
  ASSERT_TRUE(device.ok()) << device.status();
  EXPECT_EQ(device->profile, WithStableCpuKey(DetectLocalCpu()));
  EXPECT_NE(device->profile.name, "cpu-local");
  EXPECT_EQ(device->profile.name.rfind("cpu-", 0), 0u);
  EXPECT_EQ(device->memory_bytes, 0);
  const v1::Device wire = WorkerDeviceToWire(*device);
  EXPECT_EQ(wire.key(), device->profile.name);
  EXPECT_EQ(wire.kind(), v1::DEVICE_KIND_CPU);
}

TEST(WorkerDeviceTest, UnknownNameListsTheProfiles) {
  auto device = ResolveWorkerDevice("tpu-v9");
  ASSERT_FALSE(device.ok());
  EXPECT_TRUE(absl::IsNotFound(device.status())) << device.status();
  EXPECT_NE(device.status().message().find("a100"), std::string::npos);
}

TEST(WorkerDeviceTest, GpuProfileWithoutAGpuIsRefused) {
  if (QueryGpuInSandbox().ok()) GTEST_SKIP() << "this host has a CUDA GPU";
  auto device = ResolveWorkerDevice("a100");
  ASSERT_FALSE(device.ok());
  EXPECT_TRUE(absl::IsFailedPrecondition(device.status())) << device.status();
  EXPECT_NE(device.status().message().find("needs a CUDA GPU"), std::string::npos)
      << device.status();
}

TEST(WorkerDeviceTest, GpuIsDescribedByTheDriverUnderTheProfileName) {
  auto builtin = GetDeviceProfile("h100");
  ASSERT_TRUE(builtin.ok());
  auto device = GpuDeviceFromProperties(H100Properties(), *builtin);
  ASSERT_TRUE(device.ok()) << device.status();
  EXPECT_EQ(device->profile.name, builtin->name);
  EXPECT_TRUE(device->profile.IsGpu());
  EXPECT_EQ(device->profile.description, "NVIDIA H100 80GB HBM3");
  EXPECT_EQ(device->profile.sm_count, 132);
  EXPECT_EQ(device->profile.max_shared_memory_per_block_optin, 232448);
  EXPECT_DOUBLE_EQ(device->profile.clock_mhz, 1980);
  // What the driver does not tell comes from the built-in profile.
  EXPECT_EQ(device->profile.peak_gflops, builtin->peak_gflops);
  EXPECT_EQ(device->profile.reg_cap, builtin->reg_cap);
  EXPECT_EQ(device->memory_bytes, 85017755648);

  const v1::Device wire = WorkerDeviceToWire(*device);
  EXPECT_EQ(wire.key(), builtin->name);
  EXPECT_EQ(wire.kind(), v1::DEVICE_KIND_GPU);
  EXPECT_EQ(wire.memory_bytes(), 85017755648);
  EXPECT_EQ(wire.compute_capability_major(), 9);
  auto back = DeviceFromWire(wire);
  ASSERT_TRUE(back.ok()) << back.status();
  EXPECT_EQ(*back, device->profile);
}

TEST(WorkerDeviceTest, GpuThatDoesNotMatchTheProfileIsRefused) {
  auto a100 = GetDeviceProfile("a100");
  ASSERT_TRUE(a100.ok());
  auto device = GpuDeviceFromProperties(H100Properties(), *a100);
  ASSERT_FALSE(device.ok());
  EXPECT_TRUE(absl::IsFailedPrecondition(device.status()));
  EXPECT_NE(device.status().message().find("compute capability"), std::string::npos)
      << device.status();
}

// An H200 has the H100's chip and every property the checks compare: only
// the driver's name tells them apart, and their records must not mix.
TEST(WorkerDeviceTest, H200IsNotAnH100) {
  CudaDeviceProperties h200 = H100Properties();
  h200.name = "NVIDIA H200";
  h200.total_memory_bytes = 150754820096;
  auto h100_profile = GetDeviceProfile("h100");
  ASSERT_TRUE(h100_profile.ok());
  auto refused = GpuDeviceFromProperties(h200, *h100_profile);
  ASSERT_FALSE(refused.ok());
  EXPECT_TRUE(absl::IsFailedPrecondition(refused.status()));
  EXPECT_NE(refused.status().message().find("NVIDIA H200"), std::string::npos)
      << refused.status();

  auto h200_profile = GetDeviceProfile("h200");
  ASSERT_TRUE(h200_profile.ok());
  auto device = GpuDeviceFromProperties(h200, *h200_profile);
  ASSERT_TRUE(device.ok()) << device.status();
  EXPECT_EQ(device->profile.name, "h200-sxm");
  EXPECT_EQ(device->profile.mem_bandwidth_gbps, 4800);
  EXPECT_EQ(device->memory_bytes, 150754820096);
  EXPECT_FALSE(GpuDeviceFromProperties(H100Properties(), *h200_profile).ok());
}

TEST(WorkerDeviceTest, GpuQueryReplyCarriesEveryPropertyThroughThePipe) {
  const CudaDeviceProperties sent = H100Properties();
  auto got = DecodeGpuQueryReply(EncodeGpuQueryReply(sent));
  ASSERT_TRUE(got.ok()) << got.status();
  EXPECT_EQ(got->name, sent.name);
  EXPECT_EQ(got->compute_capability_major, 9);
  EXPECT_EQ(got->sm_count, 132);
  EXPECT_EQ(got->shared_memory_per_block_optin, sent.shared_memory_per_block_optin);
  EXPECT_EQ(got->l2_cache_bytes, sent.l2_cache_bytes);
  EXPECT_EQ(got->total_memory_bytes, sent.total_memory_bytes);
  EXPECT_EQ(got->clock_khz, sent.clock_khz);

  auto none = DecodeGpuQueryReply(
      EncodeGpuQueryReply(absl::FailedPreconditionError("no CUDA driver: libcuda.so.1 missing")));
  EXPECT_TRUE(absl::IsFailedPrecondition(none.status()));
  EXPECT_EQ(none.status().message(), "no CUDA driver: libcuda.so.1 missing");
  EXPECT_TRUE(absl::IsInvalidArgument(DecodeGpuQueryReply("ok\n1 2\nname").status()));
  EXPECT_TRUE(absl::IsInvalidArgument(DecodeGpuQueryReply("").status()));
}

TEST(WorkerDeviceTest, GpuQueryRunsInAChildAndSaysWhyItFailed) {
  auto properties = QueryGpuInSandbox();
  if (properties.ok()) {
    EXPECT_GT(properties->sm_count, 0);
    EXPECT_FALSE(properties->name.empty());
  } else {
    EXPECT_TRUE(absl::IsFailedPrecondition(properties.status())) << properties.status();
    EXPECT_NE(properties.status().message().find("CUDA"), std::string::npos)
        << properties.status();
  }
}

}  // namespace
}  // namespace pruner
