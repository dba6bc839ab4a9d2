#include "common/ir/compiled_expr.h"

#include <algorithm>
#include <type_traits>

#include "absl/strings/str_cat.h"
#include "common/base/absl_compat.h"
#include "common/base/status_macros.h"
#include "common/ir/scalar_ops.h"

namespace pruner::internal {
namespace {

// ---- Value conversions (storage is float; see tensor.h).

template <typename To, typename From>
To ConvertValue(From v) {
  if constexpr (std::is_same_v<To, From>) {
    return v;
  } else if constexpr (std::is_same_v<To, bool>) {
    return v != From{};
  } else if constexpr (std::is_same_v<To, int64_t> && std::is_same_v<From, float>) {
    // C truncation; NaN and out-of-range values become 0 instead of UB.
    if (!(v > -9.2e18f && v < 9.2e18f)) return 0;
    return static_cast<int64_t>(v);
  } else {
    return static_cast<To>(v);
  }
}

template <typename T>
bool TypeMatches(DType t) {
  if constexpr (std::is_same_v<T, float>) return IsFloat(t);
  if constexpr (std::is_same_v<T, int64_t>) return IsInt(t);
  return t == DType::kBool;
}

// Calls f with a value of the C++ type that evaluates dtype t.
template <typename F>
auto DispatchValueType(DType t, F&& f) {
  if (IsFloat(t)) return f(float{});
  if (IsInt(t)) return f(int64_t{});
  return f(bool{});
}

// ---- Nodes.

template <typename T>
class ConstNode final : public CompiledExpr<T> {
 public:
  explicit ConstNode(T value) : value_(value) {}
  T Eval(EvalState&) const override { return value_; }

 private:
  const T value_;
};

class VarNode final : public CompiledExpr<int64_t> {
 public:
  explicit VarNode(int id) : id_(id) {}
  int64_t Eval(EvalState& state) const override { return state.vars[id_]; }

 private:
  const int id_;
};

template <typename T, BinaryOp kOp>
class BinaryNode final : public CompiledExpr<T> {
 public:
  BinaryNode(CompiledExprPtr<T> a, CompiledExprPtr<T> b, std::string where)
      : a_(std::move(a)), b_(std::move(b)), where_(std::move(where)) {}

  T Eval(EvalState& state) const override {
    const T a = a_->Eval(state);
    const T b = b_->Eval(state);
    if constexpr (std::is_same_v<T, float>) {
      return scalar::ApplyFloat(kOp, a, b);
    } else {
      if constexpr (kOp == BinaryOp::kDiv || kOp == BinaryOp::kFloorDiv ||
                    kOp == BinaryOp::kFloorMod) {
        if (scalar::IntDivisionFails(a, b)) {
          state.Fail(absl::InvalidArgumentError(
              absl::StrCat(where_, ": integer division ", a, " by ", b, " has no result")));
          return 0;
        }
      }
      return scalar::ApplyInt(kOp, a, b);
    }
  }

 private:
  const CompiledExprPtr<T> a_, b_;
  const std::string where_;
};

template <typename T, CompareOp kOp>
class CompareNode final : public CompiledExpr<bool> {
 public:
  CompareNode(CompiledExprPtr<T> a, CompiledExprPtr<T> b) : a_(std::move(a)), b_(std::move(b)) {}
  bool Eval(EvalState& state) const override {
    return scalar::ApplyCompare(kOp, a_->Eval(state), b_->Eval(state));
  }

 private:
  const CompiledExprPtr<T> a_, b_;
};

// And/Or short-circuit like generated C code, so a guard can protect a read.
class AndNode final : public CompiledExpr<bool> {
 public:
  AndNode(CompiledExprPtr<bool> a, CompiledExprPtr<bool> b) : a_(std::move(a)), b_(std::move(b)) {}
  bool Eval(EvalState& state) const override { return a_->Eval(state) && b_->Eval(state); }

 private:
  const CompiledExprPtr<bool> a_, b_;
};

class OrNode final : public CompiledExpr<bool> {
 public:
  OrNode(CompiledExprPtr<bool> a, CompiledExprPtr<bool> b) : a_(std::move(a)), b_(std::move(b)) {}
  bool Eval(EvalState& state) const override { return a_->Eval(state) || b_->Eval(state); }

 private:
  const CompiledExprPtr<bool> a_, b_;
};

class NotNode final : public CompiledExpr<bool> {
 public:
  explicit NotNode(CompiledExprPtr<bool> a) : a_(std::move(a)) {}
  bool Eval(EvalState& state) const override { return !a_->Eval(state); }

 private:
  const CompiledExprPtr<bool> a_;
};

// Evaluates only the chosen branch: the padding stage relies on it.
template <typename T>
class SelectNode final : public CompiledExpr<T> {
 public:
  SelectNode(CompiledExprPtr<bool> cond, CompiledExprPtr<T> a, CompiledExprPtr<T> b)
      : cond_(std::move(cond)), a_(std::move(a)), b_(std::move(b)) {}
  T Eval(EvalState& state) const override {
    return cond_->Eval(state) ? a_->Eval(state) : b_->Eval(state);
  }

 private:
  const CompiledExprPtr<bool> cond_;
  const CompiledExprPtr<T> a_, b_;
};

template <CallFn kFn>
class CallNode final : public CompiledExpr<float> {
 public:
  explicit CallNode(CompiledExprPtr<float> a) : a_(std::move(a)) {}
  float Eval(EvalState& state) const override { return scalar::ApplyCall(kFn, a_->Eval(state)); }

 private:
  const CompiledExprPtr<float> a_;
};

template <typename To, typename From>
class CastNode final : public CompiledExpr<To> {
 public:
  explicit CastNode(CompiledExprPtr<From> a) : a_(std::move(a)) {}
  To Eval(EvalState& state) const override { return ConvertValue<To>(a_->Eval(state)); }

 private:
  const CompiledExprPtr<From> a_;
};

// A read whose flat offset is affine in the variables and proven in bounds:
// the fast path taken by almost every read of a real workload.
template <typename T>
class AffineReadNode final : public CompiledExpr<T> {
 public:
  AffineReadNode(const float* data, AffineForm offset) : data_(data), offset_(std::move(offset)) {}
  T Eval(EvalState& state) const override {
    int64_t offset = offset_.constant;
    for (const auto& [var, coeff] : offset_.terms) offset += coeff * state.vars[var];
    return ConvertValue<T>(data_[offset]);
  }

 private:
  const float* const data_;
  const AffineForm offset_;
};

// Any other read: evaluates each index, and checks bounds unless proven.
template <typename T>
class IndexedReadNode final : public CompiledExpr<T> {
 public:
  IndexedReadNode(const Tensor* tensor, std::vector<CompiledExprPtr<int64_t>> indices, bool checked,
                  std::string where)
      : data_(tensor->data.data()),
        shape_(tensor->shape),
        strides_(tensor->strides()),
        indices_(std::move(indices)),
        checked_(checked),
        where_(std::move(where)) {}

  T Eval(EvalState& state) const override {
    int64_t offset = 0;
    for (size_t d = 0; d < indices_.size(); ++d) {
      const int64_t i = indices_[d]->Eval(state);
      if (checked_ && (i < 0 || i >= shape_[d])) {
        ReportOutOfBounds(state);
        return T{};
      }
      offset += i * strides_[d];
    }
    if (state.failed()) return T{};
    return ConvertValue<T>(data_[offset]);
  }

 private:
  void ReportOutOfBounds(EvalState& state) const {
    std::vector<int64_t> index;
    for (const auto& e : indices_) index.push_back(e->Eval(state));
    state.Fail(absl::OutOfRangeError(absl::StrCat(where_, " at index ", ShapeToString(index),
                                                  " is out of bounds for shape ",
                                                  ShapeToString(shape_))));
  }

  const float* const data_;
  const std::vector<int64_t> shape_;
  const std::vector<int64_t> strides_;
  const std::vector<CompiledExprPtr<int64_t>> indices_;
  const bool checked_;
  const std::string where_;
};

// A read resolved by a caller-supplied function (EvaluateExpr).
template <typename T>
class CallbackReadNode final : public CompiledExpr<T> {
 public:
  CallbackReadNode(const ReadFn* read, Expr node, std::vector<CompiledExprPtr<int64_t>> indices)
      : read_(read), node_(std::move(node)), indices_(std::move(indices)) {}

  T Eval(EvalState& state) const override {
    std::vector<int64_t> index;
    index.reserve(indices_.size());
    for (const auto& e : indices_) index.push_back(e->Eval(state));
    if (state.failed()) return T{};
    absl::StatusOr<double> value = (*read_)(*node_, index);
    if (!value.ok()) {
      state.Fail(value.status());
      return T{};
    }
    if constexpr (std::is_same_v<T, int64_t>) {
      return ConvertValue<int64_t>(static_cast<float>(*value));
    } else {
      return static_cast<T>(*value);
    }
  }

 private:
  const ReadFn* const read_;
  const Expr node_;
  const std::vector<CompiledExprPtr<int64_t>> indices_;
};

// ---- Node factories: turn a runtime operator into a template argument.

template <typename T>
CompiledExprPtr<T> MakeBinary(BinaryOp op, CompiledExprPtr<T> a, CompiledExprPtr<T> b,
                              std::string where) {
  auto make = [&](auto tag) -> CompiledExprPtr<T> {
    return std::make_unique<BinaryNode<T, decltype(tag)::value>>(std::move(a), std::move(b),
                                                                std::move(where));
  };
  switch (op) {
    case BinaryOp::kAdd: return make(std::integral_constant<BinaryOp, BinaryOp::kAdd>());
    case BinaryOp::kSub: return make(std::integral_constant<BinaryOp, BinaryOp::kSub>());
    case BinaryOp::kMul: return make(std::integral_constant<BinaryOp, BinaryOp::kMul>());
    case BinaryOp::kDiv: return make(std::integral_constant<BinaryOp, BinaryOp::kDiv>());
    case BinaryOp::kFloorDiv:
      return make(std::integral_constant<BinaryOp, BinaryOp::kFloorDiv>());
    case BinaryOp::kFloorMod:
      return make(std::integral_constant<BinaryOp, BinaryOp::kFloorMod>());
    case BinaryOp::kMin: return make(std::integral_constant<BinaryOp, BinaryOp::kMin>());
    case BinaryOp::kMax: return make(std::integral_constant<BinaryOp, BinaryOp::kMax>());
  }
  return nullptr;
}

template <typename T>
CompiledExprPtr<bool> MakeCompare(CompareOp op, CompiledExprPtr<T> a, CompiledExprPtr<T> b) {
  auto make = [&](auto tag) -> CompiledExprPtr<bool> {
    return std::make_unique<CompareNode<T, decltype(tag)::value>>(std::move(a), std::move(b));
  };
  switch (op) {
    case CompareOp::kLT: return make(std::integral_constant<CompareOp, CompareOp::kLT>());
    case CompareOp::kLE: return make(std::integral_constant<CompareOp, CompareOp::kLE>());
    case CompareOp::kGT: return make(std::integral_constant<CompareOp, CompareOp::kGT>());
    case CompareOp::kGE: return make(std::integral_constant<CompareOp, CompareOp::kGE>());
    case CompareOp::kEQ: return make(std::integral_constant<CompareOp, CompareOp::kEQ>());
    case CompareOp::kNE: return make(std::integral_constant<CompareOp, CompareOp::kNE>());
  }
  return nullptr;
}

CompiledExprPtr<float> MakeCall(CallFn fn, CompiledExprPtr<float> a) {
  switch (fn) {
    case CallFn::kExp: return std::make_unique<CallNode<CallFn::kExp>>(std::move(a));
    case CallFn::kTanh: return std::make_unique<CallNode<CallFn::kTanh>>(std::move(a));
    case CallFn::kErf: return std::make_unique<CallNode<CallFn::kErf>>(std::move(a));
    case CallFn::kSqrt: return std::make_unique<CallNode<CallFn::kSqrt>>(std::move(a));
    case CallFn::kLog: return std::make_unique<CallNode<CallFn::kLog>>(std::move(a));
    case CallFn::kSigmoid: return std::make_unique<CallNode<CallFn::kSigmoid>>(std::move(a));
    case CallFn::kAbs: return std::make_unique<CallNode<CallFn::kAbs>>(std::move(a));
  }
  return nullptr;
}

// ---- The compiler.

class Compiler {
 public:
  explicit Compiler(const CompileOptions& options) : options_(options) {}

  template <typename T>
  absl::StatusOr<CompiledExprPtr<T>> Compile(const Expr& e) {
    if (!TypeMatches<T>(e->dtype)) {
      return Error(absl::StrCat("expression ", ToString(e), " has dtype ", ToAbsl(DTypeName(e->dtype)),
                                " where another class of value was expected"));
    }
    switch (e->kind) {
      case ExprKind::kIntImm:
        return CompiledExprPtr<T>(std::make_unique<ConstNode<T>>(static_cast<T>(e->int_value)));
      case ExprKind::kFloatImm:
        return CompiledExprPtr<T>(std::make_unique<ConstNode<T>>(static_cast<T>(e->float_value)));
      case ExprKind::kVar:
        if constexpr (std::is_same_v<T, int64_t>) {
          if (e->id < 0 || e->id >= options_.num_vars) {
            return Error(absl::StrCat("variable '", e->name, "' (id ", e->id, ") has no value; ",
                                      options_.num_vars, " variables are bound"));
          }
          return CompiledExprPtr<T>(std::make_unique<VarNode>(e->id));
        }
        break;
      case ExprKind::kRead:
        return CompileRead<T>(e);
      case ExprKind::kBinary:
        if constexpr (!std::is_same_v<T, bool>) {
          PRUNER_ASSIGN_OR_RETURN(auto a, Compile<T>(e->args[0]));
          PRUNER_ASSIGN_OR_RETURN(auto b, Compile<T>(e->args[1]));
          return MakeBinary<T>(e->binary_op(), std::move(a), std::move(b),
                               absl::StrCat(options_.context, ": ", ToString(e)));
        }
        break;
      case ExprKind::kCompare:
        if constexpr (std::is_same_v<T, bool>) {
          return DispatchValueType(
              e->args[0]->dtype, [&](auto tag) -> absl::StatusOr<CompiledExprPtr<bool>> {
                using U = decltype(tag);
                PRUNER_ASSIGN_OR_RETURN(auto a, Compile<U>(e->args[0]));
                PRUNER_ASSIGN_OR_RETURN(auto b, Compile<U>(e->args[1]));
                return MakeCompare<U>(e->compare_op(), std::move(a), std::move(b));
              });
        }
        break;
      case ExprKind::kAnd:
      case ExprKind::kOr:
        if constexpr (std::is_same_v<T, bool>) {
          PRUNER_ASSIGN_OR_RETURN(auto a, Compile<bool>(e->args[0]));
          PRUNER_ASSIGN_OR_RETURN(auto b, Compile<bool>(e->args[1]));
          if (e->kind == ExprKind::kAnd) {
            return CompiledExprPtr<bool>(std::make_unique<AndNode>(std::move(a), std::move(b)));
          }
          return CompiledExprPtr<bool>(std::make_unique<OrNode>(std::move(a), std::move(b)));
        }
        break;
      case ExprKind::kNot:
        if constexpr (std::is_same_v<T, bool>) {
          PRUNER_ASSIGN_OR_RETURN(auto a, Compile<bool>(e->args[0]));
          return CompiledExprPtr<bool>(std::make_unique<NotNode>(std::move(a)));
        }
        break;
      case ExprKind::kSelect: {
        PRUNER_ASSIGN_OR_RETURN(auto cond, Compile<bool>(e->args[0]));
        PRUNER_ASSIGN_OR_RETURN(auto a, Compile<T>(e->args[1]));
        PRUNER_ASSIGN_OR_RETURN(auto b, Compile<T>(e->args[2]));
        return CompiledExprPtr<T>(
            std::make_unique<SelectNode<T>>(std::move(cond), std::move(a), std::move(b)));
      }
      case ExprKind::kCall:
        if constexpr (std::is_same_v<T, float>) {
          if (e->args.size() != 1) return Error(absl::StrCat(ToString(e), " needs one argument"));
          PRUNER_ASSIGN_OR_RETURN(auto a, Compile<float>(e->args[0]));
          return MakeCall(e->call_fn(), std::move(a));
        }
        break;
      case ExprKind::kCast:
        return DispatchValueType(e->args[0]->dtype,
                                 [&](auto tag) -> absl::StatusOr<CompiledExprPtr<T>> {
                                   using From = decltype(tag);
                                   PRUNER_ASSIGN_OR_RETURN(auto a, Compile<From>(e->args[0]));
                                   return CompiledExprPtr<T>(
                                       std::make_unique<CastNode<T, From>>(std::move(a)));
                                 });
    }
    return Error(absl::StrCat("cannot evaluate ", ToString(e), " as ", ToAbsl(DTypeName(e->dtype))));
  }

 private:
  absl::Status Error(std::string_view message) const {
    return absl::InvalidArgumentError(absl::StrCat(options_.context, ": ", ToAbsl(message)));
  }

  template <typename T>
  absl::StatusOr<CompiledExprPtr<T>> CompileRead(const Expr& e) {
    std::vector<CompiledExprPtr<int64_t>> indices;
    for (const Expr& index : e->args) {
      PRUNER_ASSIGN_OR_RETURN(auto compiled, Compile<int64_t>(index));
      indices.push_back(std::move(compiled));
    }
    if (options_.read_fn != nullptr) {
      return CompiledExprPtr<T>(
          std::make_unique<CallbackReadNode<T>>(options_.read_fn, e, std::move(indices)));
    }
    auto it = options_.tensors.find(e->id);
    if (it == options_.tensors.end()) {
      if (options_.tensors.empty()) {
        return Error(absl::StrCat("reads '", e->name, "' but no read function was given"));
      }
      return Error(absl::StrCat("reads '", e->name, "' (tensor id ", e->id,
                                "), which is not among the tensors provided"));
    }
    const Tensor& tensor = *it->second;
    if (tensor.shape.size() != e->args.size()) {
      return Error(absl::StrCat("reads '", e->name, "' with ", e->args.size(),
                                " indices but the tensor has shape ",
                                ShapeToString(tensor.shape)));
    }
    const bool in_bounds = ProvenInBounds(e, tensor.shape);
    AffineForm flat;
    if (in_bounds && FlatAffineOffset(e, tensor.strides(), &flat)) {
      return CompiledExprPtr<T>(
          std::make_unique<AffineReadNode<T>>(tensor.data.data(), std::move(flat)));
    }
    return CompiledExprPtr<T>(std::make_unique<IndexedReadNode<T>>(
        &tensor, std::move(indices), !in_bounds,
        absl::StrCat(options_.context, ": read of '", e->name, "'")));
  }

  bool ProvenInBounds(const Expr& read, const std::vector<int64_t>& shape) const {
    if (options_.var_extents.empty()) return false;
    for (size_t d = 0; d < shape.size(); ++d) {
      int64_t lo, hi;
      if (!IndexRange(read->args[d], options_.var_extents, &lo, &hi) || lo < 0 ||
          hi >= shape[d]) {
        return false;
      }
    }
    return true;
  }

  // sum_d stride_d * index_d as one affine form, when every index is affine.
  static bool FlatAffineOffset(const Expr& read, const std::vector<int64_t>& strides,
                               AffineForm* flat) {
    std::map<int, int64_t> coeffs;
    flat->constant = 0;
    for (size_t d = 0; d < strides.size(); ++d) {
      AffineForm index;
      if (!ToAffine(read->args[d], &index)) return false;
      flat->constant += strides[d] * index.constant;
      for (const auto& [var, coeff] : index.terms) coeffs[var] += strides[d] * coeff;
    }
    flat->terms.clear();
    for (const auto& [var, coeff] : coeffs) {
      if (coeff != 0) flat->terms.emplace_back(var, coeff);
    }
    return true;
  }

  const CompileOptions& options_;
};

}  // namespace

template <typename T>
absl::StatusOr<CompiledExprPtr<T>> CompileExpr(const Expr& e, const CompileOptions& options) {
  return Compiler(options).Compile<T>(e);
}

template absl::StatusOr<CompiledExprPtr<float>> CompileExpr<float>(const Expr&,
                                                                   const CompileOptions&);
template absl::StatusOr<CompiledExprPtr<int64_t>> CompileExpr<int64_t>(const Expr&,
                                                                       const CompileOptions&);
template absl::StatusOr<CompiledExprPtr<bool>> CompileExpr<bool>(const Expr&,
                                                                 const CompileOptions&);

bool IndexRange(const Expr& e, const std::vector<int64_t>& extents, int64_t* lo, int64_t* hi) {
  if (!IsInt(e->dtype)) return false;
  switch (e->kind) {
    case ExprKind::kIntImm:
      *lo = *hi = e->int_value;
      return true;
    case ExprKind::kVar:
      if (e->id < 0 || e->id >= static_cast<int>(extents.size())) return false;
      *lo = 0;
      *hi = extents[e->id] - 1;
      return true;
    case ExprKind::kCast:
      return IsInt(e->args[0]->dtype) && IndexRange(e->args[0], extents, lo, hi);
    case ExprKind::kBinary:
      break;
    default:
      return false;
  }
  int64_t alo, ahi, blo, bhi;
  if (!IndexRange(e->args[0], extents, &alo, &ahi) ||
      !IndexRange(e->args[1], extents, &blo, &bhi)) {
    return false;
  }
  switch (e->binary_op()) {
    case BinaryOp::kAdd:
      return !__builtin_add_overflow(alo, blo, lo) && !__builtin_add_overflow(ahi, bhi, hi);
    case BinaryOp::kSub:
      return !__builtin_sub_overflow(alo, bhi, lo) && !__builtin_sub_overflow(ahi, blo, hi);
    case BinaryOp::kMul: {
      int64_t p[4];
      if (__builtin_mul_overflow(alo, blo, &p[0]) || __builtin_mul_overflow(alo, bhi, &p[1]) ||
          __builtin_mul_overflow(ahi, blo, &p[2]) || __builtin_mul_overflow(ahi, bhi, &p[3])) {
        return false;
      }
      *lo = *std::min_element(p, p + 4);
      *hi = *std::max_element(p, p + 4);
      return true;
    }
    case BinaryOp::kFloorDiv:
      // Floor division by a positive constant is monotone.
      if (blo != bhi || blo <= 0) return false;
      *lo = scalar::FloorDiv(alo, blo);
      *hi = scalar::FloorDiv(ahi, blo);
      return true;
    case BinaryOp::kFloorMod:
      if (blo != bhi || blo <= 0) return false;
      if (alo >= 0 && ahi < blo) {
        *lo = alo;
        *hi = ahi;
      } else {
        *lo = 0;
        *hi = blo - 1;
      }
      return true;
    case BinaryOp::kMin:
      *lo = std::min(alo, blo);
      *hi = std::min(ahi, bhi);
      return true;
    case BinaryOp::kMax:
      *lo = std::max(alo, blo);
      *hi = std::max(ahi, bhi);
      return true;
    case BinaryOp::kDiv:
      return false;
  }
  return false;
}

}  // namespace pruner::internal
