// Sketch generation: how many sketches each operator gets on CPU and GPU,
// and the structure the rules give them.
#include <algorithm>
#include <iostream>
#include <map>
#include <string>

#include "common/sketch/sketch.h"
#include "gtest/gtest.h"
#include "tests/sketch/test_support.h"

namespace pruner::testing {
namespace {

int CountSteps(const Sketch& sketch, StepKind kind) {
  return static_cast<int>(std::count_if(sketch.steps.begin(), sketch.steps.end(),
                                        [&](const Step& s) { return s.kind == kind; }));
}

bool HasStage(const Sketch& sketch, const std::string& name) {
  for (const Stage& s : sketch.state.stages()) {
    if (s.op->name == name) return true;
  }
  return false;
}

const Stage* FindStage(const Sketch& sketch, const std::string& name) {
  for (const Stage& s : sketch.state.stages()) {
    if (s.op->name == name) return &s;
  }
  return nullptr;
}

// Expected counts, derived from the rules (see sketch_rules.h) with the
// 8-thread test CPU (16 x 8 = 128 spatial iterations suffice; rfactor a
// pure reduction longer than 8) and an A100 (warp 32, 1024 threads):
// - a tiled stage without element-wise consumer: CPU cache_write + fusion
//   at levels 1 and 2, or plain tiling (3); GPU cache_write + fusion at
//   level 3 (1);
// - a tiled stage with an element-wise consumer: CPU fusion at levels 1, 2
//   or plain tiling (3); GPU fusion at level 3 (1);
// - a pure reduction whose reduction is long enough: CPU rfactor of the
//   outer or inner part, or nothing (x3); GPU rfactor or nothing (x2);
// - a CPU stage whose operands are contiguous only along the reduction
//   (dense's [N,K] weights, batch_matmul with transpose_b): the 3 tiled
//   sketches, rfactor of the outer part, and rfactor of the inner part
//   with the ".rf" stage tiled and computed inside a tile of the final sum
//   at fusion level 1 or 2 (6);
// - a CPU stage with a spatial axis that only layout-free inputs index
//   (conv2d's output channels): its fused sketches again with that axis
//   innermost in the register tile.
TEST(SketchGeneration, CountsPerOperator) {
  const std::vector<std::tuple<std::string, int, int>> cases = {
      {"matmul:M=24,K=36,N=20", 3, 1},
      {"dense:M=17,K=40,N=24,bias=1,act=relu", 6, 1},
      {"dense:M=16,K=32,N=12,act=gelu", 6, 1},
      // GEMV: few outputs, long reduction; the layout rule already gives
      // the CPU the rfactor sketches, GPU adds its rfactor one (64 < 1024
      // outputs fit one block).
      {"dense:M=1,K=1024,N=64", 6, 2},
      {"batch_matmul:B=3,M=12,K=20,N=10", 3, 1},
      {"batch_matmul:B=2,M=9,K=16,N=12,transpose_b=1", 6, 1},
      // conv2d on CPU: the fused sketches once more with the output
      // channels innermost in the register tile (layout-free weights).
      {"conv2d:N=1,C=6,H=9,W=9,K=8,R=3,S=3,stride=1,pad=1", 5, 1},
      {"conv2d:N=1,C=4,H=7,W=11,K=6,R=1,S=7,stride=1,pad_h=0,pad_w=3,bias=1,act=relu", 5, 1},
      {"depthwise_conv2d:N=1,C=6,H=11,W=11,R=3,S=3,stride=2,pad=1", 3, 1},
      // 3x3 window: 9 > 8 threads, so CPU rfactors; 9 <= 32 lanes on GPU.
      {"max_pool2d:N=1,C=4,H=9,W=9,kernel=3,stride=2,pad=1", 3, 1},
      {"avg_pool2d:N=1,C=3,H=8,W=8,kernel=2", 1, 1},
      // Two row reductions of 50.
      {"softmax:M=6,N=50", 9, 4},
      // Two row reductions of 36 and a final stage that reuses four
      // broadcast inputs, hence needs tiling (CPU x3, GPU x1).
      {"layer_norm:M=5,N=36", 27, 4},
      {"add:shape=6x20", 1, 1},
      {"mul:shape=3x5x7", 1, 1},
      {"relu:shape=130", 1, 1},
  };
  for (const auto& [spec, cpu_count, gpu_count] : cases) {
    auto dag = Build(spec);
    ASSERT_NE(dag, nullptr);
    auto cpu = GenerateSketches(dag, TestCpu());
    ASSERT_TRUE(cpu.ok()) << spec << ": " << cpu.status();
    EXPECT_EQ(cpu->size(), cpu_count) << spec << " on CPU";
    auto gpu = GenerateSketches(dag, TestGpu());
    ASSERT_TRUE(gpu.ok()) << spec << ": " << gpu.status();
    EXPECT_EQ(gpu->size(), gpu_count) << spec << " on GPU";
  }
}

// Winograd's transforms (data_pack, inverse) reduce over the non-zeros of a
// transform matrix row: on CPU they are never rfactored; the axes that pick
// the row and the reduction are unrolled (their coefficients become
// literals) and the channel's inner part is the vectorized innermost loop.
// Only the batched product is tiled: 3 sketches.
TEST(SketchGeneration, WinogradTransformsUnrollTheirMatrixAxesOnCpu) {
  auto sketches = GenerateSketches(Build("conv2d_winograd:C=16,H=14,W=14,K=32"), TestCpu());
  ASSERT_TRUE(sketches.ok()) << sketches.status();
  ASSERT_EQ(sketches->size(), 3);
  for (const Sketch& s : *sketches) {
    EXPECT_TRUE(s.record.rfactor_splits.empty());
    for (const char* name : {"data_pack", "inverse"}) {
      const Stage* stage = FindStage(s, name);
      ASSERT_NE(stage, nullptr) << name;
      std::vector<std::string> loops;
      for (int i = 0; i < static_cast<int>(stage->iters.size()); ++i) {
        loops.push_back(stage->iter_name(i));
      }
      const std::string channel = std::string(name) == "data_pack" ? "ci" : "co";
      const std::string row = std::string(name) == "data_pack" ? "eps" : "vh";
      const std::string col = std::string(name) == "data_pack" ? "nu" : "vw";
      EXPECT_EQ(loops, (std::vector<std::string>{"p.0", channel + ".0", "p.1", row, col, "r_a",
                                                 "r_b", channel + ".1"}))
          << name;
      for (int i = 3; i < 7; ++i) {
        EXPECT_EQ(stage->iters[i].annotation, IterAnnotation::kUnroll) << name << " " << i;
      }
      EXPECT_EQ(stage->iters[7].annotation, IterAnnotation::kVectorize) << name;
    }
  }
}

TEST(SketchGeneration, CpuMatmulSketches) {
  auto sketches = GenerateSketches(Build("matmul:M=512,K=512,N=512"), TestCpu());
  ASSERT_TRUE(sketches.ok());
  ASSERT_EQ(sketches->size(), 3);
  int cached = 0;
  for (const Sketch& s : *sketches) {
    if (CountSteps(s, StepKind::kCacheWrite) == 1) {
      ++cached;
      // The cache is tiled SSRSRS and computed inside its copy.
      const Stage* local = FindStage(s, "matmul.local");
      ASSERT_NE(local, nullptr);
      EXPECT_EQ(local->iters.size(), 10);  // 2 axes x 4 + k x 2
      EXPECT_EQ(local->compute_at, ComputeAtKind::kIter);
      EXPECT_EQ(CountSteps(s, StepKind::kFollowSplit), 2);
    } else {
      const Stage* out = FindStage(s, "matmul");
      ASSERT_NE(out, nullptr);
      EXPECT_EQ(out->iters.size(), 10);
      EXPECT_EQ(out->iter_name(0), "i.0");
      EXPECT_EQ(out->iter_name(1), "j.0");
      EXPECT_EQ(out->iter_name(4), "k.0");
    }
    EXPECT_TRUE(s.record.rfactor_splits.empty());
  }
  EXPECT_EQ(cached, 2);
  std::cout << (*sketches)[1].ToString();
}

TEST(SketchGeneration, GpuMatmulCachesBothInputsInSharedMemory) {
  auto sketches = GenerateSketches(Build("matmul:M=512,K=512,N=512"), TestGpu());
  ASSERT_TRUE(sketches.ok());
  ASSERT_EQ(sketches->size(), 1);
  const Sketch& s = (*sketches)[0];
  std::cout << s.ToString();
  EXPECT_EQ(CountSteps(s, StepKind::kCacheWrite), 1);
  EXPECT_EQ(CountSteps(s, StepKind::kCacheRead), 2);
  const Stage* local = FindStage(s, "matmul.local");
  ASSERT_NE(local, nullptr);
  // SSSRRSRS: 2 axes x 5 parts + k x 3 parts.
  EXPECT_EQ(local->iters.size(), 13);
  for (const char* name : {"A.shared", "B.shared"}) {
    const Stage* shared = FindStage(s, name);
    ASSERT_NE(shared, nullptr) << name;
    EXPECT_EQ(shared->scope, "shared");
    ASSERT_EQ(shared->compute_at, ComputeAtKind::kIter);
    // Attached at the end of the outermost reduce tile: k.0 of the cache.
    const Stage& target = s.state.stage(shared->attach_stage);
    EXPECT_EQ(target.op->name, "matmul.local");
    EXPECT_EQ(target.nodes[shared->attach_node].name, "k.0");
  }
  // The output follows the cache's first three tile levels.
  const Stage* out = FindStage(s, "matmul");
  ASSERT_NE(out, nullptr);
  EXPECT_EQ(out->iters.size(), 8);
  EXPECT_TRUE(s.record.IsMultiLevelTiled(out->op->id));
}

// GPU sketches inline the padding (AlwaysInline takes any op without a
// reduction there); CPU sketches leave it a stage of its own, whose place
// (root, or at a loop of the conv) annotation chooses, as in TVM: inlined,
// its bounds check runs before every multiply-add of the register tile.
TEST(SketchGeneration, Conv2dPaddingIsInlinedOnGpuOnly) {
  for (const DeviceProfile& device : {TestCpu(), TestGpu()}) {
    auto sketches =
        GenerateSketches(Build("conv2d:N=1,C=6,H=9,W=9,K=8,R=3,S=3,stride=1,pad=1"), device);
    ASSERT_TRUE(sketches.ok());
    for (const Sketch& s : *sketches) {
      const Stage* pad = FindStage(s, "pad");
      ASSERT_NE(pad, nullptr);
      if (device.IsGpu()) {
        EXPECT_EQ(pad->compute_at, ComputeAtKind::kInlined) << device.name;
        // The padded input is staged through shared memory (inlined into
        // the cache) like the weights; the raw input is not.
        EXPECT_TRUE(HasStage(s, "pad.shared"));
        EXPECT_TRUE(HasStage(s, "W.shared"));
        EXPECT_FALSE(HasStage(s, "X.shared"));
      } else {
        EXPECT_EQ(pad->compute_at, ComputeAtKind::kRoot) << device.name;
      }
    }
  }
}

// conv2d's output channels index only its weights (layout-free), so the
// CPU register tile may put them innermost: cache-write sketches come in
// both orders, and lowering then stores the weights and the accumulator
// tile with the output channel last.
TEST(SketchGeneration, Conv2dOutputChannelsMayGoInnermostOnCpu) {
  auto sketches =
      GenerateSketches(Build("conv2d:N=1,C=16,H=14,W=14,K=32,R=3,S=3,stride=1,pad=1"), TestCpu());
  ASSERT_TRUE(sketches.ok());
  int ff_innermost = 0;
  for (const Sketch& s : *sketches) {
    const Stage* local = FindStage(s, "conv2d.local");
    if (local == nullptr) continue;
    const std::string last = local->iter_name(static_cast<int>(local->iters.size()) - 1);
    if (last == "ff.3") ++ff_innermost;
    else EXPECT_EQ(last, "xx.3");
  }
  EXPECT_EQ(ff_innermost, 2);  // fusion levels 1 and 2
}

// Dense with [N,K] weights: the inner rfactor's ".rf" stage (the partial
// sums across the factored lanes) is computed inside a tile of the final
// sum, so the partials never leave a tile-sized buffer, and the final sum
// adds the lanes innermost.
TEST(SketchGeneration, LayoutDrivenRfactorComputesPartialsInsideTheFinalSum) {
  auto sketches = GenerateSketches(Build("dense:M=64,K=256,N=48"), TestCpu());
  ASSERT_TRUE(sketches.ok()) << sketches.status();
  int fused = 0;
  for (const Sketch& s : *sketches) {
    const Stage* rf = FindStage(s, "dense.rf");
    if (rf == nullptr || rf->compute_at != ComputeAtKind::kIter) continue;
    ++fused;
    const Stage& final_sum = s.state.stage(rf->attach_stage);
    EXPECT_EQ(final_sum.op->name, "dense");
    // SSRSRS over i, j, lanes and the remaining reduction.
    EXPECT_EQ(rf->iters.size(), 3 * 4 + 2);
    EXPECT_EQ(rf->iter_name(static_cast<int>(rf->iters.size()) - 1), "k.1.3");
    // The final sum: i and j split like the ".rf" stage up to the attach
    // level, then the lanes as its innermost (reduce) loop.
    const int last = static_cast<int>(final_sum.iters.size()) - 1;
    EXPECT_EQ(final_sum.iter_kind(last), IterKind::kReduce);
    EXPECT_TRUE(s.record.IsMultiLevelTiled(final_sum.op->id));
    EXPECT_EQ(CountSteps(s, StepKind::kFollowSplit), 2);
  }
  EXPECT_EQ(fused, 2);  // fusion levels 1 and 2
}

TEST(SketchGeneration, SoftmaxGetsRfactorSketches) {
  auto dag = Build("softmax:M=6,N=50");
  auto cpu = GenerateSketches(dag, TestCpu());
  ASSERT_TRUE(cpu.ok());
  std::map<size_t, int> by_rfactor_count;
  for (const Sketch& s : *cpu) {
    by_rfactor_count[s.record.rfactor_splits.size()]++;
    // The rfactor split's length is left to annotation.
    for (int step : s.record.rfactor_splits) {
      EXPECT_FALSE(s.steps[step].IsDefined()) << StepToString(s.steps[step]);
      EXPECT_EQ(s.steps[step].kind, StepKind::kSplit);
    }
    // exp is not strictly inlineable (expensive) on CPU.
    EXPECT_NE(FindStage(s, "exp")->compute_at, ComputeAtKind::kInlined);
  }
  // Each of the two reductions: outer rfactor, inner rfactor or none.
  EXPECT_EQ(by_rfactor_count[0], 1);
  EXPECT_EQ(by_rfactor_count[1], 4);
  EXPECT_EQ(by_rfactor_count[2], 4);

  auto gpu = GenerateSketches(dag, TestGpu());
  ASSERT_TRUE(gpu.ok());
  for (const Sketch& s : *gpu) {
    // GPU inlines every element-wise non-output stage.
    EXPECT_EQ(FindStage(s, "exp")->compute_at, ComputeAtKind::kInlined);
    for (int step : s.record.rfactor_splits) EXPECT_FALSE(s.steps[step].IsDefined());
  }
  std::cout << gpu->back().ToString();
}

TEST(SketchGeneration, SketchesReplayFromTheirSteps) {
  for (const auto& spec : SmallWorkloads()) {
    auto dag = Build(spec);
    for (const DeviceProfile& device : {TestCpu(), TestGpu()}) {
      auto sketches = GenerateSketches(dag, device);
      ASSERT_TRUE(sketches.ok()) << spec;
      for (const Sketch& s : *sketches) {
        // With the rfactor splits fixed back to 1, the step list rebuilds
        // the derived state.
        std::vector<Step> steps = s.steps;
        for (int step : s.record.rfactor_splits) steps[step].lengths = {int64_t{1}};
        auto replayed = State::Replay(dag, steps);
        ASSERT_TRUE(replayed.ok()) << spec << ": " << replayed.status();
        EXPECT_EQ(replayed->ToStr(), s.state.ToStr()) << spec;
        EXPECT_FALSE(s.ToString().empty());
      }
    }
  }
}

TEST(SketchGeneration, RejectsNullDag) {
  auto sketches = GenerateSketches(nullptr, TestCpu());
  EXPECT_FALSE(sketches.ok());
  std::cout << sketches.status() << "\n";
}

}  // namespace
}  // namespace pruner::testing
