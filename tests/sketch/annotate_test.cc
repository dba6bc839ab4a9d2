// Random annotation: sampled schedules are concrete, replayable, distinct
// and within the device's limits.
#include <iostream>
#include <set>
#include <string>

#include "common/lower/bound_inference.h"
#include "common/lower/lower.h"
#include "common/sketch/annotate.h"
#include "common/sketch/annotate_tile_size.h"
#include "common/sketch/annotate_validity.h"
#include "common/sketch/sketch.h"
#include "gtest/gtest.h"
#include "tests/sketch/test_support.h"

namespace pruner::testing {
namespace {

std::vector<Sketch> SketchesOf(const std::shared_ptr<const ComputeDag>& dag,
                               const DeviceProfile& device) {
  auto sketches = GenerateSketches(dag, device);
  EXPECT_TRUE(sketches.ok()) << sketches.status();
  return sketches.ok() ? *std::move(sketches) : std::vector<Sketch>{};
}

TEST(Factorizations, AreAllExactOrderedTilings) {
  // 12 = outer * l1 * l2 with l2 <= 4: every ordered (l1, l2) with l1 * l2
  // dividing 12.
  const auto& schemes = Factorizations(12, 2, 4);
  std::set<std::vector<int64_t>> unique(schemes.begin(), schemes.end());
  EXPECT_EQ(unique.size(), schemes.size());
  int expected = 0;
  for (int64_t a = 1; a <= 12; ++a) {
    for (int64_t b = 1; b <= 4; ++b) expected += (12 % (a * b) == 0);
  }
  EXPECT_EQ(static_cast<int>(schemes.size()), expected);
  for (const auto& s : schemes) {
    EXPECT_EQ(12 % (s[0] * s[1]), 0);
    EXPECT_LE(s[1], 4);
  }
  // A prime extent only splits trivially.
  EXPECT_EQ(Factorizations(13, 3, 64).size(), 4);
  EXPECT_EQ(Divisors(36), (std::vector<int64_t>{1, 2, 3, 4, 6, 9, 12, 18, 36}));
}

// Every sampled schedule: concrete, no open length, replays (steps alone)
// to the same loop nest, within the device's limits, and lowers.
TEST(SampleSchedule, ConcreteReplayableAndLowerable) {
  Rng rng(42);
  for (const auto& spec : SmallWorkloads()) {
    auto dag = Build(spec);
    for (const DeviceProfile& device : {TestCpu(), TestGpu()}) {
      const std::vector<Sketch> sketches = SketchesOf(dag, device);
      const std::vector<State> population = SampleInitPopulation(sketches, device, 12, rng);
      // Element-wise ops and tiny GPU spaces have only a few distinct
      // schedules.
      EXPECT_GE(population.size(), 1) << spec << " on " << device.name;
      for (const State& state : population) {
        SCOPED_TRACE(spec + " on " + device.name + ": " + state.ToSentence());
        EXPECT_TRUE(state.IsConcrete());
        for (const Step& step : state.steps()) EXPECT_TRUE(step.IsDefined());
        auto replayed = State::Replay(dag, state.steps());
        ASSERT_TRUE(replayed.ok()) << replayed.status();
        auto inferred = InferBound(*replayed);
        ASSERT_TRUE(inferred.ok()) << inferred.status();
        EXPECT_EQ(inferred->ToStr(), state.ToStr());
        EXPECT_TRUE(CheckDeviceLimits(state, device).ok());
        auto program = Lower(state, device);
        EXPECT_TRUE(program.ok()) << program.status() << "\n" << state.ToStr();
      }
    }
  }
}

TEST(SampleSchedule, SameSeedSameSchedules) {
  auto dag = Build("conv2d:N=1,C=4,H=7,W=11,K=6,R=1,S=7,stride=1,pad_h=0,pad_w=3,bias=1,act=relu");
  for (const DeviceProfile& device : {TestCpu(), TestGpu()}) {
    const std::vector<Sketch> sketches = SketchesOf(dag, device);
    Rng a(7), b(7);
    const auto first = SampleInitPopulation(sketches, device, 10, a);
    const auto second = SampleInitPopulation(sketches, device, 10, b);
    ASSERT_EQ(first.size(), second.size());
    for (size_t i = 0; i < first.size(); ++i) {
      EXPECT_EQ(first[i].ToSentence(), second[i].ToSentence());
    }
  }
}

TEST(SampleInitPopulation, IsDistinctAndStopsOnSmallSpaces) {
  Rng rng(5);
  auto dag = Build("matmul:M=64,K=64,N=64");
  const auto population = SampleInitPopulation(SketchesOf(dag, TestCpu()), TestCpu(), 200, rng);
  EXPECT_EQ(population.size(), 200);
  std::set<std::string> seen;
  for (const State& s : population) EXPECT_TRUE(seen.insert(s.ToStr()).second);
  // relu on 4 elements has only a handful of distinct schedules: the loop
  // gives up (halving its target) instead of spinning.
  auto tiny = Build("relu:shape=4");
  const auto few = SampleInitPopulation(SketchesOf(tiny, TestCpu()), TestCpu(), 100, rng);
  EXPECT_GE(few.size(), 1);
  EXPECT_LT(few.size(), 100);
}

TEST(SampleSchedule, FillsRfactorSplits) {
  Rng rng(11);
  auto dag = Build("softmax:M=4,N=96");
  std::set<int64_t> lengths;
  for (const Sketch& sketch : SketchesOf(dag, TestCpu())) {
    if (sketch.record.rfactor_splits.empty()) continue;
    for (int i = 0; i < 20; ++i) {
      auto state = SampleSchedule(sketch, TestCpu(), rng);
      ASSERT_TRUE(state.ok()) << state.status();
      const Step& split = state->steps()[sketch.record.rfactor_splits[0]];
      ASSERT_TRUE(split.IsDefined());
      EXPECT_EQ(96 % *split.lengths[0], 0);
      lengths.insert(*split.lengths[0]);
    }
  }
  EXPECT_GT(lengths.size(), 3);
}

TEST(SampleSchedule, CpuAnnotations) {
  Rng rng(3);
  auto dag = Build("matmul:M=256,K=128,N=256");
  const DeviceProfile cpu = TestCpu();
  const auto population = SampleInitPopulation(SketchesOf(dag, cpu), cpu, 50, rng);
  EXPECT_EQ(population.size(), 50);
  for (const State& s : population) {
    bool parallel = false;
    for (const Stage& stage : s.stages()) {
      for (size_t i = 0; i < stage.iters.size(); ++i) {
        const IterAnnotation a = stage.iters[i].annotation;
        parallel |= a == IterAnnotation::kParallel;
        EXPECT_FALSE(IsThreadBinding(a));
        // 8 floats per AVX2 register.
        if (a == IterAnnotation::kVectorize) {
          EXPECT_LE(stage.iter_extent(i), 8);
        }
      }
    }
    EXPECT_TRUE(parallel) << s.ToStr();
  }
}

// A small GPU: every sample must fit its 64 threads, 2 vthreads and 2 KiB
// of shared memory.
TEST(SampleSchedule, GpuRespectsDeviceLimits) {
  DeviceProfile gpu = TestGpu();
  gpu.max_threads_per_block = 64;
  gpu.max_vthread_extent = 2;
  gpu.max_shared_memory_per_block = 2048;
  Rng rng(9);
  auto dag = Build("matmul:M=128,K=64,N=128");
  const auto population = SampleInitPopulation(SketchesOf(dag, gpu), gpu, 30, rng);
  ASSERT_FALSE(population.empty());
  for (const State& s : population) {
    int64_t shared = 0;
    for (const Stage& stage : s.stages()) {
      for (size_t i = 0; i < stage.iters.size(); ++i) {
        const IterAnnotation a = stage.iters[i].annotation;
        if (a == IterAnnotation::kThreadX) {
          EXPECT_LE(stage.iter_extent(i), 64);
        }
        if (a == IterAnnotation::kVThread) {
          EXPECT_LE(stage.iter_extent(i), 2);
        }
        if (a == IterAnnotation::kVectorize) {
          EXPECT_LE(stage.iter_extent(i) * 4, 16);
        }
        EXPECT_NE(a, IterAnnotation::kParallel);
      }
      if (stage.scope == "shared") {
        int64_t elements = 1;
        for (int r = 0; r < stage.num_root_nodes(); ++r) elements *= stage.nodes[r].extent;
        shared += elements * 4;
      }
    }
    EXPECT_LE(shared, 2048) << s.ToStr();
    auto program = Lower(s, gpu);
    EXPECT_TRUE(program.ok()) << program.status();
  }
}

TEST(SampleSchedule, RejectsSketchOfOtherDeviceKind) {
  Rng rng(1);
  auto sketches = SketchesOf(Build("matmul:M=8,K=8,N=8"), TestCpu());
  auto state = SampleSchedule(sketches[0], TestGpu(), rng);
  EXPECT_FALSE(state.ok());
  std::cout << state.status() << "\n";
}

}  // namespace
}  // namespace pruner::testing
