// Schedules a device cannot run are rejected with InvalidArgument, and the
// message names the stage and the limit.
#include <string>

#include "absl/strings/str_replace.h"
#include "common/ir/ops.h"
#include "common/lower/lower.h"
#include "gtest/gtest.h"
#include "tests/lower/lower_test_util.h"

namespace pruner {
namespace {

using testing::GpuMatmulSteps;
using testing::ReplayText;
using testing::Share;
using testing::TestCpu;
using testing::TestGpu;

// Lowers and returns the error (OK when lowering succeeded).
absl::Status LowerError(std::shared_ptr<const ComputeDag> dag, const std::string& steps,
                        const DeviceProfile& device) {
  absl::StatusOr<State> state = ReplayText(std::move(dag), steps);
  EXPECT_TRUE(state.ok()) << state.status();
  if (!state.ok()) return absl::OkStatus();
  absl::StatusOr<Program> p = Lower(*state, device);
  return p.status();
}

void ExpectInvalid(const absl::Status& st, const std::string& fragment) {
  EXPECT_EQ(st.code(), absl::StatusCode::kInvalidArgument) << st;
  EXPECT_NE(st.message().find(fragment), std::string::npos)
      << "message: " << st.message() << "\nexpected to contain: " << fragment;
}

TEST(LowerInvalid, TooManyThreadsPerBlock) {
  absl::Status st = LowerError(
      Share(Matmul(256, 32, 256)),
      GpuMatmulSteps(256, 32, 256, "[1,32,1,1]", "[1,64,1,1]", "[4,2]", 1), TestGpu());
  ExpectInvalid(st, "stage matmul: 2048 threads per block exceed max_threads_per_block = 1024");
}

TEST(LowerInvalid, TooMuchSharedMemory) {
  // 128 x 128 tiles of A and B over a 128-long reduction slice: 128 KiB.
  absl::Status st = LowerError(
      Share(Matmul(512, 512, 512)),
      GpuMatmulSteps(512, 512, 512, "[1,8,8,2]", "[1,8,8,2]", "[64,2]", 1), TestGpu());
  ExpectInvalid(st, "stage matmul: 131072 bytes of shared memory exceed "
                    "max_shared_memory_per_block = 49152");
}

TEST(LowerInvalid, TooManyVirtualThreads) {
  absl::Status st = LowerError(
      Share(Matmul(64, 32, 64)),
      GpuMatmulSteps(64, 32, 64, "[4,4,1,1]", "[4,4,1,1]", "[4,2]", 1), TestGpu());
  ExpectInvalid(st, "vthread i.1@j.1@ has extent 16, more than max_vthread_extent = 8");
}

TEST(LowerInvalid, VectorWiderThanTheVectorUnit) {
  absl::Status st = LowerError(
      Share(Matmul(64, 32, 64)),
      GpuMatmulSteps(64, 32, 64, "[2,4,2,2]", "[2,8,1,2]", "[4,2]", 8), TestGpu());
  ExpectInvalid(st, "stage A.shared: vectorized loop ax0@ax1@.1 spans 32 bytes, more than "
                    "vector_unit_bytes = 16");
}

TEST(LowerInvalid, AttachedStageBindsMoreThreadsThanItsKernel) {
  // The cooperative fetch of A.shared binds 64 threads; the kernel has 32.
  std::string steps = GpuMatmulSteps(64, 32, 64, "[2,4,2,2]", "[2,8,1,2]", "[4,2]", 1);
  steps = absl::StrReplaceAll(steps, {{"FFSP 1 0 [1,2] 1 1", "SP 1 0 0 [64]"}});
  absl::Status st = LowerError(Share(Matmul(64, 32, 64)), steps, TestGpu());
  ExpectInvalid(st, "stage A.shared: binds threadIdx.x with extent 64, more than its kernel's 32");
}

TEST(LowerInvalid, GpuKernelWithoutThreadBindings) {
  absl::Status st = LowerError(Share(Matmul(16, 16, 16)), "", TestGpu());
  ExpectInvalid(st, "stage matmul: its GPU kernel loops 4096 times but binds no blockIdx/threadIdx loop");
}

TEST(LowerInvalid, SharedStageAtRootOnGpu) {
  absl::Status st = LowerError(Share(Matmul(16, 16, 16)),
                               "CHR 0 shared [2]; AN 3 0 blockIdx.x; AN 3 1 threadIdx.x",
                               TestGpu());
  ExpectInvalid(st, "stage A.shared: scope shared needs the stage to be computed inside a kernel");
}

TEST(LowerInvalid, ParallelLoopOnGpu) {
  absl::Status st = LowerError(Share(Matmul(16, 16, 16)),
                               "AN 2 0 blockIdx.x; AN 2 1 parallel", TestGpu());
  ExpectInvalid(st, "stage matmul: parallel loop j on a GPU");
}

TEST(LowerInvalid, NestedParallelLoopsOnCpu) {
  absl::Status st =
      LowerError(Share(Matmul(16, 16, 16)), "AN 2 0 parallel; AN 2 1 parallel", TestCpu());
  ExpectInvalid(st, "stage matmul: parallel loop j is nested inside parallel loop i of stage matmul");
}

TEST(LowerInvalid, ThreadBindingOnCpu) {
  absl::Status st = LowerError(Share(Matmul(16, 16, 16)), "AN 2 0 blockIdx.x", TestCpu());
  ExpectInvalid(st, "stage matmul: loop i is bound to blockIdx.x but the target is a CPU");
}

TEST(LowerInvalid, ConsumerOutsideTheAttachPoint) {
  // dense is computed at relu's j loop, but bias_add (which reads dense) is
  // a root stage computed before relu: it cannot see dense's buffer.
  absl::Status st =
      LowerError(Share(Dense(8, 8, 8, {.bias = true, .activation = Activation::kRelu})),
                 "CA 3 5 1", TestCpu());
  ExpectInvalid(st, "its consumer bias_add is computed outside that loop");
}

TEST(LowerInvalid, CrossThreadReductionIsUnimplemented) {
  absl::StatusOr<State> state =
      ReplayText(Share(Matmul(16, 64, 16)), "SP 2 2 64 [32]; AN 2 0 blockIdx.x; AN 2 3 threadIdx.x");
  ASSERT_TRUE(state.ok()) << state.status();
  absl::StatusOr<Program> p = Lower(*state, TestGpu());
  EXPECT_EQ(p.status().code(), absl::StatusCode::kUnimplemented) << p.status();
}

}  // namespace
}  // namespace pruner
