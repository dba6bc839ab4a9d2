// NVRTC compilation and ptxas reports for random GPU schedules of every
// operator. Skips, saying why, where NVRTC or ptxas is missing.
#include <set>
#include <string>

#include "common/codegen/cuda_nvrtc.h"
#include "common/codegen/cuda_ptxas.h"
#include "common/codegen/cuda_toolkit_paths.h"
#include "common/ir/ops.h"
#include "gtest/gtest.h"
#include "tests/codegen/cuda_compile_check.h"

namespace pruner {
namespace {

#define SKIP_WITHOUT_NVRTC()                                         \
  do {                                                               \
    auto nvrtc_ = LoadNvrtc();                                       \
    if (!nvrtc_.ok()) GTEST_SKIP() << nvrtc_.status().message();     \
  } while (0)

TEST(CudaNvrtcTest, SpecsCoverEveryOperator) {
  std::set<std::string> covered;
  for (const std::string& spec : CudaCheckSpecs()) covered.insert(spec.substr(0, spec.find(':')));
  for (const std::string& op : KnownOperators()) EXPECT_EQ(covered.count(op), 1u) << op;
}

TEST(CudaNvrtcTest, BadSourceIsABuildErrorWithTheLog) {
  SKIP_WITHOUT_NVRTC();
  CudaModuleSource module;
  module.source = "extern \"C\" __global__ void k(float* a) { a[0] = undeclared; }\n";
  auto compiled = CompileCuda(module, "compute_80");
  ASSERT_FALSE(compiled.ok());
  EXPECT_EQ(compiled.status().code(), absl::StatusCode::kInternal);
  const std::string message(compiled.status().message());
  EXPECT_EQ(message.rfind("build error: NVRTC", 0), 0u) << message;
  EXPECT_NE(message.find("undeclared"), std::string::npos) << message;
}

TEST(CudaNvrtcTest, CubinForRealArchitecturesAndPtxasReport) {
  SKIP_WITHOUT_NVRTC();
  CudaModuleSource module;
  module.source =
      "extern \"C\" __global__ void __launch_bounds__(128) k(float* __restrict__ a) {\n"
      "  __shared__ float s[256];\n  s[threadIdx.x] = a[threadIdx.x];\n  __syncthreads();\n"
      "  a[threadIdx.x] = s[255 - threadIdx.x];\n}\n";
  module.kernels.push_back(CudaKernelSource{"k", {1, 1, 1}, {128, 1, 1}, 1024, {0}});
  auto compiled = CompileCuda(module, "sm_80");
  ASSERT_TRUE(compiled.ok()) << compiled.status();
  EXPECT_FALSE(compiled->cubin.empty());
  EXPECT_NE(compiled->ptx.find(".entry k"), std::string::npos);
  if (!FindPtxas().ok()) GTEST_SKIP() << FindPtxas().status().message();
  auto report = RunPtxas(compiled->ptx, "sm_80");
  ASSERT_TRUE(report.ok()) << report.status();
  const KernelResources* k = report->Find("k");
  ASSERT_NE(k, nullptr);
  EXPECT_GT(k->registers, 0);
  EXPECT_EQ(k->shared_bytes, 1024);
  EXPECT_GT(report->cubin_bytes, 0);
}

TEST(CudaNvrtcTest, SharedMemoryOverTheStaticLimitIsAnInvalidSchedule) {
  SKIP_WITHOUT_NVRTC();
  if (!FindPtxas().ok()) GTEST_SKIP() << FindPtxas().status().message();
  CudaModuleSource module;
  module.source =
      "extern \"C\" __global__ void k(float* a) {\n  __shared__ float s[16384];\n"
      "  s[threadIdx.x] = a[threadIdx.x];\n  __syncthreads();\n  a[threadIdx.x] = s[16383 - threadIdx.x];\n}\n";
  auto compiled = CompileCuda(module, "compute_80");
  ASSERT_TRUE(compiled.ok()) << compiled.status();
  auto report = RunPtxas(compiled->ptx, "sm_80");
  ASSERT_FALSE(report.ok());
  EXPECT_EQ(report.status().code(), absl::StatusCode::kInvalidArgument) << report.status();
}

// A few random schedules per operator, through NVRTC for compute_80 and
// compute_90 and ptxas; codegen_cuda_check --n 100 is the larger run.
class CudaRandomSchedulesTest : public ::testing::TestWithParam<std::string> {};

TEST_P(CudaRandomSchedulesTest, CompileForAmpereAndHopper) {
  SKIP_WITHOUT_NVRTC();
  auto device = GetDeviceProfile("a100");
  ASSERT_TRUE(device.ok());
  CudaCompileCheckOptions options;
  options.num_schedules = 3;
  options.run_ptxas = FindPtxas().ok();
  auto report = CheckCudaCompile(GetParam(), *device, options);
  ASSERT_TRUE(report.ok()) << report.status();
  EXPECT_GT(report->generated, 0);
  EXPECT_EQ(report->generated, report->lowered) << report->first_failure;
  for (const std::string& arch : options.archs) {
    const CudaArchStats& stats = report->per_arch[arch];
    EXPECT_EQ(stats.compiled, report->generated) << arch << "\n" << report->first_failure;
    if (options.run_ptxas) {
      EXPECT_EQ(stats.assembled, stats.compiled) << arch << "\n" << report->first_failure;
      for (int r : stats.registers) EXPECT_GT(r, 0);
    }
  }
}

INSTANTIATE_TEST_SUITE_P(EveryOperator, CudaRandomSchedulesTest,
                         ::testing::ValuesIn(CudaCheckSpecs()),
                         [](const ::testing::TestParamInfo<std::string>& info) {
                           // The operator's name, and the Winograd tile when
                           // the spec sets one (two conv2d_winograd specs).
                           const std::string& spec = info.param;
                           std::string name = spec.substr(0, spec.find(':'));
                           const size_t tile = spec.find("tile=");
                           if (tile != std::string::npos) name += "_tile" + spec.substr(tile + 5, 1);
                           return name;
                         });

}  // namespace
}  // namespace pruner
