// The build side: timeouts, compiler errors, resource checks, the build
// pool, loading, and that vectorized schedules really become SIMD code.
#include <sys/stat.h>

#include <filesystem>
#include <regex>
#include <string>
#include <vector>

#include "absl/strings/match.h"
#include "absl/strings/str_cat.h"
#include "absl/time/clock.h"
#include "common/base/status_macros.h"
#include "common/codegen/cpu_codegen.h"
#include "common/codegen/cpu_compiler.h"
#include "common/codegen/cpu_kernel.h"
#include "common/ir/ops.h"
#include "common/lower/lower.h"
#include "gtest/gtest.h"
#include "tests/codegen/cpu_check_util.h"
#include "tests/lower/lower_test_util.h"

namespace pruner {
namespace {

CpuKernelSource HandWritten(const std::string& symbol, const std::string& body) {
  CpuKernelSource source;
  source.symbol = symbol;
  source.code = body;
  return source;
}

// Adds args[0][i] to args[1][i] for 8 elements.
CpuKernelSource AddEight(const std::string& symbol) {
  return HandWritten(symbol, absl::StrCat("extern \"C\" int ", symbol,
                                          "(float* const* args) {\n"
                                          "  for (int i = 0; i < 8; ++i) args[1][i] += args[0][i];\n"
                                          "  return 0;\n}\n"));
}

class CpuCompiler : public ::testing::Test {
 protected:
  void SetUp() override { work_dir_ = testing::MakeWorkDir("compiler_test"); }
  void TearDown() override { std::filesystem::remove_all(work_dir_); }
  CpuBuildOptions options_;
  std::string work_dir_;
};

TEST_F(CpuCompiler, BuildsLoadsAndRunsAHandWrittenModule) {
  absl::StatusOr<BuiltModule> module = BuildCpuModule(AddEight("add_eight"), options_, work_dir_);
  ASSERT_TRUE(module.ok()) << module.status();
  EXPECT_GT(module->binary_bytes, 0);
  EXPECT_EQ(module->binary_bytes, static_cast<int64_t>(std::filesystem::file_size(module->path)));
  EXPECT_TRUE(absl::StrContains(module->command, "-march=native")) << module->command;
  absl::StatusOr<LoadedKernel> kernel = LoadedKernel::Load(*module);
  ASSERT_TRUE(kernel.ok()) << kernel.status();
  float a[8], b[8];
  for (int i = 0; i < 8; ++i) a[i] = i, b[i] = 10 * i;
  float* args[] = {a, b};
  EXPECT_EQ(kernel->entry()(args), 0);
  for (int i = 0; i < 8; ++i) EXPECT_EQ(b[i], 11 * i);
  // Moving keeps the module loaded; the moved-from object owns nothing.
  LoadedKernel moved = *std::move(kernel);
  EXPECT_EQ(moved.entry()(args), 0);
  EXPECT_EQ(b[1], 12);
}

TEST_F(CpuCompiler, BuildErrorCarriesTheCompilerDiagnostic) {
  CpuKernelSource bad = HandWritten("bad", "extern \"C\" int bad(float* const* args) {\n"
                                           "  return undeclared_thing_42;\n}\n");
  absl::StatusOr<BuiltModule> module = BuildCpuModule(bad, options_, work_dir_);
  ASSERT_FALSE(module.ok());
  EXPECT_EQ(module.status().code(), absl::StatusCode::kInternal);
  EXPECT_TRUE(absl::StartsWith(module.status().message(), "build error: ")) << module.status();
  EXPECT_TRUE(absl::StrContains(module.status().message(), "undeclared_thing_42")) << module.status();
  EXPECT_TRUE(absl::StrContains(module.status().message(), "was not declared")) << module.status();
}

TEST_F(CpuCompiler, MissingCompilerIsAFailedPrecondition) {
  options_.compiler = "no-such-compiler-pruner";
  absl::StatusOr<BuiltModule> module = BuildCpuModule(AddEight("f"), options_, work_dir_);
  EXPECT_EQ(module.status().code(), absl::StatusCode::kFailedPrecondition) << module.status();
}

// A source that includes a FIFO nobody writes: the compiler blocks forever
// in open(), so only the timeout ends the build.
TEST_F(CpuCompiler, HangingBuildIsKilledAtTheTimeout) {
  const std::string fifo = work_dir_ + "/never_written.fifo";
  ASSERT_EQ(mkfifo(fifo.c_str(), 0600), 0);
  CpuKernelSource hang = HandWritten("hang", absl::StrCat("#include \"", fifo, "\"\n"));
  options_.timeout = absl::Milliseconds(700);
  const absl::Time start = absl::Now();
  absl::StatusOr<BuiltModule> module = BuildCpuModule(hang, options_, work_dir_);
  const absl::Duration took = absl::Now() - start;
  ASSERT_FALSE(module.ok());
  EXPECT_EQ(module.status().code(), absl::StatusCode::kDeadlineExceeded) << module.status();
  EXPECT_TRUE(absl::StartsWith(module.status().message(), "build timeout: ")) << module.status();
  EXPECT_LT(took, absl::Seconds(10));
}

TEST_F(CpuCompiler, TinyTimeoutOnANormalBuild) {
  options_.timeout = absl::Milliseconds(1);
  absl::StatusOr<BuiltModule> module = BuildCpuModule(AddEight("g"), options_, work_dir_);
  EXPECT_EQ(module.status().code(), absl::StatusCode::kDeadlineExceeded) << module.status();
}

TEST_F(CpuCompiler, OversizedBinaryIsAnInvalidSchedule) {
  options_.max_binary_bytes = 100;  // every shared object is larger
  absl::StatusOr<BuiltModule> module = BuildCpuModule(AddEight("h"), options_, work_dir_);
  EXPECT_EQ(module.status().code(), absl::StatusCode::kInvalidArgument) << module.status();
  EXPECT_TRUE(absl::StartsWith(module.status().message(), "invalid schedule: binary size"))
      << module.status();
}

TEST_F(CpuCompiler, PoolBuildsEverySourceInOrder) {
  std::vector<CpuKernelSource> sources;
  for (int i = 0; i < 5; ++i) sources.push_back(AddEight(absl::StrCat("pool_", i)));
  sources.push_back(HandWritten("broken", "this is not C++"));
  const std::vector<absl::StatusOr<BuiltModule>> built =
      BuildPool(2).BuildAll(sources, options_, work_dir_);
  ASSERT_EQ(built.size(), sources.size());
  for (int i = 0; i < 5; ++i) {
    ASSERT_TRUE(built[i].ok()) << built[i].status();
    EXPECT_EQ(built[i]->symbol, absl::StrCat("pool_", i));
    EXPECT_TRUE(LoadedKernel::Load(*built[i]).ok());
  }
  EXPECT_EQ(built[5].status().code(), absl::StatusCode::kInternal);
}

// A tiled, vectorized matmul (a dense layer without bias) as generated C++
// for `device`.
absl::StatusOr<CpuKernelSource> VectorizedMatmulSource(const DeviceProfile& device) {
  auto dag = testing::Share(Matmul(64, 64, 64));
  PRUNER_ASSIGN_OR_RETURN(
      State state,
      testing::ReplayText(
          dag,
          "CHW 2 local; SP 2 0 64 [2,4,2]; SP 2 4 64 [2,2,16]; SP 2 8 64 [8]; "
          "RE 2 [0,4,1,5,8,2,6,9,3,7]; FSP 3 0 1 2; FSP 3 3 2 2; RE 3 [0,3,1,4,2,5]; "
          "CA 2 3 3; FU 3 [0,1]; AN 3 0 parallel; AN 2 9 vectorize; AN 3 4 vectorize"));
  PRUNER_ASSIGN_OR_RETURN(Program program, Lower(state, device));
  return GenerateCpuSource(program, device);
}

// It compiles to packed fused multiply-adds on ymm/zmm registers with -O3
// -march=native.
TEST_F(CpuCompiler, VectorizedDenseScheduleBecomesPackedFma) {
  const DeviceProfile device = DetectLocalCpu();
  if (device.vector_isa != "avx512f" && device.vector_isa != "avx2") {
    GTEST_SKIP() << "needs an x86 host with AVX2 or AVX-512, this one has "
                 << device.vector_isa;
  }
  absl::StatusOr<CpuKernelSource> source = VectorizedMatmulSource(device);
  ASSERT_TRUE(source.ok()) << source.status();
  absl::StatusOr<std::string> assembly = CompileCpuAssembly(*source, options_, work_dir_);
  ASSERT_TRUE(assembly.ok()) << assembly.status();
  const std::regex packed_fma(R"(vfmadd\w*ps\s+[^\n]*%[yz]mm)");
  EXPECT_TRUE(std::regex_search(*assembly, packed_fma)) << source->code << "\n" << *assembly;
}

// With Debian's cross compiler, as an Arm worker builds (on the board, or
// emulated: tests/e2e/arm_worker_test.cc), the same schedule becomes NEON
// fused multiply-adds on 128-bit vector registers.
TEST_F(CpuCompiler, CrossCompiledDenseScheduleBecomesNeonFma) {
#ifndef PRUNER_AARCH64_CXX
  GTEST_SKIP() << "no aarch64-linux-gnu-g++ (scripts/setup.sh installs it)";
#else
  DeviceProfile arm = DetectLocalCpu();
  arm.vector_isa = "neon";
  arm.vector_unit_bytes = 16;
  absl::StatusOr<CpuKernelSource> source = VectorizedMatmulSource(arm);
  ASSERT_TRUE(source.ok()) << source.status();
  options_.backend = CpuBackend::kGcc;
  options_.compiler = PRUNER_AARCH64_CXX;
  options_.march = "armv8-a";
  absl::StatusOr<std::string> assembly = CompileCpuAssembly(*source, options_, work_dir_);
  ASSERT_TRUE(assembly.ok()) << assembly.status();
  const std::regex neon_fma(R"(fmla\s+v\d+\.4s)");
  EXPECT_TRUE(std::regex_search(*assembly, neon_fma)) << *assembly;
  EXPECT_FALSE(absl::StrContains(*assembly, "%xmm")) << "x86 code from the cross compiler?";
#endif
}

}  // namespace
}  // namespace pruner
