// The column layout, and the exact features of an unscheduled matmul
// computed by hand from TVM's definitions (../shared/specs/ansor.md §5.4).
#include <cmath>
#include <set>
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

TEST(StatementFeatureNames, AreUniqueAndFollowTheHeaderLayout) {
  const std::vector<std::string>& names = StatementFeatureNames();
  ASSERT_EQ(names.size(), kNumStatementFeatures);
  EXPECT_EQ(std::set<std::string>(names.begin(), names.end()).size(), names.size());
  // Group starts named in statement_features.h.
  EXPECT_EQ(names[0], "float_mad");
  EXPECT_EQ(names[fc::kFloatAddSub], "float_addsub");
  EXPECT_EQ(names[fc::kIntMathFunc], "int_mathfunc");
  EXPECT_EQ(names[fc::kVecBlock], "vec_num");
  EXPECT_EQ(names[fc::kVecBlock + fc::kAnnPosMixed], "vec_type.kPosMixed");
  EXPECT_EQ(names[fc::kParallelBlock + fc::kAnnLen], "parallel_len");
  EXPECT_EQ(names[fc::kIsGpu], "is_gpu");
  EXPECT_EQ(names[56], "vthread_len");
  EXPECT_EQ(names[57], "B0.acc_type.kRead");
  EXPECT_EQ(names[fc::BufferColumn(1, fc::kBytes)], "B1.bytes");
  EXPECT_EQ(names[146], "B4.stride");
  EXPECT_EQ(names[147], "arith_intensity_curve_0");
  EXPECT_EQ(names[156], "arith_intensity_curve_9");
  EXPECT_EQ(names[157], "alloc_size");
  EXPECT_EQ(names[160], "alloc_inner_prod");
  EXPECT_EQ(names[161], "outer_prod");
  EXPECT_EQ(names[163], "auto_unroll_max_step");
}

// C[i, j] = sum_k A[i, k] * B[k, j] with no schedule steps lowers to
//   for i: for j: { C[i,j] = 0; for k: C[i,j] = C[i,j] + A[i,k] * B[k,j] }
// The init and update stores share C's row; the update (visited last) wins.
TEST(StatementFeatures, NaiveCpuMatmulMatchesHandComputedValues) {
  constexpr double M = 64, K = 32, N = 16;
  auto dag = testing::Share(Matmul(64, 32, 16));
  ASSERT_NE(dag, nullptr);
  const DeviceProfile cpu = testing::TestCpu();  // 64-byte cache lines
  absl::StatusOr<Program> program = Lower(State::Initial(dag), cpu);
  ASSERT_TRUE(program.ok()) << program.status();
  const ProgramFeatures features = ExtractStatementFeatures(*program, cpu);
  ASSERT_EQ(features.size(), 1u) << program->ToString();
  const StatementFeatures& r = features[0];
  SCOPED_TRACE(program->ToString() + testing::DescribeRow(r));

  // Group 1: one add and one mul per innermost iteration, M*N*K of them;
  // the indices A[i, k], B[k, j] need no integer arithmetic.
  EXPECT_FLOAT_EQ(r[fc::kFloatAddSub], SlogOf(M * N * K));
  EXPECT_FLOAT_EQ(r[fc::kFloatMul], SlogOf(M * N * K));
  for (int c : {fc::kFloatMad, fc::kFloatDivMod, fc::kFloatCmp, fc::kFloatMathFunc, fc::kIntAddSub,
                fc::kIntMul, fc::kIntDivMod, fc::kSelectOp, fc::kBoolOp}) {
    EXPECT_EQ(r[c], 0.0f) << StatementFeatureNames()[c];
  }
  for (int block : {fc::kVecBlock, fc::kUnrollBlock, fc::kParallelBlock}) {
    EXPECT_EQ(r[block + fc::kAnnNum], 0.0f);
    EXPECT_EQ(r[block + fc::kAnnProd], 0.0f);
    EXPECT_EQ(r[block + fc::kAnnLen], 0.0f);
    EXPECT_EQ(r[block + fc::kAnnPosNone], 1.0f);
    EXPECT_EQ(r[block + fc::kAnnPosMixed], 0.0f);
  }
  EXPECT_EQ(r[fc::kIsGpu], 0.0f);
  for (int c = fc::kBlockIdxXLen; c <= fc::kVThreadLen; ++c) EXPECT_EQ(r[c], 1.0f);  // slog(1)

  // Group 2. Touched elements per loop level (k; j and k; everything):
  //   C: 1, N, M*N    A: K, K, M*K    B: K, K*N, K*N
  // Loop j also holds the init store's region of C (N elements).
  // Sorted by reuse distance in bytes: C (12), A (4 + 8K), B (8N + 4K + 4KN).
  const double bytes = M * N * K * 4;
  {  // Slot 0: C, read and written; the k loop re-reads it (reuse_ct K),
     // one element of each of the three accesses apart.
    auto c = [](int field) { return fc::BufferColumn(0, field); };
    EXPECT_EQ(r[c(fc::kAccReadWrite)], 1.0f);
    EXPECT_EQ(r[c(fc::kAccRead)] + r[c(fc::kAccWrite)], 0.0f);
    EXPECT_FLOAT_EQ(r[c(fc::kBytes)], SlogOf(bytes));
    EXPECT_FLOAT_EQ(r[c(fc::kUniqueBytes)], SlogOf(M * N * 4));
    // k does not move C: its stride shows up only at j (1 element), so
    // lines = (M*N*K / K) * (4 / 64) and the reported stride is 0.
    EXPECT_FLOAT_EQ(r[c(fc::kLines)], SlogOf(M * N / 16));
    EXPECT_FLOAT_EQ(r[c(fc::kUniqueLines)], SlogOf(M * N * 4 / 64));
    EXPECT_EQ(r[c(fc::kReuseLoopMultipleRead)], 1.0f);
    EXPECT_FLOAT_EQ(r[c(fc::kReuseDisIter)], SlogOf(1));
    EXPECT_FLOAT_EQ(r[c(fc::kReuseDisBytes)], SlogOf(12));
    EXPECT_FLOAT_EQ(r[c(fc::kReuseCt)], SlogOf(K));
    EXPECT_FLOAT_EQ(r[c(fc::kBytesDReuseCt)], SlogOf(bytes / K));
    EXPECT_FLOAT_EQ(r[c(fc::kUniqueBytesDReuseCt)], SlogOf(M * N * 4 / K));
    EXPECT_FLOAT_EQ(r[c(fc::kLinesDReuseCt)], SlogOf(M * N / 16 / K));
    EXPECT_EQ(r[c(fc::kStride)], 0.0f);
  }
  {  // Slot 1: A[i, k], re-read across the j loop (LoopMultipleRead, N times).
    auto c = [](int field) { return fc::BufferColumn(1, field); };
    EXPECT_EQ(r[c(fc::kAccRead)], 1.0f);
    EXPECT_FLOAT_EQ(r[c(fc::kBytes)], SlogOf(bytes));
    EXPECT_FLOAT_EQ(r[c(fc::kUniqueBytes)], SlogOf(M * K * 4));
    EXPECT_FLOAT_EQ(r[c(fc::kLines)], SlogOf(M * N * K / 16));
    EXPECT_FLOAT_EQ(r[c(fc::kUniqueLines)], SlogOf(M * K * 4 / 64));
    EXPECT_EQ(r[c(fc::kReuseLoopMultipleRead)], 1.0f);
    EXPECT_FLOAT_EQ(r[c(fc::kReuseDisIter)], SlogOf(K));
    EXPECT_FLOAT_EQ(r[c(fc::kReuseDisBytes)], SlogOf((1 + 2 * K) * 4));
    EXPECT_FLOAT_EQ(r[c(fc::kReuseCt)], SlogOf(N));
    EXPECT_FLOAT_EQ(r[c(fc::kStride)], SlogOf(1));
  }
  {  // Slot 2: B[k, j], re-read across the i loop; k walks its rows.
    auto c = [](int field) { return fc::BufferColumn(2, field); };
    EXPECT_EQ(r[c(fc::kAccRead)], 1.0f);
    EXPECT_FLOAT_EQ(r[c(fc::kUniqueBytes)], SlogOf(K * N * 4));
    EXPECT_FLOAT_EQ(r[c(fc::kLines)], SlogOf(M * N * K * (N * 4 / 64)));
    EXPECT_FLOAT_EQ(r[c(fc::kUniqueLines)], SlogOf(K * N * 4 / 64));
    EXPECT_EQ(r[c(fc::kReuseLoopMultipleRead)], 1.0f);
    EXPECT_FLOAT_EQ(r[c(fc::kReuseDisIter)], SlogOf(K * N));
    EXPECT_FLOAT_EQ(r[c(fc::kReuseDisBytes)], SlogOf((N + N + K + K * N) * 4));
    EXPECT_FLOAT_EQ(r[c(fc::kReuseCt)], SlogOf(M));
    EXPECT_FLOAT_EQ(r[c(fc::kStride)], SlogOf(N));
  }
  for (int slot = 3; slot < fc::kMaxBufferSlots; ++slot) {
    for (int f = 0; f < fc::kBufferSlotWidth; ++f) EXPECT_EQ(r[fc::BufferColumn(slot, f)], 0.0f);
  }

  // Group 3: log2(2 flops x loops) over log2(bytes), per level:
  //   k: log2(2K) = 6 over log2(4 + 8K) = log2(260)
  //   j: log2(2KN) = 10, i: log2(2KNM) = 16 over log2(4(MN + MK + KN)).
  // Point 0 (x = 1.6) lies before level k: the first ratio. Point 9 is the
  // last level's ratio.
  EXPECT_FLOAT_EQ(r[fc::kArithCurveOffset], 6 / std::log2(260.0));
  EXPECT_FLOAT_EQ(r[fc::kArithCurveOffset + 9], 16 / std::log2(4 * (M * N + M * K + K * N)));
  // Point 4 (x = 8) interpolates between levels k (6) and j (10).
  const double rk = 6 / std::log2(260.0);
  const double rj = 10 / std::log2(4 * (N + K + K * N));
  EXPECT_NEAR(r[fc::kArithCurveOffset + 4], rk + (rj - rk) * (8 - 6) / (10 - 6), 1e-5);

  // Group 4: C is a workload output, never allocated.
  for (int c = fc::kAllocOffset; c < fc::kOuterScopeOffset; ++c) EXPECT_EQ(r[c], 0.0f);
  // Group 5.
  EXPECT_FLOAT_EQ(r[fc::kOuterProd], SlogOf(M * N * K));
  EXPECT_FLOAT_EQ(r[fc::kNumLoops], SlogOf(3));
  EXPECT_EQ(r[fc::kAutoUnrollMaxStep], 0.0f);
}

}  // namespace
}  // namespace pruner
