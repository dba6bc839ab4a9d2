// `pruner check`'s library: random schedules of the built-in networks' real
// task shapes, interpreted, then built and run through the measurement path
// (sandbox, guard pages, reference check). The codegen tests run small
// shapes; these are the shapes users tune, where MobileNet's padded
// depthwise convs once crashed. `pruner check --network NAME --run` is the
// heavier version of the same check.
#include "client/schedule_check.h"

#include <string>
#include <vector>

#include "common/device/device_profile.h"
#include "common/tune/job_tasks.h"
#include "gtest/gtest.h"

namespace pruner {
namespace {

// Every `stride`-th task of a network, so that each network's operator mix
// is sampled within the suite's time.
std::vector<SearchTask> SampledTasks(const std::string& network, int stride) {
  absl::StatusOr<std::vector<SearchTask>> tasks = BuildJobTasks({}, network);
  EXPECT_TRUE(tasks.ok()) << tasks.status();
  std::vector<SearchTask> sampled;
  if (!tasks.ok()) return sampled;
  for (size_t i = 0; i < tasks->size(); i += stride) sampled.push_back((*tasks)[i]);
  return sampled;
}

void ExpectAllRunRight(const std::vector<SearchTask>& tasks, const ScheduleCheckOptions& options) {
  const DeviceProfile device = DetectLocalCpu();  // the kernels run here
  for (const SearchTask& task : tasks) {
    absl::StatusOr<ScheduleCheckReport> report = CheckSchedules(task.dag, device, options);
    ASSERT_TRUE(report.ok()) << task.name << ": " << report.status();
    std::string failures;
    for (const std::string& f : report->failed_sentences) failures += f + "\n";
    EXPECT_EQ(report->sampled, options.num_schedules) << task.name;
    EXPECT_EQ(report->matched, report->sampled) << task.name << "\n" << failures;
    EXPECT_EQ(report->ran, report->lowered) << task.name;
    EXPECT_EQ(report->run_matched, report->sampled) << task.name << "\n" << failures;
  }
}

ScheduleCheckOptions TwoRunsEach(uint64_t seed, int threads) {
  ScheduleCheckOptions options;
  options.num_schedules = 2;
  options.seed = seed;
  options.run = true;
  options.num_threads = threads;
  return options;
}

TEST(NetworkScheduleCheck, MobileNetTasksBuildRunAndMatchOnTwoThreads) {
  ExpectAllRunRight(SampledTasks("mobilenet-v2", 8), TwoRunsEach(8, 2));
}

TEST(NetworkScheduleCheck, ResNetTasksBuildRunAndMatchOnOneThread) {
  ExpectAllRunRight(SampledTasks("resnet-50", 9), TwoRunsEach(3, 1));
}

// One of the 197 schedules that died with SIGSEGV on an Intel Xeon: GCC 12
// compiled its padding loop for Sapphire Rapids into a full-width load and a
// blend where a masked load was meant, reading a few floats past the input's
// end onto the guard page. The buffers' read slack (cpu_codegen.h) makes it
// harmless. The same code is built here when this CPU runs it.
TEST(NetworkScheduleCheck, XeonCodeOfACrashedDepthwiseScheduleRunsRight) {
  __builtin_cpu_init();
  const bool runs_sapphire_rapids_code =
      __builtin_cpu_supports("avx512f") && __builtin_cpu_supports("avx512bw") &&
      __builtin_cpu_supports("avx512vl") && __builtin_cpu_supports("avx512dq") &&
      __builtin_cpu_supports("avx512cd") && __builtin_cpu_supports("avx512vnni") &&
      __builtin_cpu_supports("avx512bf16") && __builtin_cpu_supports("avx512vbmi") &&
      __builtin_cpu_supports("avx512vbmi2");
  if (!runs_sapphire_rapids_code) GTEST_SKIP() << "this CPU does not run -march=sapphirerapids code";
  absl::StatusOr<std::vector<SearchTask>> tasks = BuildJobTasks({}, "mobilenet-v2");
  ASSERT_TRUE(tasks.ok()) << tasks.status();
  const SearchTask* depthwise = nullptr;
  for (const SearchTask& task : *tasks) {
    if (task.name == "depthwise_conv2d_bias_relu6_N1_C384_H14_W14_K384_R3_S3_pad1") depthwise = &task;
  }
  ASSERT_NE(depthwise, nullptr);
  ScheduleCheckOptions options;
  options.steps =
      "CI 5; SP 4 0 1 [1,1,1]; SP 4 4 384 [1,8,24]; SP 4 8 14 [2,1,1]; SP 4 12 14 [1,1,2]; "
      "SP 4 16 3 [1]; SP 4 18 3 [1]; RE 4 [0,4,8,12,1,5,9,13,16,18,2,6,10,14,17,19,3,7,11,15]; "
      "FSP 6 0 1 2; FSP 6 3 2 2; FSP 6 6 3 2; FSP 6 9 4 2; RE 6 [0,3,6,9,1,4,7,10,2,5,8,11]; "
      "CA 4 6 7; CA 3 6 2; FU 6 [0,1,2]; AN 6 0 parallel; PR 4 0 auto_unroll_max_step$512; "
      "AN 3 3 vectorize; AN 4 19 vectorize; AN 6 9 vectorize";
  options.run = true;
  options.march = "sapphirerapids";
  absl::StatusOr<ScheduleCheckReport> report =
      CheckSchedules(depthwise->dag, DetectLocalCpu(), options);
  ASSERT_TRUE(report.ok()) << report.status();
  ASSERT_EQ(report->sampled, 1);
  EXPECT_EQ(report->run_matched, 1) << (report->failed_sentences.empty()
                                            ? std::string()
                                            : report->failed_sentences[0]);
}

TEST(NetworkScheduleCheck, RefusesBadSentencesAndRunsOnGpuProfiles) {
  absl::StatusOr<std::vector<SearchTask>> tasks = BuildJobTasks({"dense:M=8,K=8,N=8"}, "");
  ASSERT_TRUE(tasks.ok()) << tasks.status();
  ScheduleCheckOptions options;
  options.steps = "SP 99 0 8 [2]";
  EXPECT_FALSE(CheckSchedules((*tasks)[0].dag, DetectLocalCpu(), options).ok());
  options.steps = "not a sentence";
  EXPECT_FALSE(CheckSchedules((*tasks)[0].dag, DetectLocalCpu(), options).ok());

  ScheduleCheckOptions run_on_gpu;
  run_on_gpu.run = true;
  absl::StatusOr<DeviceProfile> a100 = GetDeviceProfile("a100");
  ASSERT_TRUE(a100.ok());
  absl::StatusOr<ScheduleCheckReport> report = CheckSchedules((*tasks)[0].dag, *a100, run_on_gpu);
  ASSERT_FALSE(report.ok());
  EXPECT_NE(report.status().message().find("not a CPU profile"), std::string::npos)
      << report.status();
}

}  // namespace
}  // namespace pruner
