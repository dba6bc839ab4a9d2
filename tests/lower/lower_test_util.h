// Helpers shared by the lowering tests: replay a step sentence, lower it,
// run the program in the interpreter and compare with the reference
// executor.
#ifndef PRUNER_TESTS_LOWER_LOWER_TEST_UTIL_H_
#define PRUNER_TESTS_LOWER_LOWER_TEST_UTIL_H_

#include <memory>
#include <string>
#include <string_view>
#include <vector>

#include "absl/status/statusor.h"
#include "common/device/device_profile.h"
#include "common/ir/compute_dag.h"
#include "common/lower/program.h"
#include "common/schedule/state.h"

namespace pruner::testing {

// The DAG, or a test failure when the builder failed.
std::shared_ptr<const ComputeDag> Share(absl::StatusOr<ComputeDag> dag);

// State::Replay of a "; "-joined step sentence.
absl::StatusOr<State> ReplayText(std::shared_ptr<const ComputeDag> dag, std::string_view steps);

// A plain CPU profile (8 cores, 32-byte vectors) and the A100 profile.
DeviceProfile TestCpu();
DeviceProfile TestGpu();

// Replays, lowers for `device`, runs the interpreter on random inputs and
// checks every output against RunReference (rtol 1e-4, atol 1e-4). Returns
// the lowered program (or the first error).
absl::StatusOr<Program> LowerAndCheck(std::shared_ptr<const ComputeDag> dag,
                                      std::string_view steps, const DeviceProfile& device);

// Ansor's GPU sketch for C = A x B (SSSRRSRS) on Matmul(m, kk, n): C.local
// tiled i0 j0 | i1 j1 | i2 j2 | k0 | k1 | i3 j3 | k2 | i4 j4, computed at C's
// level-3 (threadIdx) loop; A and B cached in shared memory at C.local's k0
// with cooperative fetching (vectorized by `vec`); C's levels bound to
// blockIdx / vthread / threadIdx. `i` and `j` are the four inner lengths of
// each spatial split ("[2,4,2,2]"), `k` the two of the reduce split.
// Ansor's CPU sketch for C = A x B as a sentence: cache_write into C.local
// tiled SSRSRS, the consumer C tiled by the first two levels and C.local
// computed at its second level, outer loops fused and parallel, inner loops
// vectorized, auto-unroll 16.
std::string CpuMatmulSteps(int64_t m, int64_t k, int64_t n);

std::string GpuMatmulSteps(int64_t m, int64_t kk, int64_t n, const std::string& i,
                           const std::string& j, const std::string& k, int vec);

// Statements of `kind` in the program, over all kernels.
int CountStmts(const Program& program, StmtKind kind);

// The program's buffer named `name`, or nullptr.
const Buffer* FindBuffer(const Program& program, const std::string& name);
// For loops of `kind`.
int CountLoops(const Program& program, ForKind kind);

}  // namespace pruner::testing

#endif  // PRUNER_TESTS_LOWER_LOWER_TEST_UTIL_H_
