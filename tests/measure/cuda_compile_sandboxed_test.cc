// NVRTC in a sandbox child: the reply's encoding, and compiles that give the
// same PTX and the same errors as in-process ones. Needs NVRTC (skips
// without it), not a GPU.
#include "common/measure/cuda_compile_sandboxed.h"

#include <memory>
#include <string>

#include "common/codegen/cuda_codegen.h"
#include "common/device/device_profile.h"
#include "common/ir/ops.h"
#include "common/lower/lower.h"
#include "common/sketch/annotate.h"
#include "common/sketch/random.h"
#include "common/sketch/sketch.h"
#include "gtest/gtest.h"

namespace pruner {
namespace {

TEST(CudaCompileReplyTest, SuccessRoundTrips) {
  CompiledCuda c;
  c.ptx = std::string(".version 9.0\n.entry k()\n{\n}\n") + std::string(1, '\0') + "tail";
  c.log = "warning: something";
  c.compile_ms = 12.5;
  auto back = DecodeCompiledCuda(EncodeCompiledCuda(c));
  ASSERT_TRUE(back.ok()) << back.status();
  EXPECT_EQ(back->ptx, c.ptx);
  EXPECT_EQ(back->log, c.log);
  EXPECT_DOUBLE_EQ(back->compile_ms, 12.5);
}

TEST(CudaCompileReplyTest, ErrorRoundTripsWithItsCode) {
  auto back = DecodeCompiledCuda(EncodeCompiledCuda(
      absl::DeadlineExceededError("build error: NVRTC timed out after 1 s")));
  ASSERT_FALSE(back.ok());
  EXPECT_TRUE(absl::IsDeadlineExceeded(back.status()));
  EXPECT_EQ(back.status().message(), "build error: NVRTC timed out after 1 s");
}

TEST(CudaCompileReplyTest, GarbledRepliesAreInternalErrors) {
  for (std::string bytes : {std::string(), std::string("X"), std::string("O\x01"),
                            std::string("E\x01\x02")}) {
    auto back = DecodeCompiledCuda(bytes);
    ASSERT_FALSE(back.ok());
    EXPECT_TRUE(absl::IsInternal(back.status())) << back.status();
  }
  std::string huge_log = EncodeCompiledCuda(CompiledCuda{});
  huge_log[9] = '\x7f';  // log size far beyond the reply
  EXPECT_FALSE(DecodeCompiledCuda(huge_log).ok());
}

class CudaCompileSandboxedTest : public ::testing::Test {
 protected:
  void SetUp() override {
    if (absl::Status nvrtc = LoadNvrtc().status(); !nvrtc.ok()) GTEST_SKIP() << nvrtc.message();
    auto profile = GetDeviceProfile("a100");
    ASSERT_TRUE(profile.ok());
    auto dag = std::make_shared<const ComputeDag>(*BuildOperator("dense:M=32,K=32,N=32"));
    auto sketches = GenerateSketches(dag, *profile);
    ASSERT_TRUE(sketches.ok());
    Rng rng(5);
    for (const State& state : SampleInitPopulation(*sketches, *profile, 4, rng)) {
      auto program = Lower(state, *profile);
      if (!program.ok()) continue;
      auto module = GenerateCudaSource(*program, *profile);
      if (!module.ok()) continue;
      module_ = *std::move(module);
      return;
    }
    FAIL() << "no dense schedule lowered";
  }
  CudaModuleSource module_;
};

TEST_F(CudaCompileSandboxedTest, SamePtxAsInProcess) {
  auto child = CompileCudaSandboxed(module_, "compute_80", 60);
  ASSERT_TRUE(child.ok()) << child.status();
  EXPECT_EQ(child->arch.number, 80);
  EXPECT_NE(child->ptx.find(".entry"), std::string::npos);
  EXPECT_GT(child->compile_ms, 0);
  auto here = CompileCuda(module_, "compute_80");
  ASSERT_TRUE(here.ok()) << here.status();
  EXPECT_EQ(child->ptx, here->ptx);
}

TEST_F(CudaCompileSandboxedTest, CompileErrorsComeBackWithTheLog) {
  CudaModuleSource broken = module_;
  broken.source += "\nthis is not CUDA;\n";
  auto child = CompileCudaSandboxed(broken, "compute_80", 60);
  ASSERT_FALSE(child.ok());
  EXPECT_FALSE(absl::IsDeadlineExceeded(child.status()));
  EXPECT_NE(child.status().message().find("error"), std::string::npos) << child.status();
}

TEST_F(CudaCompileSandboxedTest, BadArchitectureIsRefusedBeforeForking) {
  auto child = CompileCudaSandboxed(module_, "compute_x", 60);
  ASSERT_FALSE(child.ok());
  EXPECT_TRUE(absl::IsInvalidArgument(child.status())) << child.status();
}

}  // namespace
}  // namespace pruner
