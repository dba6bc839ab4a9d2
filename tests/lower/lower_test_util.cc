#include "tests/lower/lower_test_util.h"

#include <utility>

#include "absl/status/status.h"
#include "absl/strings/str_cat.h"
#include "common/device/gpu_profiles.h"
#include "common/ir/reference.h"
#include "common/ir/tensor.h"
#include "common/lower/interpreter.h"
#include "common/lower/lower.h"
#include "common/schedule/step.h"
#include "gtest/gtest.h"

namespace pruner::testing {

std::shared_ptr<const ComputeDag> Share(absl::StatusOr<ComputeDag> dag) {
  EXPECT_TRUE(dag.ok()) << dag.status();
  if (!dag.ok()) return nullptr;
  return std::make_shared<const ComputeDag>(*std::move(dag));
}

absl::StatusOr<State> ReplayText(std::shared_ptr<const ComputeDag> dag, std::string_view steps) {
  absl::StatusOr<std::vector<Step>> parsed = ParseSteps(steps);
  if (!parsed.ok()) return parsed.status();
  return State::Replay(std::move(dag), *parsed);
}

DeviceProfile TestCpu() {
  DeviceProfile cpu;
  cpu.name = "test-cpu";
  cpu.kind = DeviceKind::kCpu;
  cpu.num_cores = 8;
  cpu.vector_unit_bytes = 32;
  cpu.cache_line_bytes = 64;
  return cpu;
}

DeviceProfile TestGpu() { return A100Sxm40GbProfile(); }

absl::StatusOr<Program> LowerAndCheck(std::shared_ptr<const ComputeDag> dag,
                                      std::string_view steps, const DeviceProfile& device) {
  absl::StatusOr<State> state = ReplayText(dag, steps);
  if (!state.ok()) return state.status();
  absl::StatusOr<Program> program = Lower(*state, device);
  if (!program.ok()) return program.status();
  const std::vector<Tensor> inputs = RandomInputs(*dag, /*seed=*/7);
  absl::StatusOr<std::vector<Tensor>> want = RunReference(*dag, inputs);
  if (!want.ok()) return want.status();
  absl::StatusOr<std::vector<Tensor>> got = RunProgram(*program, inputs);
  if (!got.ok()) {
    return absl::Status(got.status().code(),
                        absl::StrCat(got.status().message(), "\n", program->ToString()));
  }
  if (got->size() != want->size()) {
    return absl::InternalError(absl::StrCat(got->size(), " outputs, expected ", want->size()));
  }
  for (size_t i = 0; i < got->size(); ++i) {
    absl::Status st = CheckAllClose((*got)[i], (*want)[i], 1e-4, 1e-4);
    if (!st.ok()) {
      return absl::Status(st.code(), absl::StrCat("output ", i, ": ", st.message(), "\n",
                                                  program->ToString()));
    }
  }
  return program;
}

std::string GpuMatmulSteps(int64_t m, int64_t kk, int64_t n, const std::string& i,
                           const std::string& j, const std::string& k, int vec) {
  return absl::StrCat(
      "CHW 2 local; SP 2 0 ", m, " ", i, "; SP 2 5 ", n, " ", j, "; SP 2 10 ", kk, " ", k,
      "; RE 2 [0,5,1,6,2,7,10,11,3,8,12,4,9]; "
      "FSP 3 0 1 3; FSP 3 4 2 3; RE 3 [0,4,1,5,2,6,3,7]; CA 2 3 5; "
      "CHR 0 shared [2]; CA 1 3 6; CHR 2 shared [3]; CA 3 4 6; "
      "FU 5 [0,1]; AN 5 0 blockIdx.x; FU 5 [1,2]; AN 5 1 vthread; "
      "FU 5 [2,3]; AN 5 2 threadIdx.x; "
      "FU 1 [0,1]; SP 1 0 0 [", vec, "]; FFSP 1 0 [1,2] 1 1; AN 1 1 threadIdx.x; "
      "AN 1 2 vectorize; "
      "FU 3 [0,1]; SP 3 0 0 [", vec, "]; FFSP 3 0 [1,2] 1 1; AN 3 1 threadIdx.x; "
      "AN 3 2 vectorize; "
      "PR 4 0 auto_unroll_max_step$64");
}

const Buffer* FindBuffer(const Program& program, const std::string& name) {
  for (const Buffer& b : program.buffers) {
    if (b.name == name) return &b;
  }
  return nullptr;
}

int CountStmts(const Program& program, StmtKind kind) {
  int n = 0;
  for (const Kernel& k : program.kernels) {
    VisitStmt(k.body, [&](const StmtNode& s) { n += s.kind == kind; });
  }
  return n;
}

int CountLoops(const Program& program, ForKind kind) {
  int n = 0;
  for (const Kernel& k : program.kernels) {
    VisitStmt(k.body, [&](const StmtNode& s) {
      n += s.kind == StmtKind::kFor && s.for_kind == kind;
    });
  }
  return n;
}

std::string CpuMatmulSteps(int64_t m, int64_t k, int64_t n) {
  return "CHW 2 local; "
         "SP 2 0 " + std::to_string(m) + " [2,4,2]; SP 2 4 " + std::to_string(n) +
         " [2,2,4]; SP 2 8 " + std::to_string(k) + " [8]; "
         "RE 2 [0,4,1,5,8,2,6,9,3,7]; "
         "FSP 3 0 1 2; FSP 3 3 2 2; RE 3 [0,3,1,4,2,5]; "
         "CA 2 3 3; FU 3 [0,1]; AN 3 0 parallel; AN 2 9 vectorize; AN 3 4 vectorize; "
         "PR 2 0 auto_unroll_max_step$16";
}

}  // namespace pruner::testing
