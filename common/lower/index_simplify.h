// Integer index arithmetic for lowering: a canonical "sum of terms" form,
// interval bounds, and guard proving.
//
// Lowering composes index expressions from several sources (a consumer's
// root values, a producer's region minimum, the leaf expressions of split and
// fused loops) and subtracts region minimums, so that without simplification
// a cached tile's index would read `(a + b + i) - (a + b)`. The canonical
// form treats every non-linear subexpression (floordiv, floormod, min, a
// product of two variables, ...) as an opaque atom and sums atoms with
// integer coefficients; equal atoms cancel. Variable ranges, when known,
// fold constant variables and divisions that a range proves trivial.
#ifndef PRUNER_COMMON_LOWER_INDEX_SIMPLIFY_H_
#define PRUNER_COMMON_LOWER_INDEX_SIMPLIFY_H_

#include <cstdint>
#include <functional>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "common/ir/expr.h"

namespace pruner {

// An inclusive integer interval.
struct IntRange {
  int64_t min = 0;
  int64_t max = 0;
};

// Range of a variable, or std::nullopt when it is unknown (or, for symbolic
// analyses, deliberately kept symbolic).
using VarRangeFn = std::function<std::optional<IntRange>(int var_id)>;

// Canonical form of an integer expression; see the file comment. `ranges`
// may be empty (no range facts).
Expr SimplifyIndex(const Expr& e, const VarRangeFn& ranges = {});

// The canonical form's parts: e == sum(coeff * atom) + constant, with
// atoms ordered as SimplifyIndex prints them and no zero coefficients.
struct LinearTerms {
  std::vector<std::pair<Expr, int64_t>> terms;
  int64_t constant = 0;
};
LinearTerms ToLinearTerms(const Expr& e, const VarRangeFn& ranges = {});
// Rebuilds sum(coeff * atom) + constant; integer dtype of the atoms.
Expr FromLinearTerms(const LinearTerms& l);

// SimplifyIndex applied to every integer subexpression of e (read indices,
// comparison operands), with comparisons that `ranges` decide folded to
// constants (and &&, ||, ! and select folded with them).
Expr SimplifyExpr(const Expr& e, const VarRangeFn& ranges = {});

// Interval of an integer expression when every variable in it has a range;
// std::nullopt otherwise or for nodes that have no integer meaning.
std::optional<IntRange> BoundExpr(const Expr& e, const VarRangeFn& ranges);

// True when the boolean `cond` holds for every assignment in `ranges`.
// Sound but incomplete: false means "not proven".
bool ProveTrue(const Expr& cond, const VarRangeFn& ranges);

// A structural key: equal keys mean structurally equal expressions, with
// variables identified by id (names are ignored).
std::string ExprKey(const Expr& e);

}  // namespace pruner

#endif  // PRUNER_COMMON_LOWER_INDEX_SIMPLIFY_H_
