// Group-1 operation counts of one stored value (TVM's MathOpCounter).
#ifndef PRUNER_COMMON_FEATURES_OP_COUNTS_H_
#define PRUNER_COMMON_FEATURES_OP_COUNTS_H_

#include <cstdint>

#include "common/ir/expr.h"

namespace pruner {

// Counts per evaluation of the expression. Float or int is decided by the
// left operand's dtype (the call's own dtype for calls), as TVM does. Index
// arithmetic inside reads counts as int ops; casts and loads count nothing.
// MAD is never detected (TVM leaves it a TODO), so the mad counts stay 0.
struct OpCounts {
  int64_t float_mad = 0;
  int64_t float_addsub = 0;
  int64_t float_mul = 0;
  int64_t float_divmod = 0;
  int64_t float_cmp = 0;  // comparisons, min and max
  int64_t float_math_func = 0;
  int64_t float_other_func = 0;
  int64_t int_mad = 0;
  int64_t int_addsub = 0;
  int64_t int_mul = 0;
  int64_t int_divmod = 0;
  int64_t int_cmp = 0;
  int64_t int_math_func = 0;
  int64_t int_other_func = 0;
  int64_t bool_op = 0;  // and, or, not
  int64_t select_op = 0;

  // Float work per evaluation: the x axis of the arithmetic-intensity curve.
  int64_t float_ops() const {
    return float_mad + float_addsub + float_mul + float_divmod + float_cmp + float_math_func +
           float_other_func;
  }
};

// Adds the operations of `e` to `counts`.
void CountOps(const ExprNode& e, OpCounts* counts);

}  // namespace pruner

#endif  // PRUNER_COMMON_FEATURES_OP_COUNTS_H_
