#include "common/features/store_accesses.h"

#include <algorithm>

namespace pruner {
namespace {

// Adds coef * var to the terms from `first` on, merging repeated variables.
void AddTerm(int var, int64_t coef, int first, std::vector<IndexTerm>* terms) {
  for (size_t i = first; i < terms->size(); ++i) {
    if ((*terms)[i].var == var) {
      (*terms)[i].coef += coef;
      return;
    }
  }
  terms->push_back({var, coef});
}

bool IsIntImm(const Expr& e, int64_t* value) {
  if (e->kind != ExprKind::kIntImm) return false;
  *value = e->int_value;
  return true;
}

// Appends scale * e to the terms from `first` on and to *constant. False
// when e is not affine in the loop variables (the caller drops the terms).
bool Linearize(const ExprNode& e, int64_t scale, int first, std::vector<IndexTerm>* terms,
               int64_t* constant) {
  switch (e.kind) {
    case ExprKind::kIntImm:
      *constant += scale * e.int_value;
      return true;
    case ExprKind::kVar:
      AddTerm(e.id, scale, first, terms);
      return true;
    case ExprKind::kCast:
      return IsInt(e.dtype) && Linearize(*e.args[0], scale, first, terms, constant);
    case ExprKind::kBinary: {
      int64_t c = 0;
      switch (e.binary_op()) {
        case BinaryOp::kAdd:
          return Linearize(*e.args[0], scale, first, terms, constant) &&
                 Linearize(*e.args[1], scale, first, terms, constant);
        case BinaryOp::kSub:
          return Linearize(*e.args[0], scale, first, terms, constant) &&
                 Linearize(*e.args[1], -scale, first, terms, constant);
        case BinaryOp::kMul:
          if (IsIntImm(e.args[1], &c))
            return Linearize(*e.args[0], scale * c, first, terms, constant);
          if (IsIntImm(e.args[0], &c))
            return Linearize(*e.args[1], scale * c, first, terms, constant);
          return false;
        default:
          return false;
      }
    }
    default:
      return false;
  }
}

// Coefficient of `var` in a non-affine index, by a cheap structural rule in
// the spirit of TVM's CoefficientExtractor: sums and constant multiples are
// exact, floormod(x, c) moves with x inside a period, floordiv(x, c) keeps
// x's coefficient divided by c when that divides. Anything else that
// depends on var is inexact, and the caller falls back to TVM's magic 2.
struct Coef {
  int64_t value = 0;
  bool exact = true;
  bool uses() const { return value != 0 || !exact; }
};

Coef ApproxCoef(const ExprNode& e, int var) {
  switch (e.kind) {
    case ExprKind::kIntImm:
    case ExprKind::kFloatImm:
      return {};
    case ExprKind::kVar:
      return {e.id == var ? 1 : 0, true};
    case ExprKind::kCast:
      return ApproxCoef(*e.args[0], var);
    case ExprKind::kBinary: {
      const Coef a = ApproxCoef(*e.args[0], var);
      int64_t c = 0;
      const bool const_rhs = IsIntImm(e.args[1], &c);
      switch (e.binary_op()) {
        case BinaryOp::kAdd:
        case BinaryOp::kSub: {
          const Coef b = ApproxCoef(*e.args[1], var);
          const int64_t v = e.binary_op() == BinaryOp::kAdd ? a.value + b.value : a.value - b.value;
          return {v, a.exact && b.exact};
        }
        case BinaryOp::kMul: {
          if (const_rhs) return {a.value * c, a.exact};
          int64_t lhs = 0;
          const Coef b = ApproxCoef(*e.args[1], var);
          if (IsIntImm(e.args[0], &lhs)) return {b.value * lhs, b.exact};
          return {0, !(a.uses() || b.uses())};
        }
        case BinaryOp::kFloorMod:
          if (const_rhs && c > 0) return a;
          break;
        case BinaryOp::kFloorDiv:
        case BinaryOp::kDiv:
          if (const_rhs && c > 0 && a.exact && a.value % c == 0) return {a.value / c, true};
          break;
        default:
          break;
      }
      const Coef b = ApproxCoef(*e.args[1], var);
      return {0, !(a.uses() || b.uses())};
    }
    default: {
      bool uses = false;
      for (const Expr& arg : e.args) uses = uses || ApproxCoef(*arg, var).uses();
      return {0, !uses};
    }
  }
}

void CollectVars(const ExprNode& e, int first, std::vector<IndexTerm>* terms) {
  if (e.kind == ExprKind::kVar) {
    AddTerm(e.id, 0, first, terms);
    return;
  }
  for (const Expr& arg : e.args) CollectVars(*arg, first, terms);
}

}  // namespace

int StoreAccesses::FindGroup(int buffer) const {
  for (size_t i = 0; i < groups_.size(); ++i) {
    if (groups_[i].buffer == buffer) return static_cast<int>(i);
  }
  return -1;
}

void StoreAccesses::CollectReads(const ExprNode& e, const Program& program) {
  if (e.kind == ExprKind::kRead) {
    int g = FindGroup(e.id);
    if (g < 0) {
      g = static_cast<int>(groups_.size());
      AccessGroup group;
      group.buffer = e.id;
      group.type = AccessType::kRead;
      group.elem_bytes = DTypeBytes(program.buffer(e.id).dtype);
      groups_.push_back(group);
      raw_.push_back({g, &e.args});
    } else if (groups_[g].type == AccessType::kWrite) {
      groups_[g].type = AccessType::kReadWrite;
    } else if (groups_[g].type == AccessType::kRead) {
      raw_.push_back({g, &e.args});
    }
  }
  for (const Expr& arg : e.args) CollectReads(*arg, program);
}

void StoreAccesses::AddDim(const ExprNode* index, const ExprNode* region_min) {
  IndexDim dim;
  dim.index = index;
  dim.region_min = region_min;
  const int first = static_cast<int>(terms_.size());
  dim.first_term = first;
  int64_t constant = 0;
  bool affine = Linearize(*index, 1, first, &terms_, &constant);
  if (affine && region_min != nullptr) {
    affine = Linearize(*region_min, 1, first, &terms_, &constant);
  }
  if (affine) {
    // Terms that cancel out do not move the access.
    terms_.erase(std::remove_if(terms_.begin() + first, terms_.end(),
                                [](const IndexTerm& t) { return t.coef == 0; }),
                 terms_.end());
    dim.constant = constant;
  } else {
    terms_.resize(first);
    CollectVars(*index, first, &terms_);
    if (region_min != nullptr) CollectVars(*region_min, first, &terms_);
    for (size_t i = first; i < terms_.size(); ++i) {
      const int var = terms_[i].var;
      const Coef a = ApproxCoef(*index, var);
      const Coef b = region_min != nullptr ? ApproxCoef(*region_min, var) : Coef{};
      const int64_t value = a.value + b.value;
      terms_[i].coef = (a.exact && b.exact && value != 0) ? value : 2;
    }
    dim.affine = false;
  }
  dim.num_terms = static_cast<int>(terms_.size()) - first;
  dims_.push_back(dim);
}

void StoreAccesses::Collect(const StmtNode& store, const Program& program) {
  groups_.clear();
  raw_.clear();
  dims_.clear();
  terms_.clear();
  AccessGroup write;
  write.buffer = store.buffer;
  write.type = AccessType::kWrite;
  write.elem_bytes = DTypeBytes(program.buffer(store.buffer).dtype);
  groups_.push_back(write);
  raw_.push_back({0, &store.indices});
  CollectReads(*store.value, program);

  for (size_t g = 0; g < groups_.size(); ++g) {
    AccessGroup& group = groups_[g];
    const Buffer& buffer = program.buffer(group.buffer);
    group.first_dim = static_cast<int>(dims_.size());
    group.num_dims = -1;
    for (const RawAccess& raw : raw_) {
      if (raw.group != static_cast<int>(g)) continue;
      const std::vector<Expr>& indices = *raw.indices;
      if (group.num_dims < 0) group.num_dims = static_cast<int>(indices.size());
      for (int d = 0; d < group.num_dims; ++d) {
        const ExprNode* region_min =
            d < static_cast<int>(buffer.region_min.size()) ? buffer.region_min[d].get() : nullptr;
        AddDim(indices[d].get(), region_min);
      }
      ++group.num_instances;
    }
    if (group.num_dims < 0) group.num_dims = 0;
  }
}

bool StoreAccesses::Uses(const AccessGroup& g, int var) const {
  const int n = g.num_instances * g.num_dims;
  for (int i = 0; i < n; ++i) {
    for (const IndexTerm& t : terms(dims_[g.first_dim + i])) {
      if (t.var == var) return true;
    }
  }
  return false;
}

}  // namespace pruner
