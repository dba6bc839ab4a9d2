// The hazard LocalMeasurer exists for: once this process has run an OpenMP
// parallel region (as XGBoost and LibTorch do), a sandbox child forked from
// the same thread would hang in the kernel's own parallel region. Measuring
// through LocalMeasurer's dedicated thread must still work.
#include <omp.h>

#include <atomic>

#include "common/device/device_profile.h"
#include "common/ir/ops.h"
#include "common/measure/measurer.h"
#include "common/schedule/step.h"
#include "common/sketch/annotate.h"
#include "common/sketch/sketch.h"
#include "gtest/gtest.h"

namespace pruner {
namespace {

TEST(LocalMeasurerTest, ParallelKernelsRunAfterTheCallerUsedOpenMp) {
  std::atomic<int> threads_seen{0};
#pragma omp parallel num_threads(2)
  { threads_seen.fetch_add(1); }
  ASSERT_GE(threads_seen.load(), 1);

  absl::StatusOr<ComputeDag> built = BuildOperator("matmul:M=64,K=64,N=64");
  ASSERT_TRUE(built.ok()) << built.status();
  const auto dag = std::make_shared<const ComputeDag>(*std::move(built));
  // Runs kernels on this machine, so it measures with this machine's profile.
  const DeviceProfile cpu = DetectLocalCpu();
  auto sketches = GenerateSketches(dag, cpu);
  ASSERT_TRUE(sketches.ok());
  Rng rng(5);
  std::vector<MeasureInput> inputs;
  // Schedules whose sentence has a parallel annotation.
  for (int attempt = 0; attempt < 200 && inputs.size() < 3; ++attempt) {
    auto state = SampleSchedule(rng.Choice(*sketches), cpu, rng);
    if (!state.ok()) continue;
    if (state->ToSentence().find("parallel") == std::string::npos) continue;
    inputs.push_back(MeasureInput{dag, state->steps(), cpu});
  }
  ASSERT_EQ(inputs.size(), 3u);
  MeasureOptions options;
  options.number = 1;
  options.repeat = 1;
  options.min_repeat_ms = 0;
  options.run_timeout_s = 10;
  auto measurer = MakeLocalMeasurer(options);
  EXPECT_EQ(measurer->Name().rfind("local:", 0), 0u);
  auto results = measurer->Measure(inputs);
  ASSERT_TRUE(results.ok()) << results.status();
  for (const MeasureResult& r : *results) {
    EXPECT_TRUE(r.ok()) << r.Describe();
  }
}

}  // namespace
}  // namespace pruner
