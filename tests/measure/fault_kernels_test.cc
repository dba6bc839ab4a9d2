// Hand-written faulty kernels, built with the system compiler and run
// through the sandboxed CPU runner: each failure must be classified, and
// this process must survive every one of them.
#include <stdlib.h>
#include <unistd.h>

#include <cstdio>
#include <filesystem>
#include <memory>
#include <string>

#include "absl/strings/str_cat.h"
#include "common/codegen/cpu_compiler.h"
#include "common/device/device_profile.h"
#include "common/ir/ops.h"
#include "common/lower/lower.h"
#include "common/measure/cpu_runner.h"
#include "common/measure/reference_cache.h"
#include "common/schedule/state.h"
#include "gtest/gtest.h"

namespace pruner {
namespace {

class FaultKernelsTest : public ::testing::Test {
 protected:
  void SetUp() override {
    std::string templ = "/tmp/pruner_measure_fault_XXXXXX";
    ASSERT_NE(mkdtemp(templ.data()), nullptr);
    work_dir_ = templ;
    auto device = GetDeviceProfile("cpu");
    ASSERT_TRUE(device.ok()) << device.status();
    device_ = *device;
    options_.number = 1;
    options_.repeat = 2;
    options_.min_repeat_ms = 0;
    options_.run_timeout_s = 1;
  }
  void TearDown() override { std::filesystem::remove_all(work_dir_); }

  // A naive program of `spec` plus its reference data: the argument layout
  // the hand-written kernels follow.
  void UseWorkload(const std::string& spec) {
    auto dag = BuildOperator(spec);
    ASSERT_TRUE(dag.ok()) << dag.status();
    dag_ = std::make_shared<const ComputeDag>(*std::move(dag));
    auto program = Lower(State::Initial(dag_), device_);
    ASSERT_TRUE(program.ok()) << program.status();
    program_ = *std::move(program);
    ASSERT_EQ(program_.outputs.size(), 1u);
    auto reference = GetReferenceData(*dag_, options_.seed);
    ASSERT_TRUE(reference.ok()) << reference.status();
    reference_ = *reference;
  }

  int64_t OutputElements() const { return program_.buffer(program_.outputs[0]).num_elements(); }

  // Builds `body` as the entry point; `out` is the output buffer, `n` its
  // number of elements.
  RunOutcome BuildAndRun(const std::string& name, const std::string& body) {
    CpuKernelSource source;
    source.symbol = absl::StrCat("fault_", name);
    source.num_inputs = static_cast<int>(program_.inputs.size());
    source.num_outputs = 1;
    source.code = absl::StrCat("extern \"C\" int ", source.symbol,
                               "(float* const* args) {\n  float* out = args[", source.num_inputs,
                               "];\n  const long n = ", OutputElements(), ";\n  (void)n; (void)out;\n",
                               body, "\n  return 0;\n}\n");
    CpuBuildOptions build;
    build.opt = "-O1";
    auto module = BuildCpuModule(source, build, work_dir_);
    EXPECT_TRUE(module.ok()) << module.status();
    if (!module.ok()) return RunOutcome::Failure(MeasureError::kBuildError, "build", "");
    RunOutcome outcome = RunCpuModuleSandboxed(*module, program_, reference_->inputs,
                                               reference_->outputs, options_, device_,
                                               /*hopeless_after_s=*/0);
    std::printf("[%s] %s [%s]: %s (%.3f s)\n", name.c_str(),
                std::string(MeasureErrorName(outcome.error)).c_str(), outcome.phase.c_str(),
                outcome.message.c_str(), outcome.wall_s);
    return outcome;
  }

  std::string work_dir_;
  DeviceProfile device_;
  MeasureOptions options_;
  std::shared_ptr<const ComputeDag> dag_;
  Program program_;
  std::shared_ptr<const ReferenceData> reference_;
};

TEST_F(FaultKernelsTest, NullWriteIsARunErrorNamingTheSignal) {
  UseWorkload("dense:M=4,K=8,N=8");
  RunOutcome o = BuildAndRun("segfault", "  *static_cast<volatile float*>(nullptr) = 1.0f;");
  EXPECT_EQ(o.error, MeasureError::kRunError);
  EXPECT_NE(o.message.find("SIGSEGV"), std::string::npos);
}

TEST_F(FaultKernelsTest, InfiniteLoopIsARunTimeout) {
  UseWorkload("dense:M=4,K=8,N=8");
  RunOutcome o = BuildAndRun("hang", "  for (volatile long i = 0;; i = i + 1) {}");
  EXPECT_EQ(o.error, MeasureError::kRunTimeout);
  EXPECT_GE(o.wall_s, options_.run_timeout_s);
  EXPECT_LT(o.wall_s, options_.run_timeout_s + 3);
}

// After the data come the 64-byte rounding and kCpuReadSlackBytes of canary
// (readable: vector loads may stray there), then the guard page.
TEST_F(FaultKernelsTest, WritePastTheReadSlackHitsTheGuardPage) {
  UseWorkload("dense:M=4,K=8,N=8");  // 32 floats: no rounding, 16 floats of slack
  RunOutcome o = BuildAndRun("oob_after", "  static_cast<volatile float*>(out)[n + 16] = 1.0f;");
  EXPECT_EQ(o.error, MeasureError::kRunError);
  EXPECT_NE(o.message.find("SIGSEGV"), std::string::npos);
}

TEST_F(FaultKernelsTest, WriteIntoTheReadSlackIsCaughtByTheCanary) {
  UseWorkload("dense:M=4,K=8,N=8");
  RunOutcome o = BuildAndRun("oob_in_slack", "  static_cast<volatile float*>(out)[n + 15] = 1.0f;");
  EXPECT_EQ(o.error, MeasureError::kRunError);
  EXPECT_NE(o.message.find("canary"), std::string::npos);
}

TEST_F(FaultKernelsTest, WriteFarPastTheEndHitsTheGuardPage) {
  UseWorkload("dense:M=5,K=8,N=7");  // 35 floats, rounded to 48, then 16 of slack
  RunOutcome o = BuildAndRun("oob_far_after", "  static_cast<volatile float*>(out)[n + 29] = 1.0f;");
  EXPECT_EQ(o.error, MeasureError::kRunError);
  EXPECT_NE(o.message.find("SIGSEGV"), std::string::npos);
}

TEST_F(FaultKernelsTest, SubPageOverrunIsCaughtByTheCanary) {
  UseWorkload("dense:M=5,K=8,N=7");  // 35 floats: 13 floats of rounding, then the read slack
  RunOutcome o = BuildAndRun("oob_slack", R"(
  for (long i = 0; i < n; ++i) out[i] = 0.0f;
  static_cast<volatile float*>(out)[n] = 1.0f;)");
  EXPECT_EQ(o.error, MeasureError::kRunError);
  EXPECT_NE(o.message.find("canary"), std::string::npos);
}

TEST_F(FaultKernelsTest, WriteBeforeTheStartIsARunError) {
  UseWorkload("dense:M=4,K=8,N=8");
  RunOutcome o = BuildAndRun("oob_before", "  static_cast<volatile float*>(out)[-1] = 1.0f;");
  EXPECT_EQ(o.error, MeasureError::kRunError);
  EXPECT_NE(o.message.find("canary"), std::string::npos);
}

TEST_F(FaultKernelsTest, WriteAPageBeforeTheStartHitsTheLeadingGuard) {
  UseWorkload("dense:M=4,K=8,N=8");
  const long page_floats = sysconf(_SC_PAGESIZE) / 4;
  RunOutcome o = BuildAndRun(
      "oob_page_before",
      absl::StrCat("  static_cast<volatile float*>(out)[-", page_floats, "] = 1.0f;"));
  EXPECT_EQ(o.error, MeasureError::kRunError);
  EXPECT_NE(o.message.find("SIGSEGV"), std::string::npos);
}

TEST_F(FaultKernelsTest, WrongAnswerIsAWrongResultWithTheFirstIndex) {
  UseWorkload("dense:M=4,K=8,N=8");
  RunOutcome o = BuildAndRun("wrong", "  for (long i = 0; i < n; ++i) out[i] = 42.0f;");
  EXPECT_EQ(o.error, MeasureError::kWrongResult);
  EXPECT_EQ(o.phase, "check");
  EXPECT_NE(o.message.find("[0, 0]"), std::string::npos) << o.message;
}

TEST_F(FaultKernelsTest, UnwrittenOutputIsAWrongResult) {
  UseWorkload("dense:M=4,K=8,N=8");
  RunOutcome o = BuildAndRun("lazy", "");
  EXPECT_EQ(o.error, MeasureError::kWrongResult);
}

TEST_F(FaultKernelsTest, NonZeroReturnIsARunError) {
  UseWorkload("dense:M=4,K=8,N=8");
  RunOutcome o = BuildAndRun("rc", "  return 7;");
  EXPECT_EQ(o.error, MeasureError::kRunError);
  EXPECT_NE(o.message.find("returned 7"), std::string::npos);
}

TEST_F(FaultKernelsTest, AbortIsARunError) {
  UseWorkload("dense:M=4,K=8,N=8");
  RunOutcome o = BuildAndRun("abort", "  __builtin_trap();");
  EXPECT_EQ(o.error, MeasureError::kRunError);
  EXPECT_NE(o.message.find("SIGILL"), std::string::npos);
}

}  // namespace
}  // namespace pruner
