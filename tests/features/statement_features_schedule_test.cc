// Features of hand-written schedules: CPU annotations, a GPU schedule with
// shared-memory caches, root intermediates, guards and lowering errors.
#include <string>

#include "common/features/feature_columns.h"
#include "common/features/statement_features.h"
#include "common/ir/ops.h"
#include "common/lower/lower.h"
#include "gtest/gtest.h"
#include "tests/features/feature_test_util.h"
#include "tests/lower/lower_test_util.h"

namespace pruner {
namespace {

namespace fc = feature_columns;
using testing::SlogOf;

struct Lowered {
  Program program;
  ProgramFeatures features;
};

Lowered LowerText(const std::string& spec, const std::string& steps, const DeviceProfile& device) {
  Lowered out;
  auto dag = testing::Share(BuildOperator(spec));
  if (dag == nullptr) return out;
  absl::StatusOr<State> state = testing::ReplayText(dag, steps);
  EXPECT_TRUE(state.ok()) << state.status();
  if (!state.ok()) return out;
  absl::StatusOr<Program> program = Lower(*state, device);
  EXPECT_TRUE(program.ok()) << program.status();
  if (!program.ok()) return out;
  out.program = *std::move(program);
  out.features = ExtractStatementFeatures(out.program, device);
  return out;
}

// matmul 64x32x16: i and j split by 8 and 4, k by 4, reordered to
//   parallel i.0 (8) / j.0 (4) / k.0 (8) / i.1 (8) / unrolled k.1 (4) /
//   vectorized j.1 (4), with auto_unroll_max_step 64 on i.0.
TEST(StatementFeatures, CpuAnnotationsSetVectorUnrollAndParallelFeatures) {
  const Lowered l =
      LowerText("matmul:M=64,K=32,N=16",
                "SP 2 0 64 [8]; SP 2 2 16 [4]; SP 2 4 32 [4]; RE 2 [0,2,4,1,5,3]; AN 2 0 parallel; "
                "AN 2 4 unroll; AN 2 5 vectorize; PR 2 0 auto_unroll_max_step$64",
                testing::TestCpu());
  ASSERT_EQ(l.features.size(), 1u) << l.program.ToString();
  const StatementFeatures& r = l.features[0];
  SCOPED_TRACE(l.program.ToString() + testing::DescribeRow(r));

  EXPECT_FLOAT_EQ(r[fc::kVecBlock + fc::kAnnNum], SlogOf(1));
  EXPECT_FLOAT_EQ(r[fc::kVecBlock + fc::kAnnProd], SlogOf(4));
  EXPECT_FLOAT_EQ(r[fc::kVecBlock + fc::kAnnLen], SlogOf(4));
  EXPECT_FLOAT_EQ(r[fc::kUnrollBlock + fc::kAnnNum], SlogOf(1));
  EXPECT_FLOAT_EQ(r[fc::kUnrollBlock + fc::kAnnProd], SlogOf(4));
  EXPECT_FLOAT_EQ(r[fc::kUnrollBlock + fc::kAnnLen], SlogOf(4));
  EXPECT_FLOAT_EQ(r[fc::kParallelBlock + fc::kAnnNum], SlogOf(1));
  EXPECT_FLOAT_EQ(r[fc::kParallelBlock + fc::kAnnProd], SlogOf(8));
  EXPECT_FLOAT_EQ(r[fc::kParallelBlock + fc::kAnnLen], SlogOf(8));
  for (int block : {fc::kVecBlock, fc::kUnrollBlock, fc::kParallelBlock}) {
    // Position one-hot: Mixed when annotated (TVM's only other value is None).
    EXPECT_EQ(r[block + fc::kAnnPosMixed], 1.0f);
    EXPECT_EQ(r[block + fc::kAnnPosNone], 0.0f);
  }
  EXPECT_EQ(r[fc::kIsGpu], 0.0f);
  EXPECT_FLOAT_EQ(r[fc::kOuterProd], SlogOf(64 * 16 * 32));
  EXPECT_FLOAT_EQ(r[fc::kNumLoops], SlogOf(6));
  EXPECT_FLOAT_EQ(r[fc::kAutoUnrollMaxStep], SlogOf(64));
  // Index arithmetic: (i.0*8 + i.1) for A and C, (k.0*4 + k.1) for A and B,
  // (j.0*4 + j.1) for B and C: 6 adds and 6 muls per update (the written
  // element's own indices are not counted, its read is).
  EXPECT_FLOAT_EQ(r[fc::kIntAddSub], SlogOf(6.0 * 64 * 16 * 32));
  EXPECT_FLOAT_EQ(r[fc::kIntMul], SlogOf(6.0 * 64 * 16 * 32));
  // The vectorized loop walks C and B with unit stride: both report it.
  int unit_strides = 0;
  for (int s = 0; s < 3; ++s) unit_strides += r[fc::BufferColumn(s, fc::kStride)] == SlogOf(1);
  EXPECT_EQ(unit_strides, 2);
}

// Ansor's GPU matmul sketch (tests/lower/lower_test_util.h) on 64x32x64:
//   blockIdx.x (4) / vthread (4) / threadIdx.x (32) / C.local ...
// with A and B fetched into shared memory at k.0 (4) by threadIdx.x (32)
// and a 2-wide vector; auto_unroll_max_step 64 on C.local's outer loop.
TEST(StatementFeatures, GpuScheduleSetsThreadExtentsAndSharedAllocations) {
  const Lowered l =
      LowerText("matmul:M=64,K=32,N=64",
                testing::GpuMatmulSteps(64, 32, 64, "[2,4,2,2]", "[2,8,1,2]", "[4,2]", 2),
                testing::TestGpu());
  SCOPED_TRACE(l.program.ToString());
  ASSERT_EQ(l.features.size(), 4u);
  for (const StatementFeatures& r : l.features) {
    EXPECT_EQ(r[fc::kIsGpu], 1.0f);
    EXPECT_FLOAT_EQ(r[fc::kBlockIdxXLen], SlogOf(4));
    EXPECT_FLOAT_EQ(r[fc::kThreadIdxXLen], SlogOf(32));
    EXPECT_FLOAT_EQ(r[fc::kVThreadLen], SlogOf(4));
    EXPECT_EQ(r[fc::kBlockIdxYLen], 1.0f);  // slog(1): not bound
    // Thread bindings are not parallel loops.
    EXPECT_EQ(r[fc::kParallelBlock + fc::kAnnNum], 0.0f);
    EXPECT_EQ(r[fc::kParallelBlock + fc::kAnnPosNone], 1.0f);
  }

  // C.local's update: 4*4*32 threads x k.0 4, k.1 4, i.3 2, k.2 2, i.4 2, j.4 2.
  const StatementFeatures local = testing::RowOfBuffer(l.program, l.features, "matmul.local");
  EXPECT_FLOAT_EQ(local[fc::kOuterProd], SlogOf(512.0 * 256));
  EXPECT_FLOAT_EQ(local[fc::kNumLoops], SlogOf(9));
  EXPECT_FLOAT_EQ(local[fc::kAutoUnrollMaxStep], SlogOf(64));  // the sketch's pragma
  EXPECT_FLOAT_EQ(local[fc::kFloatMul], SlogOf(512.0 * 256));
  // Allocated per (block, vthread, thread): a 4x2 float tile.
  EXPECT_FLOAT_EQ(local[fc::kAllocSize], SlogOf(32));
  EXPECT_FLOAT_EQ(local[fc::kAllocOuterProd], SlogOf(512));
  EXPECT_FLOAT_EQ(local[fc::kAllocProd], SlogOf(8 * 512));
  EXPECT_FLOAT_EQ(local[fc::kAllocInnerProd], SlogOf(256));

  // The cooperative fetch of A: its threadIdx.x binding is the same
  // hardware index as the enclosing one, so it counts once:
  // blockIdx 4 x vthread 4 x k.0 4 x ax.0.0 4 x threadIdx 32 x vector 2.
  const StatementFeatures fetch = testing::RowOfBuffer(l.program, l.features, "A.shared");
  SCOPED_TRACE(testing::DescribeRow(fetch));
  EXPECT_FLOAT_EQ(fetch[fc::kOuterProd], SlogOf(4 * 4 * 4 * 4 * 32 * 2));
  EXPECT_FLOAT_EQ(fetch[fc::kNumLoops], SlogOf(6));
  EXPECT_FLOAT_EQ(fetch[fc::kVecBlock + fc::kAnnLen], SlogOf(2));
  EXPECT_EQ(fetch[fc::kVecBlock + fc::kAnnPosMixed], 1.0f);
  EXPECT_EQ(fetch[fc::kFloatAddSub], 0.0f);  // a copy
  // The shared tile (32x8 floats) is allocated at k.0, inside the block,
  // vthread and thread loops.
  EXPECT_FLOAT_EQ(fetch[fc::kAllocSize], SlogOf(32 * 8 * 4));
  EXPECT_FLOAT_EQ(fetch[fc::kAllocOuterProd], SlogOf(4 * 4 * 32 * 4));
  EXPECT_FLOAT_EQ(fetch[fc::kAllocProd], SlogOf(32 * 8 * 4 * 4 * 32 * 4));
  const StatementFeatures fetch_b = testing::RowOfBuffer(l.program, l.features, "B.shared");
  EXPECT_FLOAT_EQ(fetch_b[fc::kAllocSize], SlogOf(8 * 32 * 4));

  // The output is written by the thread, not allocated.
  const StatementFeatures out = testing::RowOfBuffer(l.program, l.features, "matmul");
  for (int c = fc::kAllocOffset; c < fc::kOuterScopeOffset; ++c) EXPECT_EQ(out[c], 0.0f);
  EXPECT_FLOAT_EQ(out[fc::kOuterProd], SlogOf(4 * 4 * 32 * 4 * 2));
  // Its read of C.local follows the init and update stores of C.local under
  // the same thread: SerialMultipleReadWrite. The output itself is written
  // once (NoReuse).
  int serial_reads = 0, unreused_writes = 0;
  for (int s = 0; s < fc::kMaxBufferSlots; ++s) {
    serial_reads += out[fc::BufferColumn(s, fc::kAccRead)] == 1.0f &&
                    out[fc::BufferColumn(s, fc::kReuseSerialMultipleReadWrite)] == 1.0f;
    unreused_writes += out[fc::BufferColumn(s, fc::kAccWrite)] == 1.0f &&
                       out[fc::BufferColumn(s, fc::kReuseNone)] == 1.0f;
  }
  EXPECT_EQ(serial_reads, 1) << testing::DescribeRow(out);
  EXPECT_EQ(unreused_writes, 1) << testing::DescribeRow(out);
}

// Unscheduled softmax: the row max, exp and row sum are root intermediates,
// allocated once outside every loop.
TEST(StatementFeatures, RootIntermediatesGetTopLevelAllocations) {
  auto dag = testing::Share(Softmax(8, 40));
  ASSERT_NE(dag, nullptr);
  const DeviceProfile cpu = testing::TestCpu();
  absl::StatusOr<Program> program = Lower(State::Initial(dag), cpu);
  ASSERT_TRUE(program.ok()) << program.status();
  const ProgramFeatures features = ExtractStatementFeatures(*program, cpu);
  SCOPED_TRACE(program->ToString());
  int intermediates = 0;
  for (const Buffer& b : program->buffers) {
    if (b.role == BufferRole::kInput) continue;
    const StatementFeatures r = testing::RowOfBuffer(*program, features, b.name);
    if (b.role == BufferRole::kOutput) {
      EXPECT_EQ(r[fc::kAllocSize], 0.0f) << b.name;
      continue;
    }
    ++intermediates;
    EXPECT_FLOAT_EQ(r[fc::kAllocSize], SlogOf(static_cast<double>(b.bytes()))) << b.name;
    EXPECT_FLOAT_EQ(r[fc::kAllocOuterProd], SlogOf(1)) << b.name;
    EXPECT_FLOAT_EQ(r[fc::kAllocProd], SlogOf(static_cast<double>(b.num_elements()))) << b.name;
    // Inner product: the loops around the buffer's last store.
    EXPECT_EQ(r[fc::kAllocInnerProd], r[fc::kOuterProd]) << b.name;
  }
  EXPECT_EQ(intermediates, 3);
  EXPECT_EQ(features.size(), 4u);
}

// matmul 10x8x4 with i split by 4: the third i.0 iteration is guarded
// (i.0*4 + i.1 < 10). The guard's comparison is not an op of the store.
TEST(StatementFeatures, GuardConditionsAreNotCounted) {
  const Lowered l = LowerText("matmul:M=10,K=8,N=4", "SP 2 0 10 [4]", testing::TestCpu());
  ASSERT_EQ(l.features.size(), 1u);
  ASSERT_EQ(testing::CountStmts(l.program, StmtKind::kIfThenElse), 2);  // init and update
  const StatementFeatures& r = l.features[0];
  SCOPED_TRACE(l.program.ToString() + testing::DescribeRow(r));
  // 3 x 4 rows (12, two of them guarded out) x 4 x 8.
  EXPECT_FLOAT_EQ(r[fc::kOuterProd], SlogOf(12 * 4 * 8));
  EXPECT_FLOAT_EQ(r[fc::kFloatAddSub], SlogOf(12 * 4 * 8));
  EXPECT_EQ(r[fc::kIntCmp], 0.0f);
  EXPECT_EQ(r[fc::kBoolOp], 0.0f);
  // The reads' (i.0*4 + i.1) indices: one add and one mul each for A and C.
  EXPECT_FLOAT_EQ(r[fc::kIntAddSub], SlogOf(2 * 12 * 4 * 8));
}

TEST(StatementFeatures, LoweringErrorsComeBack) {
  auto dag = testing::Share(Matmul(16, 16, 16));
  ASSERT_NE(dag, nullptr);
  absl::StatusOr<State> state = testing::ReplayText(dag, "AN 2 0 threadIdx.x");
  ASSERT_TRUE(state.ok()) << state.status();
  const absl::StatusOr<ProgramFeatures> features = ExtractStateFeatures(*state, testing::TestCpu());
  ASSERT_FALSE(features.ok());
  EXPECT_EQ(features.status(), Lower(*state, testing::TestCpu()).status());
  // The same state is fine where threads exist.
  EXPECT_TRUE(ExtractStateFeatures(*state, testing::TestGpu()).ok());
}

}  // namespace
}  // namespace pruner
