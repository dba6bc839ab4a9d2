// The scalar semantics of expression operators, shared by constant folding
// (expr.cc) and every evaluator, so that "floormod(-1, 4)" means one thing
// everywhere. Internal to common/ir and its evaluators; header-only so the
// compiler can inline it into evaluation loops.
#ifndef PRUNER_COMMON_IR_SCALAR_OPS_H_
#define PRUNER_COMMON_IR_SCALAR_OPS_H_

#include <cmath>
#include <cstdint>
#include <limits>

#include "common/ir/expr.h"

namespace pruner::scalar {

// Integer arithmetic wraps (two's complement) instead of invoking undefined
// behaviour; index expressions of valid DAGs never get near the limits.
inline int64_t WrapAdd(int64_t a, int64_t b) {
  return static_cast<int64_t>(static_cast<uint64_t>(a) + static_cast<uint64_t>(b));
}
inline int64_t WrapSub(int64_t a, int64_t b) {
  return static_cast<int64_t>(static_cast<uint64_t>(a) - static_cast<uint64_t>(b));
}
inline int64_t WrapMul(int64_t a, int64_t b) {
  return static_cast<int64_t>(static_cast<uint64_t>(a) * static_cast<uint64_t>(b));
}

// True when a / b has no defined int64 result (division by zero, or the one
// quotient that overflows). Evaluators report these as errors.
inline bool IntDivisionFails(int64_t a, int64_t b) {
  return b == 0 || (b == -1 && a == std::numeric_limits<int64_t>::min());
}

// Rounds toward negative infinity. Requires !IntDivisionFails(a, b).
inline int64_t FloorDiv(int64_t a, int64_t b) {
  int64_t q = a / b;
  if ((a % b != 0) && ((a < 0) != (b < 0))) --q;
  return q;
}

// Has the sign of b, so FloorMod(-1, 4) == 3. Requires !IntDivisionFails(a, b).
inline int64_t FloorMod(int64_t a, int64_t b) {
  int64_t r = a % b;
  if (r != 0 && ((r < 0) != (b < 0))) r += b;
  return r;
}

// op(a, b) for int64 operands; the caller has ruled out failing divisions.
inline int64_t ApplyInt(BinaryOp op, int64_t a, int64_t b) {
  switch (op) {
    case BinaryOp::kAdd: return WrapAdd(a, b);
    case BinaryOp::kSub: return WrapSub(a, b);
    case BinaryOp::kMul: return WrapMul(a, b);
    case BinaryOp::kDiv: return a / b;  // truncates, like C
    case BinaryOp::kFloorDiv: return FloorDiv(a, b);
    case BinaryOp::kFloorMod: return FloorMod(a, b);
    case BinaryOp::kMin: return a < b ? a : b;
    case BinaryOp::kMax: return a < b ? b : a;
  }
  return 0;
}

// op(a, b) in float precision, as generated float32 code computes it.
inline float ApplyFloat(BinaryOp op, float a, float b) {
  switch (op) {
    case BinaryOp::kAdd: return a + b;
    case BinaryOp::kSub: return a - b;
    case BinaryOp::kMul: return a * b;
    case BinaryOp::kDiv: return a / b;
    case BinaryOp::kFloorDiv: return std::floor(a / b);
    case BinaryOp::kFloorMod: return a - b * std::floor(a / b);
    case BinaryOp::kMin: return a < b ? a : b;
    case BinaryOp::kMax: return a < b ? b : a;
  }
  return 0;
}

template <typename T>
inline bool ApplyCompare(CompareOp op, T a, T b) {
  switch (op) {
    case CompareOp::kLT: return a < b;
    case CompareOp::kLE: return a <= b;
    case CompareOp::kGT: return a > b;
    case CompareOp::kGE: return a >= b;
    case CompareOp::kEQ: return a == b;
    case CompareOp::kNE: return a != b;
  }
  return false;
}

inline float ApplyCall(CallFn fn, float x) {
  switch (fn) {
    case CallFn::kExp: return std::exp(x);
    case CallFn::kTanh: return std::tanh(x);
    case CallFn::kErf: return std::erf(x);
    case CallFn::kSqrt: return std::sqrt(x);
    case CallFn::kLog: return std::log(x);
    case CallFn::kSigmoid: return 1.0f / (1.0f + std::exp(-x));
    case CallFn::kAbs: return std::fabs(x);
  }
  return 0;
}

}  // namespace pruner::scalar

#endif  // PRUNER_COMMON_IR_SCALAR_OPS_H_
