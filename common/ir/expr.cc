#include "common/ir/expr.h"

#include <bit>
#include <charconv>
#include <cmath>
#include <limits>
#include <utility>

#include "absl/strings/str_cat.h"
#include "common/ir/scalar_ops.h"

namespace pruner {
namespace {

std::shared_ptr<ExprNode> NewNode(ExprKind kind, DType dtype) {
  auto node = std::make_shared<ExprNode>();
  node->kind = kind;
  node->dtype = dtype;
  return node;
}

Expr MakeBinaryNode(BinaryOp op, Expr a, Expr b) {
  auto node = NewNode(ExprKind::kBinary, a->dtype);
  node->op = static_cast<uint8_t>(op);
  node->args = {std::move(a), std::move(b)};
  return node;
}

// True when v is representable in integer dtype t.
bool FitsIn(int64_t v, DType t) {
  if (t == DType::kInt32) {
    return v >= std::numeric_limits<int32_t>::min() && v <= std::numeric_limits<int32_t>::max();
  }
  return true;
}

// Folds op(a, b) on integer constants. Declines (nullopt) on overflow and on
// division by zero, leaving the node for the evaluator to report.
std::optional<int64_t> FoldInt(BinaryOp op, int64_t a, int64_t b) {
  int64_t r = 0;
  switch (op) {
    case BinaryOp::kAdd:
      if (__builtin_add_overflow(a, b, &r)) return std::nullopt;
      return r;
    case BinaryOp::kSub:
      if (__builtin_sub_overflow(a, b, &r)) return std::nullopt;
      return r;
    case BinaryOp::kMul:
      if (__builtin_mul_overflow(a, b, &r)) return std::nullopt;
      return r;
    case BinaryOp::kDiv:
    case BinaryOp::kFloorDiv:
    case BinaryOp::kFloorMod:
      if (scalar::IntDivisionFails(a, b)) return std::nullopt;
      return scalar::ApplyInt(op, a, b);
    case BinaryOp::kMin:
    case BinaryOp::kMax:
      return scalar::ApplyInt(op, a, b);
  }
  return std::nullopt;
}

// x + c, with c == 0 dropped and a negative c printed as a subtraction.
Expr AddConst(Expr x, int64_t c, DType t) {
  if (c == 0) return x;
  if (c < 0 && c != std::numeric_limits<int64_t>::min()) {
    return MakeBinaryNode(BinaryOp::kSub, std::move(x), IntImm(-c, t));
  }
  return MakeBinaryNode(BinaryOp::kAdd, std::move(x), IntImm(c, t));
}

// Splits e into (base, c) when e is "base + c" or "base - c" with constant c.
bool SplitConstOffset(const Expr& e, Expr* base, int64_t* c) {
  if (e->kind != ExprKind::kBinary) return false;
  int64_t v;
  if (!IsConstInt(e->args[1], &v)) return false;
  if (e->binary_op() == BinaryOp::kAdd) {
    *base = e->args[0];
    *c = v;
    return true;
  }
  if (e->binary_op() == BinaryOp::kSub && v != std::numeric_limits<int64_t>::min()) {
    *base = e->args[0];
    *c = -v;
    return true;
  }
  return false;
}

// Simplifications of integer arithmetic; returns null when none applies.
Expr SimplifyIntBinary(BinaryOp op, const Expr& a, const Expr& b) {
  const DType t = a->dtype;
  int64_t x = 0, y = 0;
  const bool ca = IsConstInt(a, &x);
  const bool cb = IsConstInt(b, &y);
  if (ca && cb) {
    std::optional<int64_t> v = FoldInt(op, x, y);
    if (v && FitsIn(*v, t)) return IntImm(*v, t);
    return nullptr;
  }
  switch (op) {
    case BinaryOp::kAdd: {
      if (ca) return Binary(op, b, a);  // constants go right
      if (!cb) return nullptr;
      Expr base;
      int64_t c0;
      int64_t sum;
      if (SplitConstOffset(a, &base, &c0) && !__builtin_add_overflow(c0, y, &sum) &&
          FitsIn(sum, t)) {
        return AddConst(base, sum, t);
      }
      return AddConst(a, y, t);
    }
    case BinaryOp::kSub: {
      if (!cb || y == std::numeric_limits<int64_t>::min()) return nullptr;
      return Binary(BinaryOp::kAdd, a, IntImm(-y, t));
    }
    case BinaryOp::kMul: {
      if (ca) return Binary(op, b, a);
      if (!cb) return nullptr;
      if (y == 0) return IntImm(0, t);
      if (y == 1) return a;
      int64_t inner, product;
      if (a->kind == ExprKind::kBinary && a->binary_op() == BinaryOp::kMul &&
          IsConstInt(a->args[1], &inner) && !__builtin_mul_overflow(inner, y, &product) &&
          FitsIn(product, t)) {
        return Binary(BinaryOp::kMul, a->args[0], IntImm(product, t));
      }
      return nullptr;
    }
    case BinaryOp::kDiv:
    case BinaryOp::kFloorDiv:
      if (cb && y == 1) return a;
      return nullptr;
    case BinaryOp::kFloorMod:
      if (cb && y == 1) return IntImm(0, t);
      return nullptr;
    case BinaryOp::kMin:
    case BinaryOp::kMax:
      return nullptr;
  }
  return nullptr;
}

bool IsBoolConst(const Expr& e, bool* value) {
  if (e->kind != ExprKind::kIntImm || e->dtype != DType::kBool) return false;
  *value = e->int_value != 0;
  return true;
}

// ---- Affine forms.

using Terms = std::vector<std::pair<int, int64_t>>;

bool MergeTerms(const Terms& a, const Terms& b, int64_t b_scale, Terms* out) {
  out->clear();
  size_t i = 0, j = 0;
  while (i < a.size() || j < b.size()) {
    int64_t scaled = 0;
    if (j < b.size() && __builtin_mul_overflow(b[j].second, b_scale, &scaled)) return false;
    if (j == b.size() || (i < a.size() && a[i].first < b[j].first)) {
      out->push_back(a[i++]);
    } else if (i == a.size() || b[j].first < a[i].first) {
      out->emplace_back(b[j++].first, scaled);
    } else {
      int64_t sum;
      if (__builtin_add_overflow(a[i].second, scaled, &sum)) return false;
      if (sum != 0) out->emplace_back(a[i].first, sum);
      ++i;
      ++j;
    }
  }
  return true;
}

bool ScaleAffine(const AffineForm& f, int64_t scale, AffineForm* out) {
  out->terms.clear();
  if (__builtin_mul_overflow(f.constant, scale, &out->constant)) return false;
  if (scale == 0) return true;
  for (const auto& [var, coeff] : f.terms) {
    int64_t c;
    if (__builtin_mul_overflow(coeff, scale, &c)) return false;
    out->terms.emplace_back(var, c);
  }
  return true;
}

// ---- Printing.

const char* InfixSymbol(const ExprNode& n) {
  if (n.kind == ExprKind::kAnd) return "&&";
  if (n.kind == ExprKind::kOr) return "||";
  if (n.kind == ExprKind::kCompare) {
    switch (n.compare_op()) {
      case CompareOp::kLT: return "<";
      case CompareOp::kLE: return "<=";
      case CompareOp::kGT: return ">";
      case CompareOp::kGE: return ">=";
      case CompareOp::kEQ: return "==";
      case CompareOp::kNE: return "!=";
    }
  }
  if (n.kind == ExprKind::kBinary) {
    switch (n.binary_op()) {
      case BinaryOp::kAdd: return "+";
      case BinaryOp::kSub: return "-";
      case BinaryOp::kMul: return "*";
      case BinaryOp::kDiv: return "/";
      default: return nullptr;
    }
  }
  return nullptr;
}

const char* BinaryFunctionName(BinaryOp op) {
  switch (op) {
    case BinaryOp::kFloorDiv: return "floordiv";
    case BinaryOp::kFloorMod: return "floormod";
    case BinaryOp::kMin: return "min";
    case BinaryOp::kMax: return "max";
    default: return "?";
  }
}

void AppendFloatLiteral(double v, DType t, std::string* out) {
  if (std::isnan(v)) {
    out->append("nan");
  } else if (std::isinf(v)) {
    out->append(v < 0 ? "-inf" : "inf");
  } else {
    char buf[64];
    // Shortest digits that parse back to exactly this double.
    auto result = std::to_chars(buf, buf + sizeof(buf), v);
    std::string_view digits(buf, result.ptr - buf);
    out->append(digits);
    if (digits.find_first_of(".e") == std::string_view::npos) out->append(".0");
  }
  out->append(t == DType::kFloat16 ? "h" : "f");
}

class Printer {
 public:
  explicit Printer(const std::function<std::string(const ExprNode&)>* name_of)
      : name_of_(name_of) {}

  void Print(const ExprNode& n, std::string* out) const {
    switch (n.kind) {
      case ExprKind::kIntImm:
        if (n.dtype == DType::kBool) {
          out->append(n.int_value ? "true" : "false");
        } else {
          absl::StrAppend(out, n.int_value, n.dtype == DType::kInt32 ? "i32" : "");
        }
        return;
      case ExprKind::kFloatImm:
        AppendFloatLiteral(n.float_value, n.dtype, out);
        return;
      case ExprKind::kVar:
        out->append(NameOf(n, "v"));
        return;
      case ExprKind::kRead:
        out->append(NameOf(n, "t"));
        out->push_back('[');
        PrintList(n.args, out);
        out->push_back(']');
        return;
      case ExprKind::kNot:
        out->push_back('!');
        Print(*n.args[0], out);
        return;
      case ExprKind::kSelect:
        PrintFunction("select", n.args, out);
        return;
      case ExprKind::kCall:
        PrintFunction(CallFnName(n.call_fn()), n.args, out);
        return;
      case ExprKind::kCast:
        PrintFunction(DTypeName(n.dtype), n.args, out);
        return;
      case ExprKind::kBinary:
      case ExprKind::kCompare:
      case ExprKind::kAnd:
      case ExprKind::kOr:
        if (const char* symbol = InfixSymbol(n)) {
          out->push_back('(');
          Print(*n.args[0], out);
          absl::StrAppend(out, " ", symbol, " ");
          Print(*n.args[1], out);
          out->push_back(')');
        } else {
          PrintFunction(BinaryFunctionName(n.binary_op()), n.args, out);
        }
        return;
    }
  }

 private:
  std::string NameOf(const ExprNode& n, const char* fallback_prefix) const {
    if (name_of_ != nullptr) return (*name_of_)(n);
    if (!n.name.empty()) return n.name;
    return absl::StrCat(fallback_prefix, n.id);
  }

  void PrintList(const std::vector<Expr>& args, std::string* out) const {
    for (size_t i = 0; i < args.size(); ++i) {
      if (i > 0) out->append(", ");
      Print(*args[i], out);
    }
  }

  void PrintFunction(std::string_view name, const std::vector<Expr>& args, std::string* out) const {
    out->append(name);
    out->push_back('(');
    PrintList(args, out);
    out->push_back(')');
  }

  const std::function<std::string(const ExprNode&)>* name_of_;
};

}  // namespace

// ---- Constructors.

Expr IntImm(int64_t v, DType t) {
  auto node = NewNode(ExprKind::kIntImm, t);
  node->int_value = t == DType::kBool ? (v != 0) : v;
  return node;
}

Expr FloatImm(double v, DType t) {
  auto node = NewNode(ExprKind::kFloatImm, t);
  node->float_value = v;
  return node;
}

Expr Var(int id, std::string name, DType t) {
  auto node = NewNode(ExprKind::kVar, t);
  node->id = id;
  node->name = std::move(name);
  return node;
}

Expr Read(int tensor, std::string tensor_name, DType t, std::vector<Expr> indices) {
  auto node = NewNode(ExprKind::kRead, t);
  node->id = tensor;
  node->name = std::move(tensor_name);
  node->args = std::move(indices);
  return node;
}

Expr Binary(BinaryOp op, Expr a, Expr b) {
  if (IsInt(a->dtype) && a->dtype == b->dtype) {
    if (Expr simplified = SimplifyIntBinary(op, a, b)) return simplified;
  }
  return MakeBinaryNode(op, std::move(a), std::move(b));
}

Expr Compare(CompareOp op, Expr a, Expr b) {
  int64_t x, y;
  if (IsInt(a->dtype) && a->dtype == b->dtype && IsConstInt(a, &x) && IsConstInt(b, &y)) {
    return IntImm(scalar::ApplyCompare(op, x, y), DType::kBool);
  }
  auto node = NewNode(ExprKind::kCompare, DType::kBool);
  node->op = static_cast<uint8_t>(op);
  node->args = {std::move(a), std::move(b)};
  return node;
}

Expr And(Expr a, Expr b) {
  bool v;
  if (IsBoolConst(a, &v)) return v ? b : a;
  if (IsBoolConst(b, &v)) return v ? a : b;
  auto node = NewNode(ExprKind::kAnd, DType::kBool);
  node->args = {std::move(a), std::move(b)};
  return node;
}

Expr Or(Expr a, Expr b) {
  bool v;
  if (IsBoolConst(a, &v)) return v ? a : b;
  if (IsBoolConst(b, &v)) return v ? b : a;
  auto node = NewNode(ExprKind::kOr, DType::kBool);
  node->args = {std::move(a), std::move(b)};
  return node;
}

Expr Not(Expr a) {
  bool v;
  if (IsBoolConst(a, &v)) return IntImm(!v, DType::kBool);
  if (a->kind == ExprKind::kNot) return a->args[0];
  auto node = NewNode(ExprKind::kNot, DType::kBool);
  node->args = {std::move(a)};
  return node;
}

Expr Select(Expr cond, Expr then_value, Expr else_value) {
  bool v;
  if (IsBoolConst(cond, &v)) return v ? then_value : else_value;
  auto node = NewNode(ExprKind::kSelect, then_value->dtype);
  node->args = {std::move(cond), std::move(then_value), std::move(else_value)};
  return node;
}

Expr Call(CallFn fn, std::vector<Expr> args) {
  auto node = NewNode(ExprKind::kCall, args.empty() ? DType::kFloat32 : args[0]->dtype);
  node->op = static_cast<uint8_t>(fn);
  node->args = std::move(args);
  return node;
}

Expr Cast(DType t, Expr a) {
  if (a->dtype == t) return a;
  int64_t v;
  if (IsConstInt(a, &v) && a->dtype != DType::kBool) {
    if (IsInt(t) && FitsIn(v, t)) return IntImm(v, t);
    if (IsFloat(t)) return FloatImm(static_cast<double>(v), t);
  }
  if (a->kind == ExprKind::kFloatImm && IsFloat(t)) return FloatImm(a->float_value, t);
  auto node = NewNode(ExprKind::kCast, t);
  node->args = {std::move(a)};
  return node;
}

Expr WithArgs(const ExprNode& node, std::vector<Expr> args) {
  switch (node.kind) {
    case ExprKind::kIntImm:
    case ExprKind::kFloatImm:
    case ExprKind::kVar:
      return std::make_shared<ExprNode>(node);
    case ExprKind::kRead: return Read(node.id, node.name, node.dtype, std::move(args));
    case ExprKind::kBinary: return Binary(node.binary_op(), args[0], args[1]);
    case ExprKind::kCompare: return Compare(node.compare_op(), args[0], args[1]);
    case ExprKind::kAnd: return And(args[0], args[1]);
    case ExprKind::kOr: return Or(args[0], args[1]);
    case ExprKind::kNot: return Not(args[0]);
    case ExprKind::kSelect: return Select(args[0], args[1], args[2]);
    case ExprKind::kCall: return Call(node.call_fn(), std::move(args));
    case ExprKind::kCast: return Cast(node.dtype, args[0]);
  }
  return nullptr;
}

// ---- Queries.

bool IsConstInt(const Expr& e, int64_t* value) {
  if (e == nullptr || e->kind != ExprKind::kIntImm) return false;
  if (value != nullptr) *value = e->int_value;
  return true;
}

bool StructurallyEqual(const std::vector<Expr>& a, const std::vector<Expr>& b) {
  if (a.size() != b.size()) return false;
  for (size_t i = 0; i < a.size(); ++i) {
    if (!StructurallyEqual(a[i], b[i])) return false;
  }
  return true;
}

bool StructurallyEqual(const Expr& a, const Expr& b) {
  if (a == b) return true;
  if (a == nullptr || b == nullptr) return false;
  if (a->kind != b->kind || a->dtype != b->dtype || a->op != b->op || a->id != b->id ||
      a->int_value != b->int_value ||
      std::bit_cast<uint64_t>(a->float_value) != std::bit_cast<uint64_t>(b->float_value) ||
      a->args.size() != b->args.size()) {
    return false;
  }
  for (size_t i = 0; i < a->args.size(); ++i) {
    if (!StructurallyEqual(a->args[i], b->args[i])) return false;
  }
  return true;
}

void VisitExpr(const Expr& e, const std::function<void(const ExprNode&)>& f) {
  f(*e);
  for (const Expr& arg : e->args) VisitExpr(arg, f);
}

bool UsesVar(const Expr& e, int var_id) {
  if (e->kind == ExprKind::kVar) return e->id == var_id;
  for (const Expr& arg : e->args) {
    if (UsesVar(arg, var_id)) return true;
  }
  return false;
}

std::vector<int> ReadTensors(const Expr& e) {
  std::vector<int> ids;
  VisitExpr(e, [&ids](const ExprNode& n) {
    if (n.kind != ExprKind::kRead) return;
    for (int id : ids) {
      if (id == n.id) return;
    }
    ids.push_back(n.id);
  });
  return ids;
}

// ---- Rewriting.

Expr SubstituteVars(const Expr& e, const std::function<Expr(int var_id)>& subst) {
  if (e->kind == ExprKind::kVar) {
    Expr replacement = subst(e->id);
    return replacement != nullptr ? replacement : e;
  }
  if (e->args.empty()) return e;
  std::vector<Expr> args;
  args.reserve(e->args.size());
  bool changed = false;
  for (const Expr& arg : e->args) {
    args.push_back(SubstituteVars(arg, subst));
    changed |= args.back() != arg;
  }
  return changed ? WithArgs(*e, std::move(args)) : e;
}

Expr RewriteReads(const Expr& e, const std::function<Expr(const ExprNode& read)>& f) {
  if (e->args.empty()) return e;
  std::vector<Expr> args;
  args.reserve(e->args.size());
  bool changed = false;
  for (const Expr& arg : e->args) {
    args.push_back(RewriteReads(arg, f));
    changed |= args.back() != arg;
  }
  Expr node = changed ? WithArgs(*e, std::move(args)) : e;
  if (node->kind != ExprKind::kRead) return node;
  Expr replacement = f(*node);
  return replacement != nullptr ? replacement : node;
}

bool ToAffine(const Expr& e, AffineForm* out) {
  if (!IsInt(e->dtype)) return false;
  switch (e->kind) {
    case ExprKind::kIntImm:
      *out = AffineForm{{}, e->int_value};
      return true;
    case ExprKind::kVar:
      *out = AffineForm{{{e->id, 1}}, 0};
      return true;
    case ExprKind::kBinary: {
      const BinaryOp op = e->binary_op();
      if (op != BinaryOp::kAdd && op != BinaryOp::kSub && op != BinaryOp::kMul) return false;
      AffineForm a, b;
      if (!ToAffine(e->args[0], &a) || !ToAffine(e->args[1], &b)) return false;
      if (op == BinaryOp::kMul) {
        if (a.terms.empty()) return ScaleAffine(b, a.constant, out);
        if (b.terms.empty()) return ScaleAffine(a, b.constant, out);
        return false;  // product of two variables
      }
      const int64_t sign = op == BinaryOp::kAdd ? 1 : -1;
      AffineForm result;
      int64_t scaled_constant;
      if (__builtin_mul_overflow(b.constant, sign, &scaled_constant) ||
          __builtin_add_overflow(a.constant, scaled_constant, &result.constant) ||
          !MergeTerms(a.terms, b.terms, sign, &result.terms)) {
        return false;
      }
      *out = std::move(result);
      return true;
    }
    default:
      return false;
  }
}

std::string ToString(const Expr& e) {
  std::string out;
  Printer(nullptr).Print(*e, &out);
  return out;
}

std::string ToString(const Expr& e, const std::function<std::string(const ExprNode&)>& name_of) {
  std::string out;
  Printer(&name_of).Print(*e, &out);
  return out;
}

const char* BinaryOpName(BinaryOp op) {
  switch (op) {
    case BinaryOp::kAdd: return "Add";
    case BinaryOp::kSub: return "Sub";
    case BinaryOp::kMul: return "Mul";
    case BinaryOp::kDiv: return "Div";
    case BinaryOp::kFloorDiv: return "FloorDiv";
    case BinaryOp::kFloorMod: return "FloorMod";
    case BinaryOp::kMin: return "Min";
    case BinaryOp::kMax: return "Max";
  }
  return "?";
}

const char* CompareOpName(CompareOp op) {
  switch (op) {
    case CompareOp::kLT: return "LT";
    case CompareOp::kLE: return "LE";
    case CompareOp::kGT: return "GT";
    case CompareOp::kGE: return "GE";
    case CompareOp::kEQ: return "EQ";
    case CompareOp::kNE: return "NE";
  }
  return "?";
}

const char* CallFnName(CallFn fn) {
  switch (fn) {
    case CallFn::kExp: return "exp";
    case CallFn::kTanh: return "tanh";
    case CallFn::kErf: return "erf";
    case CallFn::kSqrt: return "sqrt";
    case CallFn::kLog: return "log";
    case CallFn::kSigmoid: return "sigmoid";
    case CallFn::kAbs: return "abs";
  }
  return "?";
}

}  // namespace pruner
