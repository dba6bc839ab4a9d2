// Mutation: each rule changes one decision, keeps tilings exact and
// returns valid, replayable schedules (or an error).
#include <iostream>
#include <map>

#include "common/lower/bound_inference.h"
#include "common/lower/lower.h"
#include "common/sketch/annotate.h"
#include "common/sketch/annotate_validity.h"
#include "common/sketch/mutate.h"
#include "common/sketch/sketch.h"
#include "gtest/gtest.h"
#include "tests/sketch/test_support.h"

namespace pruner::testing {
namespace {

std::vector<State> Population(const std::string& spec, const DeviceProfile& device, int n,
                              Rng& rng) {
  auto sketches = GenerateSketches(Build(spec), device);
  EXPECT_TRUE(sketches.ok());
  return SampleInitPopulation(*sketches, device, n, rng);
}

// Indices of the steps that differ; the lists must have equal length.
std::vector<size_t> ChangedSteps(const State& a, const State& b) {
  std::vector<size_t> changed;
  EXPECT_EQ(a.steps().size(), b.steps().size());
  for (size_t i = 0; i < std::min(a.steps().size(), b.steps().size()); ++i) {
    if (!(a.steps()[i] == b.steps()[i])) changed.push_back(i);
  }
  return changed;
}

int64_t Product(const Step& split) {
  int64_t p = 1;
  for (const auto& l : split.lengths) p *= *l;
  return p;
}

TEST(MutateTileSize, MovesOneFactorAndKeepsTheProduct) {
  Rng rng(17);
  int mutated = 0;
  for (const char* spec : {"matmul:M=64,K=48,N=96", "conv2d:N=1,C=8,H=12,W=12,K=16,R=3,S=3,pad=1"}) {
    for (const DeviceProfile& device : {TestCpu(), TestGpu()}) {
      for (const State& state : Population(spec, device, 40, rng)) {
        auto child = Mutate(state, MutationKind::kTileSize, device, rng);
        if (!child.ok()) continue;
        ++mutated;
        const std::vector<size_t> changed = ChangedSteps(state, *child);
        ASSERT_EQ(changed.size(), 1);
        const Step& before = state.steps()[changed[0]];
        const Step& after = child->steps()[changed[0]];
        ASSERT_EQ(before.kind, StepKind::kSplit);
        EXPECT_EQ(before.extent, after.extent);
        EXPECT_EQ(before.lengths.size(), after.lengths.size());
        // An exact tiling stays exact: the parts still multiply to the
        // extent (outer = extent / product).
        if (before.extent % Product(before) == 0) {
          EXPECT_EQ(after.extent % Product(after), 0) << StepToString(after);
        }
        EXPECT_TRUE(CheckDeviceLimits(*child, device).ok());
        auto replayed = State::Replay(child->original_dag(), child->steps());
        ASSERT_TRUE(replayed.ok());
        EXPECT_EQ(InferBound(*replayed)->ToStr(), child->ToStr());
      }
    }
  }
  EXPECT_GT(mutated, 50);
}

TEST(MutateAutoUnroll, RedrawsOnePragma) {
  Rng rng(2);
  for (const DeviceProfile& device : {TestCpu(), TestGpu()}) {
    const std::vector<int64_t> allowed = device.IsGpu() ? AnnotationOptions().gpu_auto_unroll
                                                        : AnnotationOptions().cpu_auto_unroll;
    for (const State& state : Population("matmul:M=64,K=64,N=64", device, 10, rng)) {
      auto child = Mutate(state, MutationKind::kAutoUnroll, device, rng);
      ASSERT_TRUE(child.ok()) << child.status();
      const std::vector<size_t> changed = ChangedSteps(state, *child);
      ASSERT_EQ(changed.size(), 1);
      const Step& after = child->steps()[changed[0]];
      EXPECT_EQ(after.kind, StepKind::kPragma);
      EXPECT_NE(after.pragma_value, state.steps()[changed[0]].pragma_value);
      EXPECT_NE(std::find(allowed.begin(), allowed.end(), after.pragma_value), allowed.end());
    }
  }
}

TEST(MutateComputeLocation, MovesOneStage) {
  Rng rng(23);
  int moved = 0;
  // softmax's stages are all free to move on CPU.
  for (const State& state : Population("softmax:M=16,N=64", TestCpu(), 60, rng)) {
    auto child = Mutate(state, MutationKind::kComputeLocation, TestCpu(), rng);
    if (!child.ok()) continue;
    ++moved;
    const std::vector<size_t> changed = ChangedSteps(state, *child);
    ASSERT_EQ(changed.size(), 1);
    EXPECT_EQ(child->steps()[changed[0]].kind, StepKind::kComputeAt);
    EXPECT_TRUE(Lower(*child, TestCpu()).ok());
  }
  EXPECT_GT(moved, 5);
  // GPU sketches fix compute locations.
  const auto gpu = Population("softmax:M=16,N=64", TestGpu(), 1, rng);
  auto refused = Mutate(gpu[0], MutationKind::kComputeLocation, TestGpu(), rng);
  EXPECT_FALSE(refused.ok());
  std::cout << refused.status() << "\n";
}

TEST(MutateParallel, ChangesTheFusedPrefix) {
  Rng rng(31);
  int changed_count = 0;
  for (const State& state : Population("batch_matmul:B=4,M=32,K=16,N=32", TestCpu(), 40, rng)) {
    auto child = Mutate(state, MutationKind::kParallel, TestCpu(), rng);
    if (!child.ok()) continue;
    ++changed_count;
    bool fuse_changed = false;
    for (size_t i : ChangedSteps(state, *child)) {
      fuse_changed |= child->steps()[i].kind == StepKind::kFuse;
    }
    EXPECT_TRUE(fuse_changed);
    EXPECT_TRUE(CheckDeviceLimits(*child, TestCpu()).ok());
  }
  EXPECT_GT(changed_count, 5);
}

TEST(MutateRandom, ResultsAreValidSchedules) {
  Rng rng(99);
  std::map<std::string, int> outcomes;
  for (const auto& spec : SmallWorkloads()) {
    for (const DeviceProfile& device : {TestCpu(), TestGpu()}) {
      for (const State& state : Population(spec, device, 5, rng)) {
        for (int i = 0; i < 4; ++i) {
          auto child = MutateRandom(state, device, rng);
          if (!child.ok()) {
            outcomes["error"]++;
            continue;
          }
          outcomes["ok"]++;
          EXPECT_TRUE(child->IsConcrete());
          EXPECT_TRUE(CheckDeviceLimits(*child, device).ok());
          auto program = Lower(*child, device);
          EXPECT_TRUE(program.ok()) << spec << ": " << program.status();
        }
      }
    }
  }
  std::cout << "mutations: " << outcomes["ok"] << " valid, " << outcomes["error"]
            << " refused\n";
  EXPECT_GT(outcomes["ok"], 100);
}

TEST(Mutate, ExplainsWhyNothingCanChange) {
  Rng rng(4);
  // An element-wise op has no reduction, hence no unroll pragma.
  const auto states = Population("add:shape=6x20", TestCpu(), 1, rng);
  ASSERT_EQ(states.size(), 1);
  auto unroll = Mutate(states[0], MutationKind::kAutoUnroll, TestCpu(), rng);
  EXPECT_FALSE(unroll.ok());
  std::cout << unroll.status() << "\n";
  auto tile = Mutate(states[0], MutationKind::kTileSize, TestCpu(), rng);
  EXPECT_FALSE(tile.ok());
  std::cout << tile.status() << "\n";
}

}  // namespace
}  // namespace pruner::testing
