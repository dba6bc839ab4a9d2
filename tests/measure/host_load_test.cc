// The contention signal: work of this process's threads counts as other
// work, a reaped child's does not. Other load on the test machine can only
// raise the readings, so the live checks are lower bounds.
#include "common/measure/host_load.h"

#include <sys/wait.h>
#include <unistd.h>

#include <atomic>
#include <chrono>
#include <thread>

#include "gtest/gtest.h"

namespace pruner {
namespace {

void SpinFor(std::chrono::milliseconds duration) {
  const auto end = std::chrono::steady_clock::now() + duration;
  volatile double x = 1;
  while (std::chrono::steady_clock::now() < end) x = x * 1.0000001 + 1e-9;
}

TEST(HostLoadTest, ArithmeticSubtractsTheChildrenAndDividesByWallTime) {
  HostCpuSample before{10.0, 2.0, 100.0};
  HostCpuSample after{12.5, 3.5, 101.0};  // 2.5 busy, 1.5 of it the child's
  EXPECT_DOUBLE_EQ(OtherBusyCores(before, after), 1.0);
  after.children_cpu_s = 5.0;  // jiffy rounding can make it negative
  EXPECT_DOUBLE_EQ(OtherBusyCores(before, after), 0.0);
  EXPECT_EQ(OtherBusyCores(std::nullopt, after), -1);
  EXPECT_EQ(OtherBusyCores(before, before), -1);  // empty window
}

TEST(HostLoadTest, ASpinningThreadOfThisProcessIsOtherWork) {
  const std::optional<HostCpuSample> before = SampleHostCpu();
  ASSERT_TRUE(before.has_value()) << "no /proc/stat";
  std::thread spinner([] { SpinFor(std::chrono::milliseconds(400)); });
  spinner.join();
  EXPECT_GE(OtherBusyCores(before, SampleHostCpu()), 0.6);
}

TEST(HostLoadTest, AReapedChildIsNotOtherWork) {
  const std::optional<HostCpuSample> before = SampleHostCpu();
  ASSERT_TRUE(before.has_value());
  const pid_t child = fork();
  ASSERT_GE(child, 0);
  if (child == 0) {
    SpinFor(std::chrono::milliseconds(400));
    _exit(0);
  }
  int status = 0;
  ASSERT_EQ(waitpid(child, &status, 0), child);
  const std::optional<HostCpuSample> after = SampleHostCpu();
  ASSERT_TRUE(after.has_value());
  // The child's CPU time was counted and taken out of the host's busy time.
  const double wall = after->wall_s - before->wall_s;
  EXPECT_GE((after->children_cpu_s - before->children_cpu_s) / wall, 0.6);
  const double host_busy = (after->host_busy_s - before->host_busy_s) / wall;
  EXPECT_LE(OtherBusyCores(before, after), host_busy - 0.5);
}

}  // namespace
}  // namespace pruner
