// Expressions compiled into trees of typed evaluation nodes: the inner loop
// of the reference executor. Compiling resolves tensor ids to data pointers,
// folds affine reads into one flat offset and proves reads in bounds once, so
// that evaluation per element is a handful of virtual calls. Internal to
// common/ir (reference.cc is the user).
#ifndef PRUNER_COMMON_IR_COMPILED_EXPR_H_
#define PRUNER_COMMON_IR_COMPILED_EXPR_H_

#include <cstdint>
#include <map>
#include <memory>
#include <string>
#include <vector>

#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "common/ir/expr.h"
#include "common/ir/reference.h"
#include "common/ir/tensor.h"

namespace pruner::internal {

// Per-evaluation state. Nodes report failures here instead of returning a
// status from every call; the caller checks `error` between elements. After a
// failure, nodes return zero and never touch memory out of bounds.
struct EvalState {
  const int64_t* vars = nullptr;
  absl::Status error;

  bool failed() const { return !error.ok(); }
  void Fail(absl::Status status) {
    if (error.ok()) error = std::move(status);
  }
};

// float for float32/float16, int64_t for int32/int64, bool for bool.
template <typename T>
class CompiledExpr {
 public:
  virtual ~CompiledExpr() = default;
  virtual T Eval(EvalState& state) const = 0;
};
template <typename T>
using CompiledExprPtr = std::unique_ptr<const CompiledExpr<T>>;

struct CompileOptions {
  // Tensors that reads resolve to, by tensor id. Unused when read_fn is set.
  std::map<int, const Tensor*> tensors;
  // When set, every read calls it instead (EvaluateExpr).
  const ReadFn* read_fn = nullptr;
  // Number of variables the evaluation will bind; larger ids are an error.
  int num_vars = 0;
  // Extent of each variable when known (values in [0, extent)). Reads proven
  // in bounds over these ranges skip their per-element bounds checks.
  std::vector<int64_t> var_extents;
  // Prefix of error messages, e.g. "op 'pad'".
  std::string context;
};

// Compiles e, whose dtype must match T.
template <typename T>
absl::StatusOr<CompiledExprPtr<T>> CompileExpr(const Expr& e, const CompileOptions& options);

extern template absl::StatusOr<CompiledExprPtr<float>> CompileExpr<float>(
    const Expr&, const CompileOptions&);
extern template absl::StatusOr<CompiledExprPtr<int64_t>> CompileExpr<int64_t>(
    const Expr&, const CompileOptions&);
extern template absl::StatusOr<CompiledExprPtr<bool>> CompileExpr<bool>(const Expr&,
                                                                       const CompileOptions&);

// [lo, hi] of an integer expression when every variable v ranges over
// [0, extents[v]); false when the analysis cannot bound it (reads, selects,
// division by a non-constant...).
bool IndexRange(const Expr& e, const std::vector<int64_t>& extents, int64_t* lo, int64_t* hi);

}  // namespace pruner::internal

#endif  // PRUNER_COMMON_IR_COMPILED_EXPR_H_
