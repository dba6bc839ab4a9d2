// AutoTVM's loop-variable and curve features (autotvm_features.h) on nests
// whose touch patterns are computed by hand from TVM's rules
// (../shared/specs/autotvm.md §3.2-§3.3).
#include "common/features/autotvm_features.h"

#include <cmath>
#include <string>

#include "common/ir/ops.h"
#include "common/lower/lower.h"
#include "gtest/gtest.h"
#include "tests/lower/lower_test_util.h"

namespace pruner {
namespace {

const AutotvmTouch& TouchOf(const AutotvmItervar& row, const std::string& key) {
  static const AutotvmTouch kNone{-99, -99, -99, -99, -99};
  auto it = row.touches.find(key);
  EXPECT_NE(it, row.touches.end()) << "no access " << key;
  return it == row.touches.end() ? kNone : it->second;
}

// The key prefix of buffer `id` ("<name>_").
std::string Key(const Program& p, int id, int k) { return p.buffer(id).name + "_" + std::to_string(k); }

// C[i, j] = sum_k A[i, k] * B[k, j], unscheduled:
//   for i (64): for j (16): { C[i,j] = 0; for k (32): C[i,j] = C[i,j] + A[i,k] * B[k,j] }
// Accesses in order: C_0 (init), C_1 (update store), C_2 (its read), A_0, B_0.
TEST(AutotvmFeaturesTest, NaiveMatmulTouchPatternsMatchHandComputedValues) {
  auto dag = testing::Share(Matmul(64, 32, 16));
  ASSERT_NE(dag, nullptr);
  absl::StatusOr<Program> program = Lower(State::Initial(dag), testing::TestCpu());
  ASSERT_TRUE(program.ok()) << program.status();
  SCOPED_TRACE(program->ToString());
  const std::vector<AutotvmItervar> rows = ExtractAutotvmItervars(*program);
  ASSERT_EQ(rows.size(), 3u);
  const AutotvmItervar &i = rows[0], &j = rows[1], &k = rows[2];
  EXPECT_EQ(i.length, 64);
  EXPECT_EQ(j.length, 16);
  EXPECT_EQ(k.length, 32);
  EXPECT_EQ(i.nest_level, 1);
  EXPECT_EQ(k.nest_level, 3);
  EXPECT_DOUBLE_EQ(i.topdown, 64);
  EXPECT_DOUBLE_EQ(j.topdown, 1024);
  EXPECT_DOUBLE_EQ(k.topdown, 32768);
  EXPECT_EQ(k.float_addsub, 1);
  EXPECT_EQ(k.float_mul, 1);
  EXPECT_EQ(j.float_addsub + j.float_mul, 0);
  EXPECT_EQ(i.annotation, AutotvmAnnotation::kSerial);

  const int c = program->outputs[0], a = program->inputs[0], b = program->inputs[1];
  const std::string C0 = Key(*program, c, 0), C1 = Key(*program, c, 1), C2 = Key(*program, c, 2);
  const std::string A0 = Key(*program, a, 0), B0 = Key(*program, b, 0);
  EXPECT_EQ(i.touches.size(), 5u);
  EXPECT_EQ(k.touches.size(), 4u);  // the init store is not under k

  // Strides of the row-major flattened indices: C [64,16], A [64,32], B [32,16].
  EXPECT_EQ(TouchOf(i, C1).stride, 16);
  EXPECT_EQ(TouchOf(i, A0).stride, 32);
  EXPECT_EQ(TouchOf(i, B0).stride, 0);
  EXPECT_EQ(TouchOf(j, A0).stride, 0);
  EXPECT_EQ(TouchOf(k, B0).stride, 16);
  EXPECT_EQ(TouchOf(k, C2).stride, 0);

  // k: A and B move (count 32), C stays (reuse 32).
  EXPECT_EQ(TouchOf(k, A0).count, 32);
  EXPECT_EQ(TouchOf(k, B0).count, 32);
  EXPECT_EQ(TouchOf(k, C1).count, 1);
  EXPECT_EQ(TouchOf(k, C1).reuse, 32);
  EXPECT_EQ(k.bottomup, 32);
  // j: C and B move, A is reused across j.
  EXPECT_EQ(TouchOf(j, C0).count, 16);
  EXPECT_EQ(TouchOf(j, C1).count, 16);
  EXPECT_EQ(TouchOf(j, C1).reuse, 32);
  EXPECT_EQ(TouchOf(j, A0).count, 32);
  EXPECT_EQ(TouchOf(j, A0).reuse, 16);
  EXPECT_EQ(TouchOf(j, B0).count, 512);
  EXPECT_EQ(j.bottomup, 512);
  // i: everything but B moves; every update access is touched M*N*K times.
  EXPECT_EQ(TouchOf(i, C0).count, 1024);
  EXPECT_EQ(TouchOf(i, A0).count, 2048);
  EXPECT_EQ(TouchOf(i, A0).reuse, 16);
  EXPECT_EQ(TouchOf(i, B0).count, 512);
  EXPECT_EQ(TouchOf(i, B0).reuse, 64);
  EXPECT_EQ(i.bottomup, 64.0 * 16 * 32);
  // No parallel level: no thread bases.
  EXPECT_EQ(TouchOf(i, A0).thread_count, 0);

  // The fixed-width vector: row 0 is i's, log-transformed.
  const std::vector<float> f = AutotvmItervarFeatures(*program);
  ASSERT_EQ(static_cast<int>(f.size()), kAutotvmItervarWidth);
  EXPECT_FLOAT_EQ(f[0], std::log2(65.0));
  EXPECT_FLOAT_EQ(f[1], 1);
  EXPECT_FLOAT_EQ(f[4 + static_cast<int>(AutotvmAnnotation::kSerial)], 1);
  EXPECT_FLOAT_EQ(f[kAutotvmItervarRowWidth + 1], 2);  // j's nest level
  EXPECT_FLOAT_EQ(f[3 * kAutotvmItervarRowWidth], 0);   // no fourth loop
  EXPECT_FLOAT_EQ(AutotvmLog(-1), -1);

  // Curves: A, B and C are touched at the deepest level (C by its last key,
  // C_2). A along i, j, k: counts 2048, 32, 32 -> log2 sorted with a
  // leading 0: [0, 5, 5, 11]; reuses 16, 16, 1 -> [0, 0, 4, 4].
  const std::vector<float> curve = AutotvmCurveFeatures(*program);
  ASSERT_EQ(static_cast<int>(curve.size()), kAutotvmCurveWidth);
  // Buffers sorted by name; the test's matmul names them A, B, C.
  ASSERT_EQ(program->buffer(a).name, "A");
  // reuse-vs-count at x = 0, 5, 7, 19: the last point with count <= x.
  EXPECT_FLOAT_EQ(curve[0], 0);      // y at x=0
  EXPECT_FLOAT_EQ(curve[10], 4);     // y at x=5 (third point, reuse 4)
  EXPECT_FLOAT_EQ(curve[11], 0);     // x - 5
  EXPECT_FLOAT_EQ(curve[14], 4);     // y at x=7
  EXPECT_FLOAT_EQ(curve[15], 2);     // 7 - 5
  EXPECT_FLOAT_EQ(curve[39], 8);     // 19 - 11
  // Three buffers: the fourth slot stays zero.
  for (int x = 3 * kAutotvmCurvePerBuffer; x < 4 * kAutotvmCurvePerBuffer; ++x) {
    ASSERT_EQ(curve[x], 0) << x;
  }
}

// parallel i (4) { j (8) { C[i*8 + j] = A[j] } }: j's counts become the
// base of the parallel loop, whose thread count and reuse are its own over
// that base.
TEST(AutotvmFeaturesTest, ParallelLoopsKeepTheInnerLoopsAsTheirBase) {
  Program p;
  p.buffers.resize(2);
  p.buffers[0].id = 0;
  p.buffers[0].name = "C";
  p.buffers[0].shape = {32};
  p.buffers[1].id = 1;
  p.buffers[1].name = "A";
  p.buffers[1].shape = {8};
  p.var_names = {"i", "j"};
  const Expr i = Var(0, "i"), j = Var(1, "j");
  Stmt store = MakeStore(0, {Binary(BinaryOp::kAdd, Binary(BinaryOp::kMul, i, IntImm(8)), j)},
                         Read(1, "A", DType::kFloat32, {j}), StoreRole::kCompute, 0);
  Kernel kernel;
  kernel.body = MakeFor(0, "i", 4, ForKind::kParallel, MakeFor(1, "j", 8, ForKind::kSerial, store));
  p.kernels.push_back(kernel);

  const std::vector<AutotvmItervar> rows = ExtractAutotvmItervars(p);
  ASSERT_EQ(rows.size(), 2u);
  EXPECT_EQ(rows[0].annotation, AutotvmAnnotation::kParallel);
  const AutotvmTouch &ci = TouchOf(rows[0], "C_0"), &ai = TouchOf(rows[0], "A_0");
  EXPECT_EQ(ci.stride, 8);
  EXPECT_EQ(ci.count, 32);
  EXPECT_EQ(ci.reuse, 1);
  EXPECT_EQ(ci.thread_count, 32.0 / 8);
  EXPECT_EQ(ci.thread_reuse, 1);
  EXPECT_EQ(ai.stride, 0);
  EXPECT_EQ(ai.count, 8);
  EXPECT_EQ(ai.reuse, 4);
  EXPECT_EQ(ai.thread_count, 1);
  EXPECT_EQ(ai.thread_reuse, 4);
  EXPECT_EQ(TouchOf(rows[1], "C_0").thread_count, 0);  // j closes no level
}

}  // namespace
}  // namespace pruner
