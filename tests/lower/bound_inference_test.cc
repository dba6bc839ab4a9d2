// Bound inference: region extents, region minimums, scope-dependent thread
// relaxation, extent tightening, and the conservative fallbacks.
#include <memory>
#include <string>

#include "common/ir/ops.h"
#include "common/lower/bound_inference.h"
#include "common/lower/index_simplify.h"
#include "gtest/gtest.h"
#include "tests/lower/lower_test_util.h"

namespace pruner {
namespace {

using testing::GpuMatmulSteps;
using testing::LowerAndCheck;
using testing::ReplayText;
using testing::Share;
using testing::TestCpu;

std::vector<int64_t> LoopExtents(const Stage& s) {
  std::vector<int64_t> out;
  for (size_t i = 0; i < s.iters.size(); ++i) out.push_back(s.iter_extent(static_cast<int>(i)));
  return out;
}

std::vector<int64_t> RootExtents(const Stage& s) {
  std::vector<int64_t> out;
  for (int i = 0; i < s.num_root_nodes(); ++i) out.push_back(s.nodes[i].extent);
  return out;
}

TEST(BoundInference, CacheWriteStageComputesOneTileAndItsLoopsShrink) {
  // C.local tiled SSRSRS with i: 64 = 2 x 4 x 2 (x outer), computed at C's
  // second tile level: its region is one 8 x 8 tile, so the tile loops above
  // that level shrink to 1 (TVM's PassDownDomain tightening).
  auto dag = Share(Matmul(64, 64, 64));
  absl::StatusOr<State> s = ReplayText(
      dag,
      "CHW 2 local; SP 2 0 64 [2,4,2]; SP 2 4 64 [2,2,4]; SP 2 8 64 [8]; "
      "RE 2 [0,4,1,5,8,2,6,9,3,7]; FSP 3 0 1 2; FSP 3 3 2 2; RE 3 [0,3,1,4,2,5]; CA 2 3 3");
  ASSERT_TRUE(s.ok()) << s.status();
  absl::StatusOr<State> bound = InferBound(*s);
  ASSERT_TRUE(bound.ok()) << bound.status();
  EXPECT_EQ(RootExtents(bound->stage(2)), (std::vector<int64_t>{8, 8, 64}));
  // i.0 j.0 i.1 j.1 k.0 i.2 j.2 k.1 i.3 j.3
  EXPECT_EQ(LoopExtents(bound->stage(2)), (std::vector<int64_t>{1, 1, 1, 1, 8, 4, 2, 8, 2, 4}));
  // The consumer is a root stage: unchanged.
  EXPECT_EQ(LoopExtents(bound->stage(3)), LoopExtents(s->stage(3)));

  absl::StatusOr<BoundResult> detail = InferBoundDetailed(*s);
  ASSERT_TRUE(detail.ok()) << detail.status();
  const StageRegion& r = detail->regions[2];
  EXPECT_TRUE(r.attached);
  EXPECT_EQ(r.attach_stage, 3);
  EXPECT_EQ(r.attach_iter, 3);
  EXPECT_EQ(r.scope, MemScope::kLocal);
  EXPECT_EQ(ToString(r.min[0]), "((matmul.i.0 * 16) + (matmul.i.1 * 8))");
  EXPECT_EQ(ToString(r.min[1]), "((matmul.j.0 * 16) + (matmul.j.1 * 8))");
  EXPECT_EQ(ToString(r.min[2]), "0");
  EXPECT_EQ(r.exact, (std::vector<bool>{true, true}));
  EXPECT_EQ(r.may_overshoot, (std::vector<bool>{false, false}));
  EXPECT_EQ(r.enclosing_loops.size(), 4u);
}

TEST(BoundInference, SharedStagesRelaxThreadsAndLocalStagesDoNot) {
  auto dag = Share(Matmul(64, 32, 64));
  absl::StatusOr<State> s = ReplayText(
      dag, GpuMatmulSteps(64, 32, 64, "[2,4,2,2]", "[2,8,1,2]", "[4,2]", 2));
  ASSERT_TRUE(s.ok()) << s.status();
  absl::StatusOr<BoundResult> r = InferBoundDetailed(*s);
  ASSERT_TRUE(r.ok()) << r.status();
  // Stages: A, A.shared, B, B.shared, matmul.local, matmul.
  const StageRegion& a_shared = r->regions[1];
  EXPECT_EQ(a_shared.scope, MemScope::kShared);
  // The block's 32 rows (2 vthreads x 4 threads x 2 x 2) by one k.0 slice.
  EXPECT_EQ(a_shared.extent, (std::vector<int64_t>{32, 8}));
  EXPECT_EQ(ToString(a_shared.min[0]), "(floordiv(i.0@j.0@, 2) * 32)");
  EXPECT_EQ(ToString(a_shared.min[1]), "(k.0 * 8)");
  const StageRegion& local = r->regions[4];
  EXPECT_EQ(local.scope, MemScope::kLocal);
  EXPECT_EQ(local.extent, (std::vector<int64_t>{4, 2, 32}));
  // The local tile's origin depends on the vthread and the thread.
  EXPECT_NE(ToString(local.min[0]).find("i.2@j.2@"), std::string::npos);
  EXPECT_NE(ToString(local.min[0]).find("i.1@j.1@"), std::string::npos);
  // The cooperative fetch keeps its thread-bound extent (no tightening).
  EXPECT_EQ(r->state.stage(1).iter_extent(1), 32);
}

// P[x] = A[x] for x < 64 and a consumer C[i, j] (8 x 8) whose read of P is
// given; P is computed at C's i loop.
std::shared_ptr<const ComputeDag> ProducerConsumer(const std::function<Expr(Expr, Expr)>& read) {
  auto a = std::make_shared<Op>();
  a->id = 0;
  a->name = "A";
  a->shape = {64};
  auto p = std::make_shared<Op>();
  p->id = 1;
  p->name = "P";
  p->kind = OpKind::kCompute;
  p->shape = {64};
  p->axes = {{"x", 64}};
  p->body = Add(Read(0, "A", DType::kFloat32, {Var(0, "x")}), FloatImm(1.0));
  auto c = std::make_shared<Op>();
  c->id = 2;
  c->name = "C";
  c->kind = OpKind::kCompute;
  c->shape = {8, 8};
  c->axes = {{"i", 8}, {"j", 8}};
  c->body = read(Var(0, "i"), Var(1, "j"));
  return Share(ComputeDag::Create({a, p, c}));
}

Expr ReadP(Expr index) { return Read(1, "P", DType::kFloat32, {std::move(index)}); }

TEST(BoundInference, AffineReadsGiveExactRegions) {
  // C[i, j] = P[8 i + j] + P[8 i + j + 1]: for fixed i, P[8i .. 8i + 8].
  auto dag = ProducerConsumer([](Expr i, Expr j) {
    Expr x = Add(Mul(i, IntImm(8)), j);
    return Add(ReadP(x), ReadP(Min(Add(x, IntImm(1)), IntImm(63))));
  });
  absl::StatusOr<State> s = ReplayText(dag, "CA 1 2 0");
  ASSERT_TRUE(s.ok()) << s.status();
  absl::StatusOr<BoundResult> r = InferBoundDetailed(*s);
  ASSERT_TRUE(r.ok()) << r.status();
  // min(8i + j + 1, 63) mixes the fixed i with the relaxed j non-linearly:
  // that read alone would fall back; the union with it is the full domain.
  EXPECT_EQ(r->regions[1].extent[0], 64);
  EXPECT_FALSE(r->regions[1].exact[0]);
  EXPECT_TRUE(LowerAndCheck(dag, "CA 1 2 0", TestCpu()).ok());

  auto affine = ProducerConsumer([](Expr i, Expr j) {
    Expr x = Add(Mul(i, IntImm(8)), j);
    return Add(ReadP(x), ReadP(Add(Mul(i, IntImm(8)), FloorMod(Add(j, IntImm(1)), IntImm(8)))));
  });
  s = ReplayText(affine, "CA 1 2 0");
  ASSERT_TRUE(s.ok()) << s.status();
  r = InferBoundDetailed(*s);
  ASSERT_TRUE(r.ok()) << r.status();
  EXPECT_EQ(r->regions[1].extent[0], 8);
  EXPECT_TRUE(r->regions[1].exact[0]);
  EXPECT_EQ(ToString(r->regions[1].min[0]), "(i * 8)");
  EXPECT_TRUE(LowerAndCheck(affine, "CA 1 2 0", TestCpu()).ok());
}

TEST(BoundInference, NonAffineOrMismatchedBasesFallBackToTheFullExtent) {
  // P[i * j]: a product of the fixed i and the relaxed j.
  auto product = ProducerConsumer([](Expr i, Expr j) { return ReadP(Mul(i, j)); });
  absl::StatusOr<State> s = ReplayText(product, "CA 1 2 0");
  ASSERT_TRUE(s.ok()) << s.status();
  absl::StatusOr<BoundResult> r = InferBoundDetailed(*s);
  ASSERT_TRUE(r.ok()) << r.status();
  EXPECT_EQ(r->regions[1].extent[0], 64);
  EXPECT_FALSE(r->regions[1].exact[0]);
  absl::StatusOr<Program> p = LowerAndCheck(product, "CA 1 2 0", TestCpu());
  EXPECT_TRUE(p.ok()) << p.status();

  // P[i] + P[j]: one read's base is i, the other's is constant.
  auto mixed = ProducerConsumer([](Expr i, Expr j) { return Add(ReadP(i), ReadP(j)); });
  s = ReplayText(mixed, "CA 1 2 0");
  ASSERT_TRUE(s.ok()) << s.status();
  r = InferBoundDetailed(*s);
  ASSERT_TRUE(r.ok()) << r.status();
  EXPECT_EQ(r->regions[1].extent[0], 64);
  EXPECT_FALSE(r->regions[1].exact[0]);
  p = LowerAndCheck(mixed, "CA 1 2 0", TestCpu());
  EXPECT_TRUE(p.ok()) << p.status();
}

TEST(BoundInference, ConstantRegionsAreClampedToTheDomain) {
  // C[i, j] = P[j + 60] reads P[60 .. 67] for any i; only 60..63 exist
  // (the rest would be guarded in C; the test never reads them: j < 4).
  auto dag = ProducerConsumer([](Expr i, Expr j) {
    return Select(Compare(CompareOp::kLT, j, IntImm(4)), ReadP(Add(j, IntImm(60))),
                  FloatImm(0.0));
  });
  absl::StatusOr<State> s = ReplayText(dag, "CA 1 2 0");
  ASSERT_TRUE(s.ok()) << s.status();
  absl::StatusOr<BoundResult> r = InferBoundDetailed(*s);
  ASSERT_TRUE(r.ok()) << r.status();
  EXPECT_EQ(r->regions[1].extent[0], 4);
  EXPECT_EQ(ToString(r->regions[1].min[0]), "60");
  EXPECT_TRUE(LowerAndCheck(dag, "CA 1 2 0", TestCpu()).ok());
}

TEST(BoundInference, RejectsUnchosenSplitLengths) {
  auto dag = Share(Matmul(16, 16, 16));
  absl::StatusOr<State> s = ReplayText(dag, "SP 2 0 16 [?]");
  ASSERT_TRUE(s.ok()) << s.status();
  EXPECT_EQ(InferBound(*s).status().code(), absl::StatusCode::kInvalidArgument);
}

TEST(IndexSimplify, CancelsEqualAtomsAndSplitsDivisions) {
  Expr a = Var(0, "a"), b = Var(1, "b"), i = Var(2, "i");
  Expr fa = FloorDiv(a, IntImm(4));
  EXPECT_EQ(ToString(SimplifyIndex(Sub(Add(Add(fa, b), i), Add(fa, b)))), "i");
  const VarRangeFn ranges = [](int v) -> std::optional<IntRange> {
    if (v == 2) return IntRange{0, 7};
    if (v == 3) return IntRange{0, 0};
    return std::nullopt;
  };
  Expr x = Add(Mul(a, IntImm(8)), i);
  EXPECT_EQ(ToString(SimplifyIndex(FloorDiv(x, IntImm(8)), ranges)), "a");
  EXPECT_EQ(ToString(SimplifyIndex(FloorMod(x, IntImm(8)), ranges)), "i");
  EXPECT_EQ(ToString(SimplifyIndex(Add(Mul(Var(3, "one"), IntImm(5)), i), ranges)), "i");
  // Without a range for i, floordiv keeps its atom.
  EXPECT_EQ(ToString(SimplifyIndex(FloorDiv(x, IntImm(8)))), "(a + floordiv(i, 8))");
}

TEST(IndexSimplify, BoundsAndProofs) {
  const VarRangeFn ranges = [](int v) -> std::optional<IntRange> { return IntRange{0, 3}; };
  Expr i = Var(0, "i"), j = Var(1, "j");
  std::optional<IntRange> r = BoundExpr(Add(Mul(i, IntImm(4)), j), ranges);
  ASSERT_TRUE(r.has_value());
  EXPECT_EQ(r->min, 0);
  EXPECT_EQ(r->max, 15);
  EXPECT_TRUE(ProveTrue(Compare(CompareOp::kLT, Add(Mul(i, IntImm(4)), j), IntImm(16)), ranges));
  EXPECT_FALSE(ProveTrue(Compare(CompareOp::kLT, Add(Mul(i, IntImm(4)), j), IntImm(15)), ranges));
  EXPECT_EQ(ToString(SimplifyExpr(Compare(CompareOp::kGE, Add(i, j), IntImm(0)), ranges)), "true");
}

}  // namespace
}  // namespace pruner
