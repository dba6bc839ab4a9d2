#include "common/codegen/cuda_expr.h"

#include <charconv>
#include <cmath>
#include <cstdint>
#include <cstring>
#include <limits>

#include "absl/status/status.h"
#include "absl/strings/str_cat.h"
#include "common/base/absl_compat.h"

namespace pruner::cuda_internal {
namespace {

// True when e is an integer that can never be negative: loop and thread
// variables start at 0, and sums, products and quotients of non-negative
// values stay non-negative. Conservative: anything else is "maybe negative".
bool NonNegative(const Expr& e) {
  switch (e->kind) {
    case ExprKind::kIntImm: return e->int_value >= 0;
    case ExprKind::kVar: return true;
    case ExprKind::kBinary:
      switch (e->binary_op()) {
        case BinaryOp::kAdd:
        case BinaryOp::kMul:
        case BinaryOp::kDiv:
        case BinaryOp::kFloorDiv:
        case BinaryOp::kMin:
        case BinaryOp::kMax:
          return NonNegative(e->args[0]) && NonNegative(e->args[1]);
        case BinaryOp::kFloorMod: {
          int64_t b = 0;
          return IsConstInt(e->args[1], &b) && b > 0;
        }
        case BinaryOp::kSub: return false;
      }
      return false;
    default: return false;
  }
}

bool PositiveConst(const Expr& e) {
  int64_t v = 0;
  return IsConstInt(e, &v) && v > 0;
}

const char* CastType(DType t) {
  switch (t) {
    case DType::kFloat32: return "float";
    case DType::kInt32: return "int";
    case DType::kInt64: return "long long";
    case DType::kBool: return "bool";
    case DType::kFloat16: return nullptr;
  }
  return nullptr;
}

const char* CallName(CallFn fn) {
  switch (fn) {
    case CallFn::kExp: return "expf";
    case CallFn::kTanh: return "tanhf";
    case CallFn::kErf: return "erff";
    case CallFn::kSqrt: return "sqrtf";
    case CallFn::kLog: return "logf";
    case CallFn::kSigmoid: return "pr_sigmoid";
    case CallFn::kAbs: return "fabsf";
  }
  return nullptr;
}

const char* CompareText(CompareOp op) {
  switch (op) {
    case CompareOp::kLT: return " < ";
    case CompareOp::kLE: return " <= ";
    case CompareOp::kGT: return " > ";
    case CompareOp::kGE: return " >= ";
    case CompareOp::kEQ: return " == ";
    case CompareOp::kNE: return " != ";
  }
  return " ? ";
}

std::string IntLiteral(int64_t v) {
  std::string text = std::to_string(v);
  if (v < std::numeric_limits<int32_t>::min() || v > std::numeric_limits<int32_t>::max()) {
    text += "LL";
  }
  return v < 0 ? absl::StrCat("(", text, ")") : text;
}

// The recursive printer; the first problem found is kept in `error`.
class Printer {
 public:
  Printer(const Program& program, const std::vector<std::string>& var_names,
          const std::vector<std::string>& buffer_names)
      : program_(program), var_names_(var_names), buffer_names_(buffer_names) {}

  std::string error;

  std::string Access(int buffer, const std::vector<Expr>& indices) {
    if (buffer < 0 || buffer >= static_cast<int>(program_.buffers.size())) {
      Fail(absl::StrCat("read of unknown buffer ", buffer));
      return "";
    }
    const Buffer& b = program_.buffer(buffer);
    if (indices.size() != b.shape.size()) {
      Fail(absl::StrCat("buffer ", b.name, " has rank ", b.shape.size(), " but is indexed with ",
                        indices.size(), " indices"));
      return "";
    }
    // Built with the folding constructors so that zero indices and unit
    // strides disappear: buffer[0, i, 0, 0] prints as buffer[(i * 9)].
    Expr flat = IntImm(0);
    int64_t stride = 1;
    for (size_t k = indices.size(); k-- > 0;) {
      flat = Add(Mul(indices[k], IntImm(stride)), flat);
      stride *= b.shape[k];
    }
    return absl::StrCat(buffer_names_[buffer], "[", Print(flat), "]");
  }

  std::string Print(const Expr& e) {
    switch (e->kind) {
      case ExprKind::kIntImm:
        if (e->dtype == DType::kBool) return e->int_value != 0 ? "true" : "false";
        return IntLiteral(e->int_value);
      case ExprKind::kFloatImm:
        if (e->dtype != DType::kFloat32) return Fail("float16 values are not supported yet");
        return CudaFloatLiteral(e->float_value);
      case ExprKind::kVar:
        if (e->id < 0 || e->id >= static_cast<int>(var_names_.size()) ||
            var_names_[e->id].empty()) {
          return Fail(absl::StrCat("variable ", e->name, " is used outside its loop"));
        }
        return var_names_[e->id];
      case ExprKind::kRead: return Access(e->id, e->args);
      case ExprKind::kBinary: return PrintBinary(e);
      case ExprKind::kCompare:
        return absl::StrCat("(", Print(e->args[0]), CompareText(e->compare_op()),
                            Print(e->args[1]), ")");
      case ExprKind::kAnd:
        return absl::StrCat("(", Print(e->args[0]), " && ", Print(e->args[1]), ")");
      case ExprKind::kOr:
        return absl::StrCat("(", Print(e->args[0]), " || ", Print(e->args[1]), ")");
      case ExprKind::kNot: return absl::StrCat("(!", Print(e->args[0]), ")");
      case ExprKind::kSelect:
        // C's ?: evaluates only the chosen arm, so a padded read such as
        // select(in_bounds, X[i - 1], 0) never touches X out of bounds.
        return absl::StrCat("(", Print(e->args[0]), " ? ", Print(e->args[1]), " : ",
                            Print(e->args[2]), ")");
      case ExprKind::kCall: {
        if (e->dtype != DType::kFloat32) return Fail("calls on non-float32 values");
        const char* name = CallName(e->call_fn());
        if (name == nullptr) return Fail("unknown call");
        return absl::StrCat(name, "(", Print(e->args[0]), ")");
      }
      case ExprKind::kCast: {
        const char* type = CastType(e->dtype);
        if (type == nullptr) return Fail("cast to float16 is not supported yet");
        return absl::StrCat("((", type, ")(", Print(e->args[0]), "))");
      }
    }
    return Fail("unknown expression kind");
  }

 private:
  std::string Fail(std::string message) {
    if (error.empty()) error = std::move(message);
    return "0";
  }

  std::string PrintBinary(const Expr& e) {
    const Expr& a = e->args[0];
    const Expr& b = e->args[1];
    const bool is_float = IsFloat(e->dtype);
    auto infix = [&](const char* op) {
      return absl::StrCat("(", Print(a), " ", op, " ", Print(b), ")");
    };
    auto call = [&](const char* fn) { return absl::StrCat(fn, "(", Print(a), ", ", Print(b), ")"); };
    switch (e->binary_op()) {
      case BinaryOp::kAdd: return infix("+");
      case BinaryOp::kSub: return infix("-");
      case BinaryOp::kMul: return infix("*");
      case BinaryOp::kDiv: return infix("/");
      case BinaryOp::kFloorDiv:
        if (is_float) return absl::StrCat("floorf(", infix("/"), ")");
        if (NonNegative(a) && PositiveConst(b)) return infix("/");
        return call("pr_floordiv");
      case BinaryOp::kFloorMod:
        if (!is_float && NonNegative(a) && PositiveConst(b)) return infix("%");
        return call("pr_floormod");
      case BinaryOp::kMin: return call("pr_min");
      case BinaryOp::kMax: return call("pr_max");
    }
    return Fail("unknown binary operator");
  }

  const Program& program_;
  const std::vector<std::string>& var_names_;
  const std::vector<std::string>& buffer_names_;
};

}  // namespace

const char* CudaHelperPreamble() {
  // min/max follow the IR's scalar semantics (a < b ? a : b), which differ
  // from fminf/fmaxf on NaN; floordiv/floormod round toward -infinity.
  return R"(#define PR_DEVICE __device__ __forceinline__
PR_DEVICE int pr_floordiv(int a, int b) { int q = a / b; return (a % b != 0 && ((a < 0) != (b < 0))) ? q - 1 : q; }
PR_DEVICE int pr_floormod(int a, int b) { int r = a % b; return (r != 0 && ((r < 0) != (b < 0))) ? r + b : r; }
PR_DEVICE long long pr_floordiv(long long a, long long b) { long long q = a / b; return (a % b != 0 && ((a < 0) != (b < 0))) ? q - 1 : q; }
PR_DEVICE long long pr_floormod(long long a, long long b) { long long r = a % b; return (r != 0 && ((r < 0) != (b < 0))) ? r + b : r; }
PR_DEVICE float pr_floormod(float a, float b) { return a - b * floorf(a / b); }
PR_DEVICE int pr_min(int a, int b) { return a < b ? a : b; }
PR_DEVICE int pr_max(int a, int b) { return a < b ? b : a; }
PR_DEVICE long long pr_min(long long a, long long b) { return a < b ? a : b; }
PR_DEVICE long long pr_max(long long a, long long b) { return a < b ? b : a; }
PR_DEVICE float pr_min(float a, float b) { return a < b ? a : b; }
PR_DEVICE float pr_max(float a, float b) { return a < b ? b : a; }
PR_DEVICE float pr_sigmoid(float x) { return 1.0f / (1.0f + expf(-x)); }
)";
}

std::string CudaFloatLiteral(double value) {
  const float f = static_cast<float>(value);
  if (std::isnan(f)) return "__int_as_float(0x7fc00000)";
  if (std::isinf(f)) return f > 0 ? "__int_as_float(0x7f800000)" : "__int_as_float(0xff800000)";
  char buf[64];
  // Shortest digits that round-trip the float32 value exactly.
  auto [end, ec] = std::to_chars(buf, buf + sizeof(buf), f);
  std::string text(buf, end);
  if (text.find_first_of(".e") == std::string::npos) text += ".0";
  text += "f";
  return f < 0 || std::signbit(f) ? absl::StrCat("(", text, ")") : text;
}

absl::StatusOr<std::string> CudaExprPrinter::Print(const Expr& e) const {
  Printer printer(program_, var_names_, buffer_names_);
  std::string text = printer.Print(e);
  if (!printer.error.empty()) return absl::UnimplementedError(printer.error);
  return text;
}

absl::StatusOr<std::string> CudaExprPrinter::BufferAccess(int buffer,
                                                          const std::vector<Expr>& indices) const {
  Printer printer(program_, var_names_, buffer_names_);
  std::string text = printer.Access(buffer, indices);
  if (!printer.error.empty()) return absl::UnimplementedError(printer.error);
  return text;
}

}  // namespace pruner::cuda_internal
