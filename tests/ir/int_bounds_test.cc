// Interval arithmetic of the integer binary operators (common/ir/int_bounds.h),
// which both the index simplifier and the touch-region features rely on.
#include "common/ir/int_bounds.h"

#include <cstdint>
#include <limits>
#include <optional>

#include "gtest/gtest.h"

namespace pruner {
namespace {

constexpr int64_t kMax = std::numeric_limits<int64_t>::max();
constexpr int64_t kMin = std::numeric_limits<int64_t>::min();

void ExpectBounds(std::optional<IntBounds> got, int64_t lo, int64_t hi) {
  ASSERT_TRUE(got.has_value());
  EXPECT_EQ(got->lo, lo);
  EXPECT_EQ(got->hi, hi);
}

TEST(IntBoundsTest, SumsDifferencesAndProductsTakeTheCorners) {
  ExpectBounds(BinaryBounds(BinaryOp::kAdd, {-2, 3}, {10, 20}), 8, 23);
  ExpectBounds(BinaryBounds(BinaryOp::kSub, {-2, 3}, {10, 20}), -22, -7);
  ExpectBounds(BinaryBounds(BinaryOp::kMul, {-2, 3}, {-5, 4}), -15, 12);
  ExpectBounds(BinaryBounds(BinaryOp::kMin, {-2, 3}, {0, 1}), -2, 1);
  ExpectBounds(BinaryBounds(BinaryOp::kMax, {-2, 3}, {0, 1}), 0, 3);
}

TEST(IntBoundsTest, OverflowSaturatesInsteadOfWrapping) {
  ExpectBounds(BinaryBounds(BinaryOp::kAdd, {0, kMax}, {0, 1}), 0, kMax);
  ExpectBounds(BinaryBounds(BinaryOp::kSub, {kMin, 0}, {0, 1}), kMin, 0);
  ExpectBounds(BinaryBounds(BinaryOp::kMul, {-(int64_t{1} << 40), 1 << 20},
                            {0, int64_t{1} << 40}),
               kMin, int64_t{1} << 60);
}

TEST(IntBoundsTest, FloorDivisionRoundsDownAndTruncatingDivisionTowardZero) {
  ExpectBounds(BinaryBounds(BinaryOp::kFloorDiv, {-7, 7}, {2, 2}), -4, 3);
  ExpectBounds(BinaryBounds(BinaryOp::kDiv, {-7, 7}, {2, 2}), -3, 3);
  ExpectBounds(BinaryBounds(BinaryOp::kFloorDiv, {0, 15}, {2, 4}), 0, 7);
}

TEST(IntBoundsTest, ModuloIsExactInsideOnePeriodOfAConstantDivisor) {
  ExpectBounds(BinaryBounds(BinaryOp::kFloorMod, {9, 11}, {4, 4}), 1, 3);
  ExpectBounds(BinaryBounds(BinaryOp::kFloorMod, {-3, -1}, {4, 4}), 1, 3);
  ExpectBounds(BinaryBounds(BinaryOp::kFloorMod, {3, 5}, {4, 4}), 0, 3);   // wraps
  ExpectBounds(BinaryBounds(BinaryOp::kFloorMod, {0, 100}, {2, 6}), 0, 5);  // varying divisor
}

TEST(IntBoundsTest, DivisorsThatReachZeroAreUnbounded) {
  for (BinaryOp op : {BinaryOp::kDiv, BinaryOp::kFloorDiv, BinaryOp::kFloorMod}) {
    EXPECT_FALSE(BinaryBounds(op, {1, 10}, {0, 4}).has_value());
    EXPECT_FALSE(BinaryBounds(op, {1, 10}, {-3, -1}).has_value());
  }
}

}  // namespace
}  // namespace pruner
