// Hand-written CPU schedules (and the naive schedule of every operator):
// generated C++, built by the system compiler, run, and compared with the
// reference executor.
#include <filesystem>
#include <memory>
#include <string>
#include <vector>

#include "absl/strings/match.h"
#include "common/codegen/cpu_codegen.h"
#include "common/ir/ops.h"
#include "common/ir/reference.h"
#include "common/lower/lower.h"
#include "gtest/gtest.h"
#include "tests/codegen/cpu_check_util.h"
#include "tests/lower/lower_test_util.h"

namespace pruner {
namespace {

using testing::BuildRunAndCompare;
using testing::CpuMatmulSteps;
using testing::ReplayText;
using testing::Share;


class CpuCodegen : public ::testing::Test {
 protected:
  void SetUp() override { work_dir_ = testing::MakeWorkDir("codegen_test"); }
  void TearDown() override { std::filesystem::remove_all(work_dir_); }

  // Replays `steps` on `dag`, lowers for the local CPU, builds, runs and
  // compares; returns the generated source.
  std::string Check(std::shared_ptr<const ComputeDag> dag, const std::string& steps) {
    absl::StatusOr<State> state = ReplayText(dag, steps);
    EXPECT_TRUE(state.ok()) << state.status();
    if (!state.ok()) return "";
    absl::StatusOr<Program> program = Lower(*state, device_);
    EXPECT_TRUE(program.ok()) << program.status();
    if (!program.ok()) return "";
    const std::vector<Tensor> inputs = RandomInputs(*dag, 7);
    absl::StatusOr<std::vector<Tensor>> want = RunReference(*dag, inputs);
    EXPECT_TRUE(want.ok()) << want.status();
    if (!want.ok()) return "";
    absl::Status st = BuildRunAndCompare(*program, device_, options_, work_dir_, inputs, *want);
    EXPECT_TRUE(st.ok()) << st << "\n" << program->ToString();
    absl::StatusOr<CpuKernelSource> source = GenerateCpuSource(*program, device_);
    return source.ok() ? source->code : "";
  }

  const DeviceProfile device_ = DetectLocalCpu();
  CpuBuildOptions options_;
  std::string work_dir_;
};

TEST_F(CpuCodegen, TiledMatmulMatchesReference) {
  const std::string code = Check(Share(Matmul(64, 64, 64)), CpuMatmulSteps(64, 64, 64));
  EXPECT_TRUE(absl::StrContains(code, "#pragma omp parallel for")) << code;
  EXPECT_TRUE(absl::StrContains(code, "#pragma omp simd")) << code;
  EXPECT_TRUE(absl::StrContains(code, "#pragma GCC unroll")) << code;
  EXPECT_TRUE(absl::StrContains(code, "alignas(64) float")) << code;
}

// conv2d with the output channels innermost and vectorized (8 lanes) in a
// 6-column register tile: the weights go in transposed ([rc][ry][rx][ff]),
// and auto-unroll 16 unrolls the 6 columns, since a vectorized loop counts
// as one step (TVM vectorizes before it unrolls).
TEST_F(CpuCodegen, Conv2dOutputChannelsInnermostWithTransposedWeights) {
  Conv2dParams c;
  c.in_channels = 8;
  c.height = 6;
  c.width = 6;
  c.out_channels = 16;
  c.kernel_h = c.kernel_w = 3;
  c.pad_h = c.pad_w = 1;
  const std::string code = Check(
      Share(Conv2d(c)),
      "CHW 3 local; SP 3 0 1 [1,1,1]; SP 3 4 16 [1,1,8]; SP 3 8 6 [1,1,1]; "
      "SP 3 12 6 [1,1,6]; SP 3 16 8 [1]; SP 3 18 3 [1]; SP 3 20 3 [1]; "
      "RE 3 [0,4,8,12,1,5,9,13,16,18,20,2,6,10,14,17,19,21,3,11,15,7]; "
      "FSP 4 0 1 1; FSP 4 2 2 1; FSP 4 4 3 1; FSP 4 6 4 1; RE 4 [0,2,4,6,1,3,5,7]; "
      "CA 3 4 3; FU 4 [0,1,2,3]; AN 4 0 parallel; PR 3 0 auto_unroll_max_step$16; "
      "AN 3 21 vectorize");
  EXPECT_TRUE(absl::StrContains(code, "#pragma GCC unroll 6")) << code;
  EXPECT_TRUE(absl::StrContains(code, "holding the tensor's dimensions [1, 2, 3, 0]")) << code;
}

TEST_F(CpuCodegen, NonDivisibleTiledMatmulMatchesReference) {
  const std::string code = Check(Share(Matmul(65, 17, 33)), CpuMatmulSteps(65, 17, 33));
  EXPECT_TRUE(absl::StrContains(code, "if (")) << code;
}

TEST_F(CpuCodegen, Conv2dWithInlinedPaddingMatchesReference) {
  Conv2dParams c;
  c.batch = 1;
  c.in_channels = 4;
  c.height = 7;
  c.width = 7;
  c.out_channels = 8;
  c.kernel_h = 3;
  c.kernel_w = 3;
  c.pad_h = 1;
  c.pad_w = 1;
  Check(Share(Conv2d(c)),
        "CI 2; CHW 3 local; SP 3 1 8 [2,2]; SP 3 4 7 [4]; SP 3 7 4 [2]; "
        "RE 3 [0,1,4,2,7,9,5,8,10,3,6]; SP 4 1 8 [4]; CA 3 4 1; AN 4 1 parallel; "
        "AN 4 4 vectorize");
}

// The naive schedule (no steps) of every operator: root intermediates on the
// heap, padding selects, reductions with their init nests.
TEST_F(CpuCodegen, NaiveScheduleOfEveryOperatorMatchesReference) {
  for (const std::string& spec : testing::CpuCheckOperators()) {
    SCOPED_TRACE(spec);
    Check(Share(BuildOperator(spec)), "");
  }
}

TEST_F(CpuCodegen, SymbolIsStableAndNamesAreSanitized) {
  auto dag = Share(Matmul(16, 16, 16));
  absl::StatusOr<State> state = ReplayText(dag, CpuMatmulSteps(16, 16, 16));
  ASSERT_TRUE(state.ok()) << state.status();
  absl::StatusOr<Program> program = Lower(*state, device_);
  ASSERT_TRUE(program.ok()) << program.status();
  absl::StatusOr<CpuKernelSource> a = GenerateCpuSource(*program, device_);
  absl::StatusOr<CpuKernelSource> b = GenerateCpuSource(*program, device_);
  ASSERT_TRUE(a.ok() && b.ok());
  EXPECT_EQ(a->symbol, b->symbol);
  EXPECT_EQ(a->code, b->code);
  EXPECT_TRUE(absl::StartsWith(a->symbol, "pruner_cpu_"));
  EXPECT_EQ(a->num_inputs, 2);
  EXPECT_EQ(a->num_outputs, 1);
  EXPECT_FALSE(absl::StrContains(a->code, ".local[")) << a->code;
}

TEST_F(CpuCodegen, GpuProgramsAreRejected) {
  Program program;
  program.target = DeviceKind::kGpu;
  EXPECT_EQ(GenerateCpuSource(program, device_).status().code(),
            absl::StatusCode::kInvalidArgument);
}

}  // namespace
}  // namespace pruner
