// MeasureBatch end to end: random schedules measured for real, and every
// error class MeasureBatch produces on its own (invalid schedule, build
// error, build timeout, device error).
#include "common/measure/local_measurer.h"

#include <chrono>
#include <cstdio>
#include <memory>
#include <string>
#include <vector>

#include "common/device/device_profile.h"
#include "common/ir/ops.h"
#include "common/sketch/annotate.h"
#include "common/sketch/random.h"
#include "common/sketch/sketch.h"
#include "common/sketch/window_seeds.h"
#include "gtest/gtest.h"

namespace pruner {
namespace {

DeviceProfile Profile(const std::string& name) {
  auto device = GetDeviceProfile(name);
  EXPECT_TRUE(device.ok()) << device.status();
  return device.ok() ? *device : DeviceProfile{};
}

std::vector<MeasureInput> SampleInputs(const std::string& spec, const DeviceProfile& device, int n,
                                       uint64_t seed) {
  auto built = BuildOperator(spec);
  EXPECT_TRUE(built.ok()) << built.status();
  if (!built.ok()) return {};
  auto dag = std::make_shared<const ComputeDag>(*std::move(built));
  auto sketches = GenerateSketches(dag, device);
  EXPECT_TRUE(sketches.ok()) << sketches.status();
  if (!sketches.ok()) return {};
  Rng rng(seed);
  std::vector<MeasureInput> inputs;
  for (const State& state : SampleInitPopulation(*sketches, device, n, rng)) {
    inputs.push_back(MeasureInput{dag, state.steps(), device});
  }
  return inputs;
}

// Random schedules of a small dense (seed) then a small conv2d (seed + 1).
std::vector<MeasureInput> DenseThenConv(int dense, int conv, uint64_t seed) {
  const DeviceProfile cpu = Profile("cpu");
  std::vector<MeasureInput> inputs = SampleInputs("dense:M=16,K=32,N=24", cpu, dense, seed);
  std::vector<MeasureInput> more =
      SampleInputs("conv2d:N=1,C=4,H=9,W=9,K=8,R=3,S=3,stride=1,pad=1", cpu, conv, seed + 1);
  inputs.insert(inputs.end(), more.begin(), more.end());
  return inputs;
}

MeasureOptions FastOptions() {
  MeasureOptions options;
  options.number = 1;
  options.repeat = 3;
  options.min_repeat_ms = 1;
  options.run_timeout_s = 10;
  options.build.opt = "-O2";
  return options;
}

void Print(const std::string& what, const MeasureResult& r) {
  std::printf("[%s] %s\n", what.c_str(), r.Describe().c_str());
}

TEST(LocalMeasurerTest, RandomDenseAndConvSchedulesAllMeasure) {
  const std::vector<MeasureInput> inputs = DenseThenConv(10, 10, 1);
  ASSERT_EQ(inputs.size(), 20u);

  const MeasureOptions options = FastOptions();
  const auto start = std::chrono::steady_clock::now();
  const std::vector<MeasureResult> results = MeasureBatch(inputs, options);
  std::printf("%zu schedules in %.1f s\n", inputs.size(),
              std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count());
  ASSERT_EQ(results.size(), inputs.size());
  for (size_t i = 0; i < results.size(); ++i) {
    const MeasureResult& r = results[i];
    Print(i < 10 ? "dense" : "conv2d", r);
    ASSERT_TRUE(r.ok()) << r.Describe();
    ASSERT_EQ(r.repeat_costs_s.size(), 3u);
    for (double c : r.repeat_costs_s) EXPECT_GT(c, 0);
    EXPECT_GT(r.mean_s, 0);
    EXPECT_GT(r.build_s, 0);
    EXPECT_GT(r.run_s, 0);
    EXPECT_GE(r.host_busy_cores, 0) << "a CPU run samples the host's other work";
    EXPECT_GT(r.binary_bytes, 0);
  }
}

TEST(LocalMeasurerTest, CacheFlushAndMinRepeatStillMeasure) {
  const DeviceProfile cpu = Profile("cpu");
  std::vector<MeasureInput> inputs = SampleInputs("dense:M=16,K=32,N=24", cpu, 1, 3);
  ASSERT_EQ(inputs.size(), 1u);
  MeasureOptions options = FastOptions();
  options.flush_cache = true;
  options.number = 2;
  options.repeat = 4;
  options.min_repeat_ms = 20;
  const MeasureResult r = MeasureBatch(inputs, options)[0];
  Print("flush", r);
  ASSERT_TRUE(r.ok()) << r.Describe();
  EXPECT_EQ(r.repeat_costs_s.size(), 4u);
  // Four repeats of at least 20 ms each.
  EXPECT_GE(r.run_s, 0.08);
}

// hopeless_factor: once a workload has a measured mean in the batch, a
// candidate whose checked first call is slower than factor x that mean is
// timed by that call alone. A factor far below 1 makes every later
// candidate of the workload hopeless; the first of each workload, and every
// candidate with the rule off, get the full repeats.
TEST(LocalMeasurerTest, HopelessCandidatesAreTimedByTheirFirstCall) {
  const std::vector<MeasureInput> inputs = DenseThenConv(3, 2, 4);
  ASSERT_EQ(inputs.size(), 5u);
  MeasureOptions options = FastOptions();
  options.hopeless_factor = 1e-9;
  const std::vector<MeasureResult> results = MeasureBatch(inputs, options);
  ASSERT_EQ(results.size(), 5u);
  const size_t want[] = {3, 1, 1, 3, 1};
  for (size_t i = 0; i < results.size(); ++i) {
    Print("hopeless", results[i]);
    ASSERT_TRUE(results[i].ok()) << results[i].Describe();
    EXPECT_EQ(results[i].repeat_costs_s.size(), want[i]) << "candidate " << i;
    EXPECT_GT(results[i].mean_s, 0);
  }
  options.hopeless_factor = 0;
  for (const MeasureResult& r : MeasureBatch(inputs, options)) {
    ASSERT_TRUE(r.ok()) << r.Describe();
    EXPECT_EQ(r.repeat_costs_s.size(), 3u);
  }
}

// The first call of a candidate runs in a fresh process: it faults in its
// buffers and code (and starts the runtime's threads: 1-3 ms on a virtual
// machine), so it alone says little about a kernel of a few microseconds.
// The same schedule measured twice is the same kernel: the second time, its
// first call is as cold (here 73-110 us against a 13-17 us mean, so it was
// cut), but the calls right after it are as fast as the first measurement's
// mean, so it is timed in full.
TEST(LocalMeasurerTest, ACandidateSlowOnlyOnItsColdFirstCallIsNotHopeless) {
  // A parallel kernel of a few tens of microseconds: a depthwise
  // convolution's window seed (its row bands run on the runtime's threads).
  const DeviceProfile cpu = Profile("cpu");
  auto built = BuildOperator("depthwise_conv2d:C=32,H=28,W=28,R=3,S=3,pad=1,bias=1,act=relu,layout=nhwc");
  ASSERT_TRUE(built.ok()) << built.status();
  auto dag = std::make_shared<const ComputeDag>(*std::move(built));
  auto sketches = GenerateSketches(dag, cpu);
  ASSERT_TRUE(sketches.ok()) << sketches.status();
  const std::vector<State> seeds = WindowReductionSeeds(*sketches, cpu);
  ASSERT_FALSE(seeds.empty());
  const std::vector<MeasureInput> inputs(2, MeasureInput{dag, seeds[0].steps(), cpu});
  MeasureOptions options = FastOptions();
  // One thread: a kernel's later calls are then steady on any machine.
  options.num_threads = 1;
  options.hopeless_factor = 3;
  const std::vector<MeasureResult> results = MeasureBatch(inputs, options);
  ASSERT_EQ(results.size(), 2u);
  for (const MeasureResult& r : results) {
    Print("cold first call", r);
    ASSERT_TRUE(r.ok()) << r.Describe();
    EXPECT_EQ(r.repeat_costs_s.size(), 3u);
  }
}

TEST(LocalMeasurerTest, InvalidScheduleIsReportedFromLowering) {
  const DeviceProfile cpu = Profile("cpu");
  std::vector<MeasureInput> inputs = SampleInputs("dense:M=16,K=32,N=24", cpu, 1, 4);
  ASSERT_EQ(inputs.size(), 1u);
  MeasureInput bound = inputs[0];  // a thread binding on a CPU: lowering rejects it
  bound.steps = {AnnotationStep(2, 0, IterAnnotation::kThreadX)};
  MeasureInput broken = inputs[0];  // a step on a stage that does not exist: replay rejects it
  broken.steps.push_back(AnnotationStep(99, 0, IterAnnotation::kParallel));
  const std::vector<MeasureResult> results = MeasureBatch({bound, broken}, FastOptions());
  for (const MeasureResult& r : results) {
    Print("invalid", r);
    EXPECT_EQ(r.error, MeasureError::kInvalidSchedule);
    EXPECT_EQ(r.phase, "lower");
  }
}

TEST(LocalMeasurerTest, CompilerFailureIsABuildError) {
  const DeviceProfile cpu = Profile("cpu");
  std::vector<MeasureInput> inputs = SampleInputs("dense:M=16,K=32,N=24", cpu, 2, 5);
  MeasureOptions options = FastOptions();
  options.build.backend = CpuBackend::kGcc;  // a compiler process that fails
  options.build.extra_flags = {"-include", "/nonexistent/pruner_measure_test.h"};
  for (const MeasureResult& r : MeasureBatch(inputs, options)) {
    Print("build error", r);
    EXPECT_EQ(r.error, MeasureError::kBuildError);
    EXPECT_EQ(r.phase, "build");
  }
}

TEST(LocalMeasurerTest, SlowCompilerIsABuildTimeout) {
  const DeviceProfile cpu = Profile("cpu");
  std::vector<MeasureInput> inputs = SampleInputs("dense:M=16,K=32,N=24", cpu, 2, 6);
  MeasureOptions options = FastOptions();
  options.build.backend = CpuBackend::kGcc;  // a compiler process that is killed
  options.build_timeout_s = 0.01;
  for (const MeasureResult& r : MeasureBatch(inputs, options)) {
    Print("build timeout", r);
    EXPECT_EQ(r.error, MeasureError::kBuildTimeout);
    EXPECT_EQ(r.phase, "build");
  }
}

TEST(LocalMeasurerTest, GpuWithoutDriverIsADeviceErrorForEveryInput) {
  const DeviceProfile a100 = Profile("a100");
  std::vector<MeasureInput> inputs = SampleInputs("dense:M=64,K=64,N=64", a100, 3, 7);
  ASSERT_FALSE(inputs.empty());
  const std::vector<MeasureResult> results = MeasureBatch(inputs, FastOptions());
  ASSERT_EQ(results.size(), inputs.size());
  for (const MeasureResult& r : results) {
    Print("gpu", r);
    if (r.ok()) continue;  // a machine with a GPU: measured for real
    EXPECT_EQ(r.error, MeasureError::kDeviceError);
    EXPECT_TRUE(r.message.find("no CUDA driver") != std::string::npos ||
                r.message.find("no CUDA device") != std::string::npos)
        << r.message;
  }
}

}  // namespace
}  // namespace pruner
