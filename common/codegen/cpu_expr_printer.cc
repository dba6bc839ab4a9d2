#include "common/codegen/cpu_expr_printer.h"

#include <cctype>
#include <cmath>
#include <cstdio>
#include <limits>
#include <utility>

#include "absl/status/status.h"
#include "absl/strings/str_cat.h"
#include "common/base/status_macros.h"
#include "common/codegen/cpu_codegen.h"
#include "common/codegen/cpu_loop_rules.h"

namespace pruner::cpu_codegen {

std::string SanitizeName(const std::string& prefix, const std::string& name) {
  std::string out = prefix;
  for (char c : name) {
    const bool alnum = std::isalnum(static_cast<unsigned char>(c)) != 0;
    out.push_back(alnum ? c : '_');
  }
  return out;
}

std::string FloatLiteral(double value) {
  const float f = static_cast<float>(value);
  if (std::isnan(f)) return "__builtin_nanf(\"\")";
  if (std::isinf(f)) return f > 0 ? "__builtin_inff()" : "(-__builtin_inff())";
  char text[64];
  // %a of the float's exact value: the compiler reads it back bit for bit.
  std::snprintf(text, sizeof(text), "%af", static_cast<double>(f));
  return f < 0 ? absl::StrCat("(", text, ")") : std::string(text);
}

// The preamble's pr_alloc writes the slack as a literal.
static_assert(kCpuReadSlackBytes == 64);

std::string Preamble() {
  return R"(#include <cmath>
#include <cstdint>
#include <cstdlib>

namespace {
// floordiv / floormod of the IR: round toward negative infinity.
inline int64_t pr_floordiv(int64_t a, int64_t b) {
  int64_t q = a / b;
  if ((a % b != 0) && ((a < 0) != (b < 0))) --q;
  return q;
}
inline int64_t pr_floormod(int64_t a, int64_t b) {
  int64_t r = a % b;
  if (r != 0 && ((r < 0) != (b < 0))) r += b;
  return r;
}
inline int64_t pr_mini(int64_t a, int64_t b) { return a < b ? a : b; }
inline int64_t pr_maxi(int64_t a, int64_t b) { return a < b ? b : a; }
// Same operand order as the interpreter's ApplyFloat (matters for NaN).
inline float pr_minf(float a, float b) { return a < b ? a : b; }
inline float pr_maxf(float a, float b) { return a < b ? b : a; }
inline float pr_sigmoidf(float x) { return 1.0f / (1.0f + expf(-x)); }
// 64-byte aligned heap storage with 64 readable bytes before and after it
// (vector code may load just outside a buffer); nullptr when the allocation
// fails. pr_free releases it.
inline float* pr_alloc(int64_t elements) {
  const size_t bytes = (static_cast<size_t>(elements) * sizeof(float) + 63) / 64 * 64 + 2 * 64;
  char* base = static_cast<char*>(std::aligned_alloc(64, bytes));
  return base == nullptr ? nullptr : reinterpret_cast<float*>(base + 64);
}
inline void pr_free(float* data) {
  if (data != nullptr) std::free(reinterpret_cast<char*>(data) - 64);
}
// Frees on scope exit, so every path out of a block releases its buffer.
struct pr_heap {
  float* data;
  explicit pr_heap(int64_t elements) : data(pr_alloc(elements)) {}
  ~pr_heap() { pr_free(data); }
  pr_heap(const pr_heap&) = delete;
  pr_heap& operator=(const pr_heap&) = delete;
};
}  // namespace

)";
}

void ExprPrinter::EnterLoop(int var, int64_t extent) { extents_[var] = extent; }
void ExprPrinter::ExitLoop(int var) { extents_.erase(var); }

std::string ExprPrinter::VarName(int var) const {
  const std::string& name =
      var >= 0 && var < program_.num_vars() ? program_.var_names[var] : std::string();
  return SanitizeName(absl::StrCat("v", var, "_"), name);
}

VarRangeFn ExprPrinter::Ranges() const {
  return [this](int var) -> std::optional<IntRange> {
    auto it = extents_.find(var);
    if (it == extents_.end()) return std::nullopt;
    return IntRange{0, it->second - 1};
  };
}

bool ExprPrinter::ProvablyNonNegative(const Expr& e) const {
  std::optional<IntRange> r = BoundExpr(e, Ranges());
  return r.has_value() && r->min >= 0;
}

absl::StatusOr<std::string> ExprPrinter::FlatOffset(int buffer,
                                                    const std::vector<Expr>& indices) const {
  PRUNER_ASSIGN_OR_RETURN(Expr flat, FlatBufferOffset(program_, buffer, indices, Ranges()));
  return Print(flat);
}

absl::StatusOr<std::string> ExprPrinter::PrintBinary(const ExprNode& n) const {
  PRUNER_ASSIGN_OR_RETURN(std::string a, Print(n.args[0]));
  PRUNER_ASSIGN_OR_RETURN(std::string b, Print(n.args[1]));
  const bool is_float = IsFloat(n.dtype);
  switch (n.binary_op()) {
    case BinaryOp::kAdd: return absl::StrCat("(", a, " + ", b, ")");
    case BinaryOp::kSub: return absl::StrCat("(", a, " - ", b, ")");
    case BinaryOp::kMul: return absl::StrCat("(", a, " * ", b, ")");
    case BinaryOp::kDiv: return absl::StrCat("(", a, " / ", b, ")");  // C truncates too
    case BinaryOp::kMin:
      return absl::StrCat(is_float ? "pr_minf(" : "pr_mini(", a, ", ", b, ")");
    case BinaryOp::kMax:
      return absl::StrCat(is_float ? "pr_maxf(" : "pr_maxi(", a, ", ", b, ")");
    case BinaryOp::kFloorDiv:
    case BinaryOp::kFloorMod: {
      const bool div = n.binary_op() == BinaryOp::kFloorDiv;
      if (is_float) {
        const std::string q = absl::StrCat("floorf(", a, " / ", b, ")");
        return div ? q : absl::StrCat("(", a, " - ", b, " * ", q, ")");
      }
      int64_t divisor = 0;
      if (IsConstInt(n.args[1], &divisor) && divisor > 0 && ProvablyNonNegative(n.args[0])) {
        return absl::StrCat("(", a, div ? " / " : " % ", b, ")");
      }
      return absl::StrCat(div ? "pr_floordiv(" : "pr_floormod(", a, ", ", b, ")");
    }
  }
  return absl::InvalidArgumentError("unknown binary operator");
}

absl::StatusOr<std::string> ExprPrinter::Print(const Expr& e) const {
  const ExprNode& n = *e;
  auto unary = [&](const char* prefix, const char* suffix) -> absl::StatusOr<std::string> {
    PRUNER_ASSIGN_OR_RETURN(std::string a, Print(n.args[0]));
    return absl::StrCat(prefix, a, suffix);
  };
  auto infix = [&](const char* op) -> absl::StatusOr<std::string> {
    PRUNER_ASSIGN_OR_RETURN(std::string a, Print(n.args[0]));
    PRUNER_ASSIGN_OR_RETURN(std::string b, Print(n.args[1]));
    return absl::StrCat("(", a, " ", op, " ", b, ")");
  };
  switch (n.kind) {
    case ExprKind::kIntImm: {
      if (n.dtype == DType::kBool) return std::string(n.int_value != 0 ? "true" : "false");
      const bool wide = n.int_value > std::numeric_limits<int32_t>::max() ||
                        n.int_value < -std::numeric_limits<int32_t>::max();
      const std::string digits = absl::StrCat(n.int_value, wide ? "LL" : "");
      return n.int_value < 0 ? absl::StrCat("(", digits, ")") : digits;
    }
    case ExprKind::kFloatImm:
      return FloatLiteral(n.float_value);
    case ExprKind::kVar:
      if (!extents_.contains(n.id)) {
        return absl::InvalidArgumentError(
            absl::StrCat("variable ", n.name, " (", n.id, ") is used outside its loop"));
      }
      return VarName(n.id);
    case ExprKind::kRead: {
      PRUNER_ASSIGN_OR_RETURN(std::string offset, FlatOffset(n.id, n.args));
      const std::string load = absl::StrCat(buffer_names_[n.id], "[", offset, "]");
      // Every buffer stores float (as common/ir Tensors do); integer reads
      // convert back.
      return IsFloat(n.dtype) ? load : absl::StrCat("static_cast<int64_t>(", load, ")");
    }
    case ExprKind::kBinary:
      return PrintBinary(n);
    case ExprKind::kCompare: {
      static const char* const kOps[] = {"<", "<=", ">", ">=", "==", "!="};
      return infix(kOps[static_cast<int>(n.compare_op())]);
    }
    case ExprKind::kAnd: return infix("&&");
    case ExprKind::kOr: return infix("||");
    case ExprKind::kNot: return unary("(!", ")");
    case ExprKind::kSelect: {
      std::string parts[3];
      for (int i = 0; i < 3; ++i) {
        PRUNER_ASSIGN_OR_RETURN(std::string p, Print(n.args[i]));
        parts[i] = std::move(p);
      }
      return absl::StrCat("(", parts[0], " ? ", parts[1], " : ", parts[2], ")");
    }
    case ExprKind::kCall:
      switch (n.call_fn()) {
        case CallFn::kExp: return unary("expf(", ")");
        case CallFn::kTanh: return unary("tanhf(", ")");
        case CallFn::kErf: return unary("erff(", ")");
        case CallFn::kSqrt: return unary("sqrtf(", ")");
        case CallFn::kLog: return unary("logf(", ")");
        case CallFn::kSigmoid: return unary("pr_sigmoidf(", ")");
        case CallFn::kAbs: return unary("fabsf(", ")");
      }
      return absl::InvalidArgumentError("unknown call");
    case ExprKind::kCast:
      if (IsFloat(n.dtype)) return unary("static_cast<float>(", ")");
      if (n.dtype == DType::kBool) return unary("(", " != 0)");
      return unary("static_cast<int64_t>(", ")");
  }
  return absl::InvalidArgumentError("unknown expression kind");
}

}  // namespace pruner::cpu_codegen
