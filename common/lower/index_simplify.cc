#include "common/lower/index_simplify.h"

#include <algorithm>
#include <map>
#include <utility>

#include "absl/strings/str_cat.h"
#include "common/ir/int_bounds.h"
#include "common/ir/scalar_ops.h"

namespace pruner {
namespace {

// Sum of coefficient * atom plus a constant. Keys order the terms: plain
// variables first by id (outer loops usually have smaller ids, so indices
// print outer to inner), then other atoms by their structural key.
struct Linear {
  std::map<std::string, std::pair<Expr, int64_t>> terms;
  int64_t constant = 0;
  DType dtype = DType::kInt64;

  bool is_constant() const { return terms.empty(); }
  void AddTerm(const std::string& key, const Expr& atom, int64_t coeff) {
    if (coeff == 0) return;
    auto it = terms.find(key);
    if (it == terms.end()) {
      terms.emplace(key, std::make_pair(atom, coeff));
      return;
    }
    it->second.second += coeff;
    if (it->second.second == 0) terms.erase(it);
  }
  void AddScaled(const Linear& other, int64_t scale) {
    for (const auto& [key, term] : other.terms) AddTerm(key, term.first, term.second * scale);
    constant += other.constant * scale;
  }
};

std::string AtomSortKey(const Expr& atom) {
  if (atom->kind == ExprKind::kVar) {
    std::string id = std::to_string(atom->id);
    return absl::StrCat("0:", std::string(12 - std::min<size_t>(12, id.size()), '0'), id);
  }
  return absl::StrCat("1:", ExprKey(atom));
}

Expr Rebuild(const Linear& l) {
  Expr e;
  for (const auto& [key, term] : l.terms) {
    const Expr& atom = term.first;
    const int64_t c = term.second;
    if (e == nullptr) {
      e = c == 1 ? atom : Mul(atom, IntImm(c, atom->dtype));
    } else if (c > 0) {
      e = Add(e, c == 1 ? atom : Mul(atom, IntImm(c, atom->dtype)));
    } else {
      e = Sub(e, c == -1 ? atom : Mul(atom, IntImm(-c, atom->dtype)));
    }
  }
  if (e == nullptr) return IntImm(l.constant, l.dtype);
  if (l.constant > 0) return Add(e, IntImm(l.constant, e->dtype));
  if (l.constant < 0) return Sub(e, IntImm(-l.constant, e->dtype));
  return e;
}

Linear Atom(const Expr& e) {
  Linear l;
  l.dtype = e->dtype;
  l.AddTerm(AtomSortKey(e), e, 1);
  return l;
}

Linear Constant(int64_t v, DType t) {
  Linear l;
  l.constant = v;
  l.dtype = t;
  return l;
}

Linear Linearize(const Expr& e, const VarRangeFn& ranges);

// floordiv / floormod by a positive constant, splitting off the multiples of
// c: floordiv(c*q + r, c) = q + floordiv(r, c), floormod(c*q + r, c) =
// floormod(r, c).
Linear LinearizeDivMod(const Linear& a, int64_t c, bool is_div,
                       const VarRangeFn& ranges) {
  Linear quotient = Constant(scalar::FloorDiv(a.constant, c), a.dtype);
  Linear rest = Constant(scalar::FloorMod(a.constant, c), a.dtype);
  for (const auto& [key, term] : a.terms) {
    if (term.second % c == 0) {
      quotient.AddTerm(key, term.first, term.second / c);
    } else {
      rest.AddTerm(key, term.first, term.second);
    }
  }
  // With a range for the rest, the division may be a known constant.
  std::optional<IntRange> r;
  if (rest.is_constant()) {
    r = IntRange{rest.constant, rest.constant};
  } else if (ranges) {
    r = BoundExpr(Rebuild(rest), ranges);
  }
  if (r.has_value() && scalar::FloorDiv(r->min, c) == scalar::FloorDiv(r->max, c)) {
    const int64_t k = scalar::FloorDiv(r->min, c);
    if (is_div) {
      quotient.constant += k;
      return quotient;
    }
    rest.constant -= k * c;
    return rest;
  }
  Expr rest_expr = Rebuild(rest);
  Expr c_expr = IntImm(c, rest_expr->dtype);
  if (is_div) {
    Linear out = quotient;
    Linear atom = Atom(FloorDiv(rest_expr, c_expr));
    out.AddScaled(atom, 1);
    return out;
  }
  return Atom(FloorMod(rest_expr, c_expr));
}

Linear Linearize(const Expr& e, const VarRangeFn& ranges) {
  switch (e->kind) {
    case ExprKind::kIntImm:
      return Constant(e->int_value, e->dtype);
    case ExprKind::kVar: {
      if (ranges) {
        std::optional<IntRange> r = ranges(e->id);
        if (r.has_value() && r->min == r->max) return Constant(r->min, e->dtype);
      }
      return Atom(e);
    }
    case ExprKind::kBinary: {
      if (!IsInt(e->dtype)) return Atom(e);
      Linear a = Linearize(e->args[0], ranges);
      Linear b = Linearize(e->args[1], ranges);
      switch (e->binary_op()) {
        case BinaryOp::kAdd:
          a.AddScaled(b, 1);
          return a;
        case BinaryOp::kSub:
          a.AddScaled(b, -1);
          return a;
        case BinaryOp::kMul:
          if (a.is_constant()) {
            Linear out = Constant(0, e->dtype);
            out.AddScaled(b, a.constant);
            return out;
          }
          if (b.is_constant()) {
            Linear out = Constant(0, e->dtype);
            out.AddScaled(a, b.constant);
            return out;
          }
          return Atom(Mul(Rebuild(a), Rebuild(b)));
        case BinaryOp::kFloorDiv:
        case BinaryOp::kFloorMod: {
          const bool is_div = e->binary_op() == BinaryOp::kFloorDiv;
          if (b.is_constant() && b.constant > 0) {
            if (b.constant == 1) return is_div ? a : Constant(0, e->dtype);
            return LinearizeDivMod(a, b.constant, is_div, ranges);
          }
          Expr x = Rebuild(a), y = Rebuild(b);
          return Atom(is_div ? FloorDiv(x, y) : FloorMod(x, y));
        }
        case BinaryOp::kMin:
        case BinaryOp::kMax: {
          Expr x = Rebuild(a), y = Rebuild(b);
          if (ranges) {
            std::optional<IntRange> rx = BoundExpr(x, ranges);
            std::optional<IntRange> ry = BoundExpr(y, ranges);
            if (rx.has_value() && ry.has_value()) {
              const bool is_min = e->binary_op() == BinaryOp::kMin;
              if (rx->max <= ry->min) return is_min ? a : b;
              if (ry->max <= rx->min) return is_min ? b : a;
            }
          }
          return Atom(e->binary_op() == BinaryOp::kMin ? Min(x, y) : Max(x, y));
        }
        case BinaryOp::kDiv:
          return Atom(Div(Rebuild(a), Rebuild(b)));
      }
      return Atom(e);
    }
    default:
      return Atom(e);
  }
}

void AppendKey(const Expr& e, std::string* out) {
  absl::StrAppend(out, "(", static_cast<int>(e->kind), ":", static_cast<int>(e->dtype), ":",
                  static_cast<int>(e->op));
  switch (e->kind) {
    case ExprKind::kIntImm: absl::StrAppend(out, ":", e->int_value); break;
    case ExprKind::kFloatImm: absl::StrAppend(out, ":", e->float_value); break;
    case ExprKind::kVar:
    case ExprKind::kRead: absl::StrAppend(out, ":", e->id); break;
    default: break;
  }
  for (const Expr& a : e->args) AppendKey(a, out);
  out->push_back(')');
}

}  // namespace

std::string ExprKey(const Expr& e) {
  std::string out;
  AppendKey(e, &out);
  return out;
}

Expr SimplifyIndex(const Expr& e, const VarRangeFn& ranges) {
  if (e == nullptr || !IsInt(e->dtype)) return e;
  return Rebuild(Linearize(e, ranges));
}

LinearTerms ToLinearTerms(const Expr& e, const VarRangeFn& ranges) {
  const Linear l = Linearize(e, ranges);
  LinearTerms out;
  out.constant = l.constant;
  for (const auto& [key, term] : l.terms) out.terms.push_back(term);
  return out;
}

Expr FromLinearTerms(const LinearTerms& terms) {
  Linear l;
  l.constant = terms.constant;
  for (const auto& [atom, coeff] : terms.terms) {
    l.dtype = atom->dtype;
    l.AddTerm(AtomSortKey(atom), atom, coeff);
  }
  return Rebuild(l);
}

std::optional<IntRange> BoundExpr(const Expr& e, const VarRangeFn& ranges) {
  switch (e->kind) {
    case ExprKind::kIntImm:
      return IntRange{e->int_value, e->int_value};
    case ExprKind::kVar:
      if (!ranges) return std::nullopt;
      return ranges(e->id);
    case ExprKind::kBinary: {
      std::optional<IntRange> a = BoundExpr(e->args[0], ranges);
      if (!a.has_value()) return std::nullopt;
      std::optional<IntRange> b = BoundExpr(e->args[1], ranges);
      if (!b.has_value()) return std::nullopt;
      std::optional<IntBounds> r =
          BinaryBounds(e->binary_op(), IntBounds{a->min, a->max}, IntBounds{b->min, b->max});
      if (!r.has_value()) return std::nullopt;
      return IntRange{r->lo, r->hi};
    }
    case ExprKind::kSelect: {
      std::optional<IntRange> a = BoundExpr(e->args[1], ranges);
      std::optional<IntRange> b = BoundExpr(e->args[2], ranges);
      if (!a.has_value() || !b.has_value()) return std::nullopt;
      return IntRange{std::min(a->min, b->min), std::max(a->max, b->max)};
    }
    case ExprKind::kCast:
      if (!IsInt(e->dtype)) return std::nullopt;
      return BoundExpr(e->args[0], ranges);
    default:
      return std::nullopt;
  }
}

namespace {

CompareOp Negate(CompareOp op) {
  switch (op) {
    case CompareOp::kLT: return CompareOp::kGE;
    case CompareOp::kLE: return CompareOp::kGT;
    case CompareOp::kGT: return CompareOp::kLE;
    case CompareOp::kGE: return CompareOp::kLT;
    case CompareOp::kEQ: return CompareOp::kNE;
    case CompareOp::kNE: return CompareOp::kEQ;
  }
  return op;
}

}  // namespace

Expr SimplifyExpr(const Expr& e, const VarRangeFn& ranges) {
  if (e == nullptr) return e;
  if (IsInt(e->dtype) && e->kind != ExprKind::kRead) return SimplifyIndex(e, ranges);
  std::vector<Expr> args;
  for (const Expr& a : e->args) args.push_back(SimplifyExpr(a, ranges));
  switch (e->kind) {
    case ExprKind::kRead:
      return Read(e->id, e->name, e->dtype, std::move(args));
    case ExprKind::kBinary:
      return Binary(e->binary_op(), args[0], args[1]);
    case ExprKind::kCompare: {
      Expr cmp = Compare(e->compare_op(), args[0], args[1]);
      if (cmp->kind == ExprKind::kCompare && IsInt(args[0]->dtype)) {
        if (ProveTrue(cmp, ranges)) return IntImm(1, DType::kBool);
        if (ProveTrue(Compare(Negate(e->compare_op()), args[0], args[1]), ranges)) {
          return IntImm(0, DType::kBool);
        }
      }
      return cmp;
    }
    case ExprKind::kAnd:
      return And(args[0], args[1]);
    case ExprKind::kOr:
      return Or(args[0], args[1]);
    case ExprKind::kNot:
      return Not(args[0]);
    case ExprKind::kSelect:
      return Select(args[0], args[1], args[2]);
    case ExprKind::kCall:
      return Call(e->call_fn(), std::move(args));
    case ExprKind::kCast:
      return Cast(e->dtype, args[0]);
    default:
      return e;
  }
}

bool ProveTrue(const Expr& cond, const VarRangeFn& ranges) {
  switch (cond->kind) {
    case ExprKind::kIntImm:
      return cond->int_value != 0;
    case ExprKind::kAnd:
      return ProveTrue(cond->args[0], ranges) && ProveTrue(cond->args[1], ranges);
    case ExprKind::kOr:
      return ProveTrue(cond->args[0], ranges) || ProveTrue(cond->args[1], ranges);
    case ExprKind::kCompare: {
      if (!IsInt(cond->args[0]->dtype)) return false;
      std::optional<IntRange> d =
          BoundExpr(SimplifyIndex(Sub(cond->args[0], cond->args[1]), ranges), ranges);
      if (!d.has_value()) return false;
      switch (cond->compare_op()) {
        case CompareOp::kLT: return d->max < 0;
        case CompareOp::kLE: return d->max <= 0;
        case CompareOp::kGT: return d->min > 0;
        case CompareOp::kGE: return d->min >= 0;
        case CompareOp::kEQ: return d->min == 0 && d->max == 0;
        case CompareOp::kNE: return d->min > 0 || d->max < 0;
      }
      return false;
    }
    default:
      return false;
  }
}

}  // namespace pruner
