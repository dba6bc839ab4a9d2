// An Arm edge worker, emulated: the aarch64 build of pruner-worker (the
// arm_worker external project, as scripts/build-arm-worker.sh builds it) runs
// under qemu-aarch64 against the real x86-64 server. It must register as an
// AArch64 CPU with NEON, labelled emulated (key cpu-emulated-...), build its
// kernels with the cross compiler, and every kernel must pass the reference
// check inside the emulated process. Its times are the emulator's: they are
// stored under the emulated key only, never as a real device's.
#include <chrono>
#include <cstdio>
#include <string>
#include <vector>

#include "absl/strings/match.h"
#include "common/device/device_profile.h"
#include "common/measure/measure_types.h"
#include "gtest/gtest.h"
#include "tests/e2e/farm_fixture.h"

namespace pruner::e2e {
namespace {

using std::chrono::seconds;

// Small enough for an emulator: qemu runs the reference executor and each
// kernel tens of times slower than the host would.
const std::vector<std::string> kArmOps = {"matmul:M=32,K=32,N=32", "relu:shape=4x64"};

std::vector<std::string> ArmWorkerCommand() {
  return {PRUNER_QEMU_AARCH64, PRUNER_ARM_WORKER_BIN};
}

std::vector<std::string> ArmWorkerFlags() {
  return {"--cpu-backend", "gcc",           "--cxx",         PRUNER_AARCH64_CXX,
          "--march",       "armv8-a",       "--build-jobs",  "2",
          "--max-candidates", "8"};
}

TEST_F(FarmTest, EmulatedArmWorkerMeasuresNeonKernelsThatPassTheReference) {
  const auto start = std::chrono::steady_clock::now();
  StartServer();
  Process worker = farm_->StartWorkerCommand("arm-0", ArmWorkerCommand(), ArmWorkerFlags());
  const std::string device = WaitForWorkers(1);
  ASSERT_FALSE(device.empty()) << farm_->Log(worker);

  const v1::Device registered = Workers().front().device();
  EXPECT_EQ(registered.kind(), v1::DEVICE_KIND_CPU);
  EXPECT_EQ(registered.vector_isa(), "neon") << registered.ShortDebugString();
  EXPECT_TRUE(absl::StartsWith(registered.key(), "cpu-emulated-aarch64-on-")) << registered.key();
  EXPECT_TRUE(IsEmulatedDevice(registered.key()));
  EXPECT_TRUE(absl::StartsWith(registered.description(), "emulated aarch64 on "))
      << registered.description();

  v1::JobSpec spec = SmallJob(device, kArmOps, 16, 8);
  // The cross g++ builds at -O3 beside the rest of a parallel ctest. Most
  // random kernels build in under a second, but now and then one outlives
  // any sane deadline (one took over 60 s while its seven siblings took 3 s
  // together): a build timeout, which the worker reports and the store
  // keeps like any result. This test checks that the kernels that were
  // built run and match, not how fast the cross compiler is.
  spec.mutable_measure()->set_build_timeout_s(60);
  const v1::JobInfo submitted = Submit(spec);
  ASSERT_GT(submitted.id(), 0);
  const auto events = Watch(submitted.id(), seconds(600));
  ASSERT_FALSE(events.empty());
  const v1::ProgressEvent& last = events.back();
  ASSERT_TRUE(last.final()) << "no final event; worker log:\n" << farm_->Log(worker);
  EXPECT_EQ(last.job().status(), "done") << last.job().message();

  // Every candidate was built for AArch64 (a kernel for another
  // architecture cannot load in the emulated process), ran, and matched the
  // reference; all of it under the emulated key.
  const auto records = JobRecords(submitted.id());
  EXPECT_EQ(records.size(), 16u);
  ExpectNoDuplicates(records);
  int ok = 0;
  int build_timeouts = 0;
  for (const StoredRecord& r : records) {
    const bool slow_build = r.result.error == MeasureError::kBuildTimeout &&
                            absl::StrContains(r.result.message, PRUNER_AARCH64_CXX);
    EXPECT_TRUE(r.result.ok() || slow_build)
        << MeasureErrorName(r.result.error) << ": " << r.result.message << "\nworker log:\n"
        << farm_->Log(worker);
    EXPECT_EQ(r.measured_by, "arm-0");
    EXPECT_EQ(r.device_key, device);
    ok += r.result.ok() ? 1 : 0;
    build_timeouts += slow_build ? 1 : 0;
  }
  // A slow build is rare: most of the kernels must have run and matched.
  EXPECT_GE(ok, 12) << build_timeouts << " build timeouts";
  const double wall_s =
      std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  std::printf("emulated Arm worker (%s): %d of %zu kernels ran and matched the reference, %d "
              "cross builds timed out; test %.1f s\n",
              device.c_str(), ok, records.size(), build_timeouts, wall_s);
}

}  // namespace
}  // namespace pruner::e2e
