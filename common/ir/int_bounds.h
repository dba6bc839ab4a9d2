// Interval arithmetic for the IR's integer binary operators: the bounds of
// op(a, b) from the bounds of a and b. Shared by the index simplifier
// (BoundExpr, which proves guards away) and the touch-region features, so
// that both bound floordiv and floormod the same way. Header-only: the
// features call it for every index of every candidate.
#ifndef PRUNER_COMMON_IR_INT_BOUNDS_H_
#define PRUNER_COMMON_IR_INT_BOUNDS_H_

#include <algorithm>
#include <cstdint>
#include <limits>
#include <optional>

#include "common/ir/expr.h"
#include "common/ir/scalar_ops.h"

namespace pruner {

// An inclusive interval [lo, hi].
struct IntBounds {
  int64_t lo = 0;
  int64_t hi = 0;
};

// int64 arithmetic that saturates at the limits instead of overflowing.
inline int64_t SaturatingAdd(int64_t a, int64_t b) {
  int64_t r = 0;
  if (!__builtin_add_overflow(a, b, &r)) return r;
  return a < 0 ? std::numeric_limits<int64_t>::min() : std::numeric_limits<int64_t>::max();
}
inline int64_t SaturatingSub(int64_t a, int64_t b) {
  int64_t r = 0;
  if (!__builtin_sub_overflow(a, b, &r)) return r;
  return a < 0 ? std::numeric_limits<int64_t>::min() : std::numeric_limits<int64_t>::max();
}
inline int64_t SaturatingMul(int64_t a, int64_t b) {
  int64_t r = 0;
  if (!__builtin_mul_overflow(a, b, &r)) return r;
  return (a < 0) != (b < 0) ? std::numeric_limits<int64_t>::min()
                            : std::numeric_limits<int64_t>::max();
}

// Sums and products saturate at the int64 limits. std::nullopt when op(a, b)
// is unbounded: a division or modulo by a range that reaches zero or below.
inline std::optional<IntBounds> BinaryBounds(BinaryOp op, IntBounds a, IntBounds b) {
  auto corners = [](int64_t p, int64_t q, int64_t r, int64_t t) {
    return IntBounds{std::min({p, q, r, t}), std::max({p, q, r, t})};
  };
  switch (op) {
    case BinaryOp::kAdd: return IntBounds{SaturatingAdd(a.lo, b.lo), SaturatingAdd(a.hi, b.hi)};
    case BinaryOp::kSub: return IntBounds{SaturatingSub(a.lo, b.hi), SaturatingSub(a.hi, b.lo)};
    case BinaryOp::kMul:
      return corners(SaturatingMul(a.lo, b.lo), SaturatingMul(a.lo, b.hi),
                     SaturatingMul(a.hi, b.lo), SaturatingMul(a.hi, b.hi));
    case BinaryOp::kDiv:  // truncating: monotone in each operand for b > 0
      if (b.lo <= 0) return std::nullopt;
      return corners(a.lo / b.lo, a.lo / b.hi, a.hi / b.lo, a.hi / b.hi);
    case BinaryOp::kFloorDiv:
      if (b.lo <= 0) return std::nullopt;
      return corners(scalar::FloorDiv(a.lo, b.lo), scalar::FloorDiv(a.lo, b.hi),
                     scalar::FloorDiv(a.hi, b.lo), scalar::FloorDiv(a.hi, b.hi));
    case BinaryOp::kFloorMod:
      if (b.lo <= 0) return std::nullopt;
      // Inside one period of a constant divisor the result is exact.
      if (b.lo == b.hi && scalar::FloorDiv(a.lo, b.lo) == scalar::FloorDiv(a.hi, b.lo)) {
        return IntBounds{scalar::FloorMod(a.lo, b.lo), scalar::FloorMod(a.hi, b.lo)};
      }
      return IntBounds{0, b.hi - 1};
    case BinaryOp::kMin: return IntBounds{std::min(a.lo, b.lo), std::min(a.hi, b.hi)};
    case BinaryOp::kMax: return IntBounds{std::max(a.lo, b.lo), std::max(a.hi, b.hi)};
  }
  return std::nullopt;
}

}  // namespace pruner

#endif  // PRUNER_COMMON_IR_INT_BOUNDS_H_
