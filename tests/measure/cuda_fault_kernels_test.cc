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
#include "common/schedule/annotate.h"
#include "common/schedule/random.h"
#include "common/schedule/sketch.h"
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

  // Runs the kernel with `statement` planted at the top of its body ("" runs
  // it as generated). `$out` in the statement names the output parameter.
  RunOutcome RunWith(std::string statement) {
    CudaModuleSource module = module_;
    const std::string& kernel = module.kernels[0].name;
    const std::string out = OutputParameter(module.source, kernel);
    for (size_t at = statement.find("$out"); at != std::string::npos; at = statement.find("$out")) {
      statement.replace(at, 4, out);
    }
    const size_t body = module.source.find('{', module.source.find(kernel + "("));
    module.source.insert(body + 1, "\n  " + statement + "\n");
    auto compiled = CompileCudaSandboxed(module, "compute_80", 60);
    EXPECT_TRUE(compiled.ok()) << compiled.status();
    if (!compiled.ok()) return RunOutcome::Failure(MeasureError::kBuildError, "build", "");
    RunOutcome outcome =
        RunCudaModuleSandboxed(program_, module, compiled->ptx, inputs_, expected_, options_);
    std::cout << (statement.empty() ? "(as generated)" : statement) << "\n  -> "
              << MeasureErrorName(outcome.error) << " [" << outcome.phase << "] "
              << outcome.message.substr(0, 160) << "  (" << outcome.wall_s << " s)\n";
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

}  // namespace
}  // namespace pruner
