// The building blocks of the statement features: interval bounds of index
// expressions, the grouping and linearization of a store's accesses, and
// the arithmetic-intensity curve.
#include <cmath>
#include <vector>

#include "common/features/feature_columns.h"
#include "common/features/feature_math.h"
#include "common/features/intensity_curve.h"
#include "common/features/store_accesses.h"
#include "common/features/touch_regions.h"
#include "common/ir/expr.h"
#include "gtest/gtest.h"

namespace pruner {
namespace {

Expr V(int id) { return Var(id, "v" + std::to_string(id)); }
Expr C(int64_t v) { return IntImm(v); }

TEST(EvalInterval, AffineAndDivisionBounds) {
  // v0 in [0, 7], v1 in [0, 3].
  const std::vector<Interval> ranges = {{0, 7}, {0, 3}};
  const Interval a = EvalInterval(*Add(Mul(V(0), C(4)), V(1)), ranges);
  EXPECT_EQ(a.lo, 0);
  EXPECT_EQ(a.hi, 31);
  const Interval d = EvalInterval(*FloorDiv(Add(Mul(V(0), C(4)), V(1)), C(8)), ranges);
  EXPECT_EQ(d.lo, 0);
  EXPECT_EQ(d.hi, 3);
  // Inside one period floormod is exact; across periods it is [0, c - 1].
  EXPECT_EQ(EvalInterval(*FloorMod(V(1), C(8)), ranges).hi, 3);
  const Interval m = EvalInterval(*FloorMod(Add(Mul(V(0), C(4)), V(1)), C(8)), ranges);
  EXPECT_EQ(m.lo, 0);
  EXPECT_EQ(m.hi, 7);
  const Interval s = EvalInterval(*Sub(C(10), V(0)), ranges);
  EXPECT_EQ(s.lo, 3);
  EXPECT_EQ(s.hi, 10);
  // Variables without a range are pinned at 0.
  EXPECT_EQ(EvalInterval(*V(5), ranges).hi, 0);
}

// A two-buffer program: acc[v0] = acc[v0] + in[v0 * 2 + v1] * in[floordiv(v1, 2)].
TEST(StoreAccesses, GroupsByBufferAndLinearizesGlobalCoordinates) {
  Program program;
  Buffer in;
  in.id = 0;
  in.name = "in";
  in.shape = {64};
  in.role = BufferRole::kInput;
  Buffer acc;
  acc.id = 1;
  acc.name = "acc";
  acc.shape = {4};
  acc.attached = true;
  acc.region_min = {Mul(V(2), C(4))};  // a tile of the tensor at v2 * 4
  program.buffers = {in, acc};
  program.var_names = {"v0", "v1", "v2"};
  auto read = [](int buffer, Expr index) {
    return Read(buffer, buffer == 0 ? "in" : "acc", DType::kFloat32, {std::move(index)});
  };
  const Expr value = Add(read(1, V(0)), Mul(read(0, Add(Mul(V(0), C(2)), V(1))),
                                            read(0, FloorDiv(V(1), C(2)))));
  const Stmt store = MakeStore(1, {V(0)}, value, StoreRole::kReduceUpdate, 0);

  StoreAccesses accesses;
  accesses.Collect(*store, program);
  ASSERT_EQ(accesses.groups().size(), 2u);
  const AccessGroup& w = accesses.groups()[0];
  EXPECT_EQ(w.buffer, 1);
  EXPECT_EQ(w.type, AccessType::kReadWrite);
  EXPECT_EQ(w.num_instances, 1);  // the update's read adds no instance
  const AccessGroup& r = accesses.groups()[1];
  EXPECT_EQ(r.buffer, 0);
  EXPECT_EQ(r.type, AccessType::kRead);
  EXPECT_EQ(r.num_instances, 2);

  // acc's global coordinate: v0 + 4 * v2.
  const IndexDim& wd = accesses.dim(w, 0, 0);
  EXPECT_TRUE(wd.affine);
  ASSERT_EQ(accesses.terms(wd).size(), 2u);
  EXPECT_TRUE(accesses.Uses(w, 2));
  EXPECT_FALSE(accesses.Uses(w, 1));
  // in[2 * v0 + v1] is affine; in[floordiv(v1, 2)] is not, and its
  // coefficient falls back to TVM's 2.
  const IndexDim& r0 = accesses.dim(r, 0, 0);
  EXPECT_TRUE(r0.affine);
  const IndexDim& r1 = accesses.dim(r, 1, 0);
  EXPECT_FALSE(r1.affine);
  ASSERT_EQ(accesses.terms(r1).size(), 1u);
  EXPECT_EQ(accesses.terms(r1)[0].var, 1);
  EXPECT_EQ(accesses.terms(r1)[0].coef, 2);

  // Regions under loops v2 (3) / v0 (4) / v1 (2), outermost first.
  std::vector<LoopTouches> touches(3);
  const std::vector<LoopView> loops = {{2, 3, ForKind::kSerial, &touches[0]},
                                       {0, 4, ForKind::kSerial, &touches[1]},
                                       {1, 2, ForKind::kSerial, &touches[2]}};
  const std::vector<int> var_level = {1, 2, 0};
  std::vector<Interval> ranges(3);
  TouchRegions regions;
  regions.Compute(accesses, loops, var_level, &ranges);
  // acc: 4 * 3 = 12 distinct tensor elements over the nest; in: the
  // bounding box of [0, 7] and [0, 0] is 8 elements.
  EXPECT_EQ(regions.outer_elements(0), 12);
  EXPECT_EQ(regions.outer_elements(1), 8);
  // Innermost level (v1 only): acc 1 element, in [v1] 2 and [v1 / 2] 1 -> 2.
  ASSERT_EQ(regions.log_mem_bytes().size(), 3u);
  EXPECT_DOUBLE_EQ(regions.log_mem_bytes()[0], std::log2((1 + 2) * 4.0));
  // Every loop recorded both groups; the ranges are reset.
  EXPECT_EQ(touches[0].Find(1)->entries, 1);
  EXPECT_DOUBLE_EQ(touches[2].all_bytes(), (1 + 2) * 4.0);
  for (const Interval& i : ranges) EXPECT_EQ(i.hi, 0);
}

TEST(ArithmeticIntensityCurve, InterpolatesLogRatios) {
  float curve[feature_columns::kArithCurvePoints];
  // Ops per level (log2): 2, 6, 10; bytes (log2): 4, 5, 8.
  ArithmeticIntensityCurve(1, {2, 6, 10}, {4, 5, 8}, curve);
  EXPECT_FLOAT_EQ(curve[0], 2.0f / 4);                            // x = 1 <= 2
  EXPECT_FLOAT_EQ(curve[1], 2.0f / 4);                            // x = 2
  EXPECT_FLOAT_EQ(curve[3], 0.5f + (1.2f - 0.5f) * (4 - 2) / 4);  // x = 4
  EXPECT_FLOAT_EQ(curve[9], 10.0f / 8);
  float none[feature_columns::kArithCurvePoints];
  ArithmeticIntensityCurve(0, {}, {4}, none);
  for (float v : none) EXPECT_EQ(v, 0.0f);
}

TEST(Slog, IsSignedLogOfOnePlus) {
  EXPECT_EQ(Slog(0), 0.0f);
  EXPECT_FLOAT_EQ(Slog(1), 1.0f);
  EXPECT_FLOAT_EQ(Slog(7), 3.0f);
  EXPECT_FLOAT_EQ(Slog(-3), -2.0f);
}

}  // namespace
}  // namespace pruner
