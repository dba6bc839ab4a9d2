// GPU fault kernels: a generated dense kernel with one statement planted at
// the top of its body (a trap, an endless loop, a write 4 Gi elements past
// the output, an early return that leaves the output unwritten), run through
// the sandboxed GPU runner. Each must come back as its own error class while
// this process lives on, and a clean run afterwards must still succeed: a
// faulting context dies with its sandbox child, not with the device.
//
// Skips, saying why, where there is no CUDA driver, device or NVRTC. PTX is
// built for compute_80 so that any GPU from the A100 on JIT-compiles it.
#include <cctype>
#include <iostream>
#include <memory>
#include <string>
#include <vector>

#include "absl/strings/str_cat.h"
#include "common/codegen/cuda_codegen.h"
#include "common/codegen/cuda_nvrtc.h"
#include "common/device/device_profile.h"
#include "common/ir/ops.h"
#include "common/ir/reference.h"
#include "common/lower/lower.h"
#include "common/measure/cuda_compile_sandboxed.h"
#include "common/measure/cuda_runner_sandboxed.h"
#include "common/sketch/annotate.h"
#include "common/sketch/random.h"
#include "common/sketch/sketch.h"
#include "gtest/gtest.h"

namespace pruner {
namespace {

// The last parameter's name in `kernel`'s signature: the output buffer.
std::string OutputParameter(const std::string& source, const std::string& kernel) {
  const size_t open = source.find(kernel + "(");
  const size_t close = source.find(')', open);
  std::string params = source.substr(open, close - open);
  size_t end = params.size();
  while (end > 0 && (std::isalnum(static_cast<unsigned char>(params[end - 1])) ||
                     params[end - 1] == '_')) {
    --end;
  }
  return params.substr(end);
}

class CudaFaultKernelsTest : public ::testing::Test {
 protected:
  void SetUp() override {
    RunOutcome probe = ProbeCudaDevice();
    if (probe.error != MeasureError::kNone) GTEST_SKIP() << probe.message;
    if (absl::Status nvrtc = LoadNvrtc().status(); !nvrtc.ok()) GTEST_SKIP() << nvrtc.message();
    auto profile = GetDeviceProfile("a100");
    ASSERT_TRUE(profile.ok());
    profile_ = *profile;
    dag_ = std::make_shared<const ComputeDag>(*BuildOperator("dense:M=64,K=64,N=64"));
    auto sketches = GenerateSketches(dag_, profile_);
    ASSERT_TRUE(sketches.ok()) << sketches.status();
    Rng rng(3);
    for (const State& state : SampleInitPopulation(*sketches, profile_, 8, rng)) {
      auto program = Lower(state, profile_);
      if (!program.ok()) continue;
      auto module = GenerateCudaSource(*program, profile_);
      if (!module.ok() || module->kernels.size() != 1) continue;
      program_ = *std::move(program);
      module_ = *std::move(module);
      break;
    }
    ASSERT_EQ(module_.kernels.size(), 1u) << "no single-kernel dense schedule sampled";
    inputs_ = RandomInputs(*dag_, 5);
    auto expected = RunReference(*dag_, inputs_);
    ASSERT_TRUE(expected.ok()) << expected.status();
    expected_ = *std::move(expected);
    options_.number = 1;
    options_.repeat = 2;
    options_.min_repeat_ms = 1;
    options_.run_timeout_s = 8;
  }

  // The module with `statement` planted at the top of the kernel's body (""
  // leaves it as generated) and its PTX. `$out` in the statement names the
  // output parameter.
  struct Planted {
    CudaModuleSource module;
    std::string ptx;
  };
  Planted Plant(std::string statement) {
    Planted planted{module_, ""};
    CudaModuleSource& module = planted.module;
    const std::string& kernel = module.kernels[0].name;
    const std::string out = OutputParameter(module.source, kernel);
    for (size_t at = statement.find("$out"); at != std::string::npos; at = statement.find("$out")) {
      statement.replace(at, 4, out);
    }
    const size_t body = module.source.find('{', module.source.find(kernel + "("));
    module.source.insert(body + 1, "\n  " + statement + "\n");
    auto compiled = CompileCudaSandboxed(module, "compute_80", 60);
    EXPECT_TRUE(compiled.ok()) << compiled.status();
    if (compiled.ok()) planted.ptx = compiled->ptx;
    return planted;
  }

  static void Print(const std::string& statement, const RunOutcome& outcome) {
    std::cout << (statement.empty() ? "(as generated)" : statement) << "\n  -> "
              << MeasureErrorName(outcome.error) << " [" << outcome.phase << "] "
              << outcome.message.substr(0, 160) << "  (" << outcome.wall_s << " s)\n";
  }

  RunOutcome RunWith(const std::string& statement) {
    Planted planted = Plant(statement);
    if (planted.ptx.empty()) return RunOutcome::Failure(MeasureError::kBuildError, "build", "");
    RunOutcome outcome = RunCudaModuleSandboxed(program_, planted.module, planted.ptx, inputs_,
                                                expected_, options_);
    Print(statement, outcome);
    return outcome;
  }

  DeviceProfile profile_;
  std::shared_ptr<const ComputeDag> dag_;
  Program program_;
  CudaModuleSource module_;
  std::vector<Tensor> inputs_, expected_;
  MeasureOptions options_;
};

TEST_F(CudaFaultKernelsTest, AsGeneratedItRunsAndMatches) {
  RunOutcome outcome = RunWith("");
  EXPECT_EQ(outcome.error, MeasureError::kNone) << outcome.message;
  EXPECT_EQ(outcome.repeat_costs_s.size(), 2u);
}

TEST_F(CudaFaultKernelsTest, TrapIsARunError) {
  RunOutcome outcome = RunWith("asm volatile(\"trap;\");");
  EXPECT_EQ(outcome.error, MeasureError::kRunError) << outcome.message;
  EXPECT_EQ(outcome.phase, "run");
}

TEST_F(CudaFaultKernelsTest, EndlessLoopIsARunTimeout) {
  // __nanosleep is volatile asm: unlike a spin on a volatile local (which
  // NVRTC removed, seen on an H100), the loop must stay.
  RunOutcome outcome = RunWith("for (;;) __nanosleep(1000);");
  EXPECT_EQ(outcome.error, MeasureError::kRunTimeout) << outcome.message;
  EXPECT_LT(outcome.wall_s, options_.run_timeout_s + 10);
}

TEST_F(CudaFaultKernelsTest, FarOutOfBoundsWriteIsARunError) {
  RunOutcome outcome = RunWith("if (threadIdx.x == 0) $out[(1ll << 32) + blockIdx.x] = 1.0f;");
  EXPECT_EQ(outcome.error, MeasureError::kRunError) << outcome.message;
  EXPECT_EQ(outcome.phase, "run");
}

TEST_F(CudaFaultKernelsTest, UnwrittenOutputIsAWrongResult) {
  RunOutcome outcome = RunWith("return;");
  EXPECT_EQ(outcome.error, MeasureError::kWrongResult) << outcome.message;
  EXPECT_EQ(outcome.phase, "check");
}

TEST_F(CudaFaultKernelsTest, OneWrongElementIsAWrongResult) {
  // The kernel as generated, judged against a reference with one element
  // off by 1%: a single wrong output value must fail the check.
  expected_[0].data[17] *= 1.01f;
  RunOutcome outcome = RunWith("");
  EXPECT_EQ(outcome.error, MeasureError::kWrongResult) << outcome.message;
  EXPECT_EQ(outcome.phase, "check");
}

TEST_F(CudaFaultKernelsTest, TheDeviceStillWorksAfterAFault) {
  RunWith("asm volatile(\"trap;\");");
  RunOutcome outcome = RunWith("");
  EXPECT_EQ(outcome.error, MeasureError::kNone) << outcome.message;
}

// One batch mixing good kernels with faults: every item gets its own class,
// in order, and the good ones after a fault still run (a fresh child takes
// over after a launch failure or a hang).
TEST_F(CudaFaultKernelsTest, ABatchSurvivesItsFaults) {
  const std::vector<std::string> statements = {
      "", "asm volatile(\"trap;\");", "", "for (;;) __nanosleep(1000);", "return;", ""};
  const std::vector<MeasureError> want = {MeasureError::kNone,       MeasureError::kRunError,
                                          MeasureError::kNone,       MeasureError::kRunTimeout,
                                          MeasureError::kWrongResult, MeasureError::kNone};
  std::vector<Planted> planted;
  for (const std::string& s : statements) planted.push_back(Plant(s));
  std::vector<CudaRunItem> items;
  for (const Planted& p : planted) {
    items.push_back(CudaRunItem{&program_, &p.module, &p.ptx, &inputs_, &expected_});
  }
  const std::vector<RunOutcome> outcomes = RunCudaModulesSandboxed(items, options_);
  ASSERT_EQ(outcomes.size(), items.size());
  for (size_t k = 0; k < outcomes.size(); ++k) {
    Print(statements[k], outcomes[k]);
    EXPECT_EQ(outcomes[k].error, want[k]) << k << ": " << outcomes[k].message;
  }
  // Item 2 ran in the child that replaced the trapped one and paid CUDA's
  // start-up; item 5 ran in the same child as item 4 and did not.
  std::cout << "item 2 (fresh child): " << outcomes[2].wall_s
            << " s, item 5 (child reused): " << outcomes[5].wall_s << " s\n";
}

// Without a GPU every item of a batch is the same clean device error.
TEST(CudaBatchWithoutGpuTest, EveryItemIsADeviceError) {
  if (ProbeCudaDevice().error == MeasureError::kNone) GTEST_SKIP() << "this host has a CUDA GPU";
  auto profile = GetDeviceProfile("a100");
  ASSERT_TRUE(profile.ok());
  auto dag = std::make_shared<const ComputeDag>(*BuildOperator("dense:M=16,K=16,N=16"));
  auto sketches = GenerateSketches(dag, *profile);
  ASSERT_TRUE(sketches.ok());
  Rng rng(1);
  std::vector<State> states = SampleInitPopulation(*sketches, *profile, 1, rng);
  ASSERT_FALSE(states.empty());
  auto program = Lower(states[0], *profile);
  ASSERT_TRUE(program.ok()) << program.status();
  auto module = GenerateCudaSource(*program, *profile);
  ASSERT_TRUE(module.ok()) << module.status();
  const std::string ptx = "not loaded";
  const std::vector<Tensor> inputs = RandomInputs(*dag, 1);
  auto expected = RunReference(*dag, inputs);
  ASSERT_TRUE(expected.ok());
  const CudaRunItem item{&*program, &*module, &ptx, &inputs, &*expected};
  MeasureOptions options;
  const std::vector<RunOutcome> outcomes = RunCudaModulesSandboxed({item, item, item}, options);
  ASSERT_EQ(outcomes.size(), 3u);
  for (const RunOutcome& o : outcomes) {
    EXPECT_EQ(o.error, MeasureError::kDeviceError) << o.message;
    EXPECT_NE(o.message.find("CUDA"), std::string::npos) << o.message;
  }
}

}  // namespace
}  // namespace pruner
