// The end-to-end CPU check shared by the codegen tests and the
// codegen_cpu_check tool: schedule -> Lower -> build (LLVM in process, or
// GenerateCpuSource + g++) -> load -> run on RandomInputs -> CheckAllClose
// against RunReference.
#ifndef PRUNER_TESTS_CODEGEN_CPU_CHECK_UTIL_H_
#define PRUNER_TESTS_CODEGEN_CPU_CHECK_UTIL_H_

#include <cstdint>
#include <map>
#include <memory>
#include <string>
#include <vector>

#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "common/codegen/cpu_compiler.h"
#include "common/device/device_profile.h"
#include "common/ir/compute_dag.h"
#include "common/ir/tensor.h"
#include "common/lower/program.h"

namespace pruner::testing {

// Relative and absolute tolerance of every comparison here: FMA contraction
// and vectorized reductions reorder float sums.
inline constexpr double kCpuRtol = 1e-3;
inline constexpr double kCpuAtol = 1e-4;

// A work directory under $TMPDIR (or /tmp) unique to this process and `tag`.
std::string MakeWorkDir(const std::string& tag);

// Builds `program` with each backend (the g++ one with `options`' compiler
// and flags), runs it on `inputs` and compares with `want`; the first
// failure names its backend.
absl::Status BuildRunAndCompare(const Program& program, const DeviceProfile& device,
                                const CpuBuildOptions& options, const std::string& work_dir,
                                const std::vector<Tensor>& inputs,
                                const std::vector<Tensor>& want);

struct CpuCheckCounts {
  int sampled = 0;    // states from the sampler
  int skipped = 0;    // redrawn states that replay or lowering rejects
  int lowered = 0;
  int generated = 0;  // sources generated
  int built = 0;
  int matched = 0;    // ran and matched the reference
  std::map<std::string, int> failures;  // "stage: message" -> count
  double build_seconds = 0;             // summed over builds
  int64_t binary_bytes = 0;             // summed over builds
  std::string first_failure;            // a full report of the first failure
};

struct CpuCheckOptions {
  int num_schedules = 5;
  uint64_t seed = 1;
  int max_parallel_builds = 2;
  // Redraw every split length of the sampled schedules from [1, 7] (most no
  // longer divide their extent), so that the guards of non-divisible splits
  // get built; draws that State::Replay or Lower reject (InvalidArgument:
  // over a device limit) are counted as skipped, not failed.
  bool redraw_split_lengths = false;
  CpuBuildOptions build;
};

// Samples options.num_schedules random schedules of `op_spec` for `device`
// and runs each through the whole CPU path.
absl::StatusOr<CpuCheckCounts> CheckRandomCpuSchedules(const std::string& op_spec,
                                                       const DeviceProfile& device,
                                                       const CpuCheckOptions& options,
                                                       const std::string& work_dir);

// The operators the tests and the tool cover: every operator of the library,
// with 1x7 and non-dividing conv2d shapes and a stride-2 depthwise conv.
std::vector<std::string> CpuCheckOperators();

}  // namespace pruner::testing

#endif  // PRUNER_TESTS_CODEGEN_CPU_CHECK_UTIL_H_
