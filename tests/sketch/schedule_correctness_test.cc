// End to end: random schedules from CPU and GPU sketches of every operator
// lower and interpret to the reference executor's outputs.
//
// Shapes are small (the interpreter runs GPU kernels thread by thread) and
// chosen so that extents do not divide evenly: 65x257x123 dense, a 1x7
// kernel, a stride-2 depthwise convolution, odd pooling windows.
#include <chrono>
#include <iostream>
#include <set>
#include <string>

#include "common/ir/reference.h"
#include "common/ir/tensor.h"
#include "common/lower/interpreter.h"
#include "common/lower/lower.h"
#include "common/sketch/annotate.h"
#include "common/sketch/mutate.h"
#include "common/sketch/sketch.h"
#include "gtest/gtest.h"
#include "tests/sketch/test_support.h"

namespace pruner::testing {
namespace {

constexpr int kSchedulesPerDevice = 200;
// Valid GPU draws are rare on small workloads (a thread tile must reach a
// warp); give up after this many attempts.
constexpr int kMaxAttempts = 200000;

struct Case {
  std::string spec;
  bool gpu;
};

void PrintTo(const Case& c, std::ostream* os) { *os << c.spec << (c.gpu ? " (gpu)" : " (cpu)"); }

std::string CaseName(const ::testing::TestParamInfo<Case>& info) {
  std::string name = info.param.spec.substr(0, info.param.spec.find(':'));
  name += "_" + std::to_string(info.index) + (info.param.gpu ? "_gpu" : "_cpu");
  return name;
}

std::vector<Case> Cases() {
  const std::vector<std::string> specs = {
      "matmul:M=24,K=36,N=20",
      "dense:M=65,K=257,N=123",
      "dense:M=17,K=40,N=24,bias=1,act=relu",
      "dense:M=16,K=32,N=12,act=gelu",
      "dense:M=1,K=300,N=40",
      "batch_matmul:B=3,M=12,K=20,N=10",
      "batch_matmul:B=2,M=9,K=16,N=12,transpose_b=1",
      "conv2d:N=1,C=6,H=9,W=9,K=8,R=3,S=3,stride=1,pad=1",
      "conv2d:N=1,C=4,H=7,W=11,K=6,R=1,S=7,pad_h=0,pad_w=3,bias=1,act=relu",
      "conv2d:N=2,C=4,H=8,W=7,K=6,R=3,S=3,stride=2,pad=1,groups=2",
      "depthwise_conv2d:N=1,C=6,H=11,W=11,R=3,S=3,stride=2,pad=1",
      "max_pool2d:N=1,C=4,H=9,W=9,kernel=3,stride=2,pad=1",
      "avg_pool2d:N=1,C=3,H=8,W=8,kernel=2",
      "softmax:M=6,N=50",
      "layer_norm:M=5,N=36",
      "add:shape=6x20",
      "mul:shape=3x5x7",
      "relu:shape=130",
  };
  std::vector<Case> cases;
  for (const std::string& spec : specs) {
    cases.push_back({spec, false});
    cases.push_back({spec, true});
  }
  return cases;
}

class ScheduleCorrectness : public ::testing::TestWithParam<Case> {};

TEST_P(ScheduleCorrectness, RandomSchedulesMatchTheReference) {
  const Case& c = GetParam();
  const DeviceProfile device = c.gpu ? TestGpu() : TestCpu();
  auto dag = Build(c.spec);
  ASSERT_NE(dag, nullptr);
  auto sketches = GenerateSketches(dag, device);
  ASSERT_TRUE(sketches.ok()) << sketches.status();
  const std::vector<Tensor> inputs = RandomInputs(*dag, /*seed=*/1234);
  auto want = RunReference(*dag, inputs);
  ASSERT_TRUE(want.ok()) << want.status();

  // Lowers and runs one schedule; false (with a test failure) on any error.
  std::set<std::string> executed;  // sentences already checked
  auto check = [&](const State& state) {
    if (!executed.insert(state.ToSentence()).second) return true;
    SCOPED_TRACE(state.ToSentence());
    auto program = Lower(state, device);
    EXPECT_TRUE(program.ok()) << program.status() << "\n" << state.ToStr();
    if (!program.ok()) return false;
    auto got = RunProgram(*program, inputs);
    EXPECT_TRUE(got.ok()) << got.status() << "\n" << state.ToStr();
    if (!got.ok() || got->size() != want->size()) return false;
    for (size_t i = 0; i < got->size(); ++i) {
      absl::Status close = CheckAllClose((*got)[i], (*want)[i], /*rtol=*/1e-4, /*atol=*/1e-4);
      EXPECT_TRUE(close.ok()) << close << "\n" << state.ToStr();
      if (!close.ok()) return false;
    }
    return true;
  };

  const auto start = std::chrono::steady_clock::now();
  Rng rng(c.gpu ? 77 : 76);
  int valid = 0;
  int mutants = 0;
  int attempts = 0;
  while (valid < kSchedulesPerDevice && attempts < kMaxAttempts) {
    ++attempts;
    const Sketch& sketch = (*sketches)[rng.Below(sketches->size())];
    auto state = SampleSchedule(sketch, device, rng);
    if (!state.ok()) continue;
    ++valid;
    ASSERT_TRUE(check(*state));
    // Mutants reach step lists annotation never writes (other thread
    // splits, vector lengths, moved compute locations).
    auto mutant = MutateRandom(*state, device, rng);
    if (!mutant.ok()) continue;
    ++mutants;
    ASSERT_TRUE(check(*mutant));
  }
  EXPECT_GE(valid, kSchedulesPerDevice) << "after " << attempts << " attempts";
  const double seconds =
      std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  std::cout << c.spec << " on " << device.name << ": " << valid << " schedules and " << mutants
            << " mutants (" << executed.size() << " distinct) from " << sketches->size()
            << " sketches, " << attempts << " draws, " << seconds << " s\n";
}

INSTANTIATE_TEST_SUITE_P(AllOperators, ScheduleCorrectness, ::testing::ValuesIn(Cases()),
                         CaseName);

}  // namespace
}  // namespace pruner::testing
