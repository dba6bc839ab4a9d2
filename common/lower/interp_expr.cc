#include "common/lower/interp_expr.h"

#include <algorithm>
#include <limits>
#include <utility>

#include "absl/status/status.h"
#include "absl/strings/str_cat.h"
#include "common/base/status_macros.h"
#include "common/ir/scalar_ops.h"
#include "common/lower/index_simplify.h"

namespace pruner::interp_internal {

void* Scratch::Acquire() {
  if (top_ == blocks_.size()) {
    blocks_.push_back(std::make_unique<std::byte[]>(sizeof(int64_t) * kChunkCap));
  }
  return blocks_[top_++].get();
}

int CompileEnv::FlatIndex(int var) const {
  for (size_t k = 0; k < flat_vars.size(); ++k) {
    if (flat_vars[k] == var) return static_cast<int>(k);
  }
  return -1;
}

bool Node::EvalF(const Frame& f, float*) const {
  *f.error = "internal: integer node evaluated as float";
  return false;
}

bool Node::EvalI(const Frame& f, int64_t*) const {
  *f.error = "internal: float node evaluated as integer";
  return false;
}

absl::Status TypeError(const Expr& e, const std::string& what) {
  return absl::InvalidArgumentError(absl::StrCat(what, " in ", ToString(e)));
}

bool SeparableAffine(const Expr& e, const CompileEnv& env, std::vector<int64_t>* coef) {
  coef->assign(env.flat_vars.size(), 0);
  const LinearTerms lt = ToLinearTerms(e);
  for (const auto& [atom, c] : lt.terms) {
    const int k = atom->kind == ExprKind::kVar ? env.FlatIndex(atom->id) : -1;
    if (k >= 0) {
      (*coef)[k] += c;
      continue;
    }
    bool uses_flat = false;
    VisitExpr(atom, [&](const ExprNode& n) {
      uses_flat |= n.kind == ExprKind::kVar && env.FlatIndex(n.id) >= 0;
    });
    if (uses_flat) return false;
  }
  return true;
}

bool RelativeValues(const std::vector<int64_t>& coef, const CompileEnv& env,
                    std::vector<int32_t>* rel) {
  rel->assign(env.num_positions, 0);
  for (int p = 0; p < env.num_positions; ++p) {
    int64_t r = 0;
    for (size_t k = 0; k < coef.size(); ++k) r += coef[k] * (*env.flat_values)[k][p];
    if (r < std::numeric_limits<int32_t>::min() || r > std::numeric_limits<int32_t>::max()) {
      return false;
    }
    (*rel)[p] = static_cast<int32_t>(r);
  }
  return true;
}

CompileEnv ScalarEnv(const CompileEnv& env) {
  CompileEnv scalar_env = env;
  scalar_env.flat_vars.clear();
  scalar_env.flat_values = nullptr;
  scalar_env.num_positions = 1;
  return scalar_env;
}

namespace {

template <typename T>
bool EvalAs(const Node& node, const Frame& f, T* out) {
  if constexpr (std::is_same_v<T, float>) {
    return node.EvalF(f, out);
  } else {
    return node.EvalI(f, out);
  }
}

class ConstFloatNode : public Node {
 public:
  explicit ConstFloatNode(float v) : Node(true), v_(v) {}
  bool EvalF(const Frame& f, float* out) const override {
    std::fill(out, out + f.n, v_);
    return true;
  }

 private:
  const float v_;
};

class ConstIntNode : public Node {
 public:
  explicit ConstIntNode(int64_t v) : Node(false), v_(v) {}
  bool EvalI(const Frame& f, int64_t* out) const override {
    std::fill(out, out + f.n, v_);
    return true;
  }

 private:
  const int64_t v_;
};

class VarNode : public Node {
 public:
  VarNode(int var, int flat_index) : Node(false), var_(var), k_(flat_index) {}
  bool EvalI(const Frame& f, int64_t* out) const override {
    const int64_t base = f.vars[var_];
    if (k_ < 0) {
      std::fill(out, out + f.n, base);
      return true;
    }
    const int32_t* v = (*f.chunk.values)[k_].data();
    if (f.act == nullptr) {
      for (int q = 0; q < f.n; ++q) out[q] = base + v[q];
    } else {
      for (int q = 0; q < f.n; ++q) out[q] = base + v[f.act[q]];
    }
    return true;
  }

 private:
  const int var_;
  const int k_;
};

class ReadNode : public Node {
 public:
  explicit ReadNode(std::unique_ptr<Access> access) : Node(true), access_(std::move(access)) {}
  bool EvalF(const Frame& f, float* out) const override { return access_->Gather(f, out); }

 private:
  std::unique_ptr<Access> access_;
};

class BinaryFloatNode : public Node {
 public:
  BinaryFloatNode(BinaryOp op, NodePtr a, NodePtr b)
      : Node(true), op_(op), a_(std::move(a)), b_(std::move(b)) {}
  bool EvalF(const Frame& f, float* out) const override {
    if (!a_->EvalF(f, out)) return false;
    ScratchArray tmp(f.scratch);
    float* b = tmp.as<float>();
    if (!b_->EvalF(f, b)) return false;
    const int n = f.n;
    switch (op_) {
      case BinaryOp::kAdd:
        for (int q = 0; q < n; ++q) out[q] += b[q];
        break;
      case BinaryOp::kSub:
        for (int q = 0; q < n; ++q) out[q] -= b[q];
        break;
      case BinaryOp::kMul:
        for (int q = 0; q < n; ++q) out[q] *= b[q];
        break;
      case BinaryOp::kDiv:
        for (int q = 0; q < n; ++q) out[q] /= b[q];
        break;
      default:
        for (int q = 0; q < n; ++q) out[q] = scalar::ApplyFloat(op_, out[q], b[q]);
        break;
    }
    return true;
  }

 private:
  const BinaryOp op_;
  const NodePtr a_, b_;
};

class BinaryIntNode : public Node {
 public:
  BinaryIntNode(BinaryOp op, NodePtr a, NodePtr b)
      : Node(false), op_(op), a_(std::move(a)), b_(std::move(b)) {}
  bool EvalI(const Frame& f, int64_t* out) const override {
    if (!a_->EvalI(f, out)) return false;
    ScratchArray tmp(f.scratch);
    int64_t* b = tmp.as<int64_t>();
    if (!b_->EvalI(f, b)) return false;
    const int n = f.n;
    switch (op_) {
      case BinaryOp::kAdd:
        for (int q = 0; q < n; ++q) out[q] = scalar::WrapAdd(out[q], b[q]);
        return true;
      case BinaryOp::kSub:
        for (int q = 0; q < n; ++q) out[q] = scalar::WrapSub(out[q], b[q]);
        return true;
      case BinaryOp::kMul:
        for (int q = 0; q < n; ++q) out[q] = scalar::WrapMul(out[q], b[q]);
        return true;
      case BinaryOp::kDiv:
      case BinaryOp::kFloorDiv:
      case BinaryOp::kFloorMod:
        for (int q = 0; q < n; ++q) {
          if (scalar::IntDivisionFails(out[q], b[q])) {
            *f.error = absl::StrCat("integer division of ", out[q], " by ", b[q]);
            return false;
          }
          out[q] = scalar::ApplyInt(op_, out[q], b[q]);
        }
        return true;
      default:
        for (int q = 0; q < n; ++q) out[q] = scalar::ApplyInt(op_, out[q], b[q]);
        return true;
    }
  }

 private:
  const BinaryOp op_;
  const NodePtr a_, b_;
};

class CompareNode : public Node {
 public:
  CompareNode(CompareOp op, NodePtr a, NodePtr b)
      : Node(false), op_(op), a_(std::move(a)), b_(std::move(b)) {}
  bool EvalI(const Frame& f, int64_t* out) const override {
    return a_->is_float() ? Compare<float>(f, out) : Compare<int64_t>(f, out);
  }

 private:
  template <typename T>
  bool Compare(const Frame& f, int64_t* out) const {
    ScratchArray ta(f.scratch), tb(f.scratch);
    T* a = ta.as<T>();
    T* b = tb.as<T>();
    if (!EvalAs(*a_, f, a) || !EvalAs(*b_, f, b)) return false;
    for (int q = 0; q < f.n; ++q) out[q] = scalar::ApplyCompare(op_, a[q], b[q]);
    return true;
  }

  const CompareOp op_;
  const NodePtr a_, b_;
};

class LogicNode : public Node {
 public:
  LogicNode(ExprKind kind, NodePtr a, NodePtr b)
      : Node(false), kind_(kind), a_(std::move(a)), b_(std::move(b)) {}
  bool EvalI(const Frame& f, int64_t* out) const override {
    if (!a_->EvalI(f, out)) return false;
    if (kind_ == ExprKind::kNot) {
      for (int q = 0; q < f.n; ++q) out[q] = out[q] == 0;
      return true;
    }
    ScratchArray tmp(f.scratch);
    int64_t* b = tmp.as<int64_t>();
    if (!b_->EvalI(f, b)) return false;
    if (kind_ == ExprKind::kAnd) {
      for (int q = 0; q < f.n; ++q) out[q] = (out[q] != 0) & (b[q] != 0);
    } else {
      for (int q = 0; q < f.n; ++q) out[q] = (out[q] != 0) | (b[q] != 0);
    }
    return true;
  }

 private:
  const ExprKind kind_;
  const NodePtr a_, b_;
};

// Each branch runs only at the points that take it, so a select that guards
// an out-of-range read (padding) never performs that read.
class SelectNode : public Node {
 public:
  SelectNode(bool is_float, NodePtr cond, NodePtr then_value, NodePtr else_value)
      : Node(is_float),
        cond_(std::move(cond)),
        then_(std::move(then_value)),
        else_(std::move(else_value)) {}
  bool EvalF(const Frame& f, float* out) const override { return Eval<float>(f, out); }
  bool EvalI(const Frame& f, int64_t* out) const override { return Eval<int64_t>(f, out); }

 private:
  template <typename T>
  bool Eval(const Frame& f, T* out) const {
    ScratchArray cond_buf(f.scratch);
    int64_t* c = cond_buf.as<int64_t>();
    if (!cond_->EvalI(f, c)) return false;
    int taken = 0;
    for (int q = 0; q < f.n; ++q) taken += c[q] != 0;
    if (taken == f.n) return EvalAs(*then_, f, out);
    if (taken == 0) return EvalAs(*else_, f, out);
    ScratchArray act_buf(f.scratch), index_buf(f.scratch), value_buf(f.scratch);
    int32_t* act = act_buf.as<int32_t>();
    int32_t* index = index_buf.as<int32_t>();
    T* values = value_buf.as<T>();
    int t = 0, e = taken;
    for (int q = 0; q < f.n; ++q) {
      const int at = c[q] != 0 ? t++ : e++;
      act[at] = f.pos(q);
      index[at] = q;
    }
    Frame sub = f;
    sub.n = taken;
    sub.act = act;
    if (!EvalAs(*then_, sub, values)) return false;
    sub.n = f.n - taken;
    sub.act = act + taken;
    if (!EvalAs(*else_, sub, values + taken)) return false;
    for (int r = 0; r < f.n; ++r) out[index[r]] = values[r];
    return true;
  }

  const NodePtr cond_, then_, else_;
};

class CallNode : public Node {
 public:
  CallNode(CallFn fn, NodePtr arg) : Node(true), fn_(fn), arg_(std::move(arg)) {}
  bool EvalF(const Frame& f, float* out) const override {
    if (!arg_->EvalF(f, out)) return false;
    for (int q = 0; q < f.n; ++q) out[q] = scalar::ApplyCall(fn_, out[q]);
    return true;
  }

 private:
  const CallFn fn_;
  const NodePtr arg_;
};

class IntAbsNode : public Node {
 public:
  explicit IntAbsNode(NodePtr arg) : Node(false), arg_(std::move(arg)) {}
  bool EvalI(const Frame& f, int64_t* out) const override {
    if (!arg_->EvalI(f, out)) return false;
    for (int q = 0; q < f.n; ++q) out[q] = out[q] < 0 ? -out[q] : out[q];
    return true;
  }

 private:
  const NodePtr arg_;
};

class CastNode : public Node {
 public:
  CastNode(DType to, NodePtr arg) : Node(IsFloat(to)), to_(to), arg_(std::move(arg)) {}
  bool EvalF(const Frame& f, float* out) const override {
    if (arg_->is_float()) return arg_->EvalF(f, out);
    ScratchArray tmp(f.scratch);
    int64_t* v = tmp.as<int64_t>();
    if (!arg_->EvalI(f, v)) return false;
    for (int q = 0; q < f.n; ++q) out[q] = static_cast<float>(v[q]);
    return true;
  }
  bool EvalI(const Frame& f, int64_t* out) const override {
    const bool to_bool = to_ == DType::kBool;
    if (!arg_->is_float()) {
      if (!arg_->EvalI(f, out)) return false;
      if (to_bool) {
        for (int q = 0; q < f.n; ++q) out[q] = out[q] != 0;
      }
      return true;
    }
    ScratchArray tmp(f.scratch);
    float* v = tmp.as<float>();
    if (!arg_->EvalF(f, v)) return false;
    for (int q = 0; q < f.n; ++q) {
      out[q] = to_bool ? (v[q] != 0.0f) : static_cast<int64_t>(v[q]);
    }
    return true;
  }

 private:
  const DType to_;
  const NodePtr arg_;
};

// An integer expression affine in the flattened loops: its value at the
// chunk's first point plus a precomputed offset per position. Loop
// variables, index arithmetic and guard conditions take this form, so a
// guard costs one pass over the chunk.
class AffineIntNode : public Node {
 public:
  AffineIntNode(IntScalar base, std::vector<int32_t> rel)
      : Node(false), base_(std::move(base)), rel_(std::move(rel)) {}
  bool EvalI(const Frame& f, int64_t* out) const override {
    int64_t base = 0;
    if (!base_.Eval(f.vars, f.bufs, f.scratch, f.error, &base)) return false;
    const int32_t* rel = rel_.data();
    if (f.act == nullptr) {
      for (int q = 0; q < f.n; ++q) out[q] = base + rel[q];
    } else {
      for (int q = 0; q < f.n; ++q) out[q] = base + rel[f.act[q]];
    }
    return true;
  }

 private:
  const IntScalar base_;
  const std::vector<int32_t> rel_;
};

// a <op> b for integer a, b with a - b affine in the flattened loops.
class AffineCompareNode : public Node {
 public:
  AffineCompareNode(CompareOp op, IntScalar diff_base, std::vector<int32_t> rel)
      : Node(false), op_(op), base_(std::move(diff_base)), rel_(std::move(rel)) {}
  bool EvalI(const Frame& f, int64_t* out) const override {
    int64_t base = 0;
    if (!base_.Eval(f.vars, f.bufs, f.scratch, f.error, &base)) return false;
    const int32_t* rel = rel_.data();
    for (int q = 0; q < f.n; ++q) {
      out[q] = scalar::ApplyCompare<int64_t>(op_, base + rel[f.pos(q)], 0);
    }
    return true;
  }

 private:
  const CompareOp op_;
  const IntScalar base_;
  const std::vector<int32_t> rel_;
};

// The affine fast path for e, or null when e is not (separably) affine in
// the flattened loops or contains nothing to gain.
absl::StatusOr<NodePtr> TryAffine(const Expr& e, const CompileEnv& env) {
  if (env.flat_vars.empty() || e->kind == ExprKind::kIntImm) return NodePtr();
  Expr value = e;
  const bool compare = e->kind == ExprKind::kCompare && IsInt(e->args[0]->dtype) &&
                       e->args[0]->dtype == e->args[1]->dtype;
  if (compare) {
    value = Sub(e->args[0], e->args[1]);
  } else if (!IsInt(e->dtype) || e->kind == ExprKind::kRead) {
    return NodePtr();
  }
  std::vector<int64_t> coef;
  std::vector<int32_t> rel;
  if (!SeparableAffine(value, env, &coef) || !RelativeValues(coef, env, &rel)) {
    return NodePtr();
  }
  PRUNER_ASSIGN_OR_RETURN(IntScalar base, IntScalar::Compile(value, ScalarEnv(env)));
  if (compare) {
    return NodePtr(new AffineCompareNode(e->compare_op(), std::move(base), std::move(rel)));
  }
  return NodePtr(new AffineIntNode(std::move(base), std::move(rel)));
}

}  // namespace

absl::StatusOr<NodePtr> CompileExpr(const Expr& e, const CompileEnv& env) {
  absl::StatusOr<NodePtr> affine = TryAffine(e, env);
  if (!affine.ok() || *affine != nullptr) return affine;
  std::vector<NodePtr> args;
  if (e->kind != ExprKind::kRead) {
    for (const Expr& a : e->args) {
      PRUNER_ASSIGN_OR_RETURN(NodePtr c, CompileExpr(a, env));
      args.push_back(std::move(c));
    }
  }
  switch (e->kind) {
    case ExprKind::kIntImm:
      return NodePtr(new ConstIntNode(e->int_value));
    case ExprKind::kFloatImm:
      return NodePtr(new ConstFloatNode(static_cast<float>(e->float_value)));
    case ExprKind::kVar:
      if (e->id < 0 || e->id >= env.num_vars) {
        return TypeError(e, absl::StrCat("variable id ", e->id, " out of range"));
      }
      return NodePtr(new VarNode(e->id, env.FlatIndex(e->id)));
    case ExprKind::kRead: {
      PRUNER_ASSIGN_OR_RETURN(std::unique_ptr<Access> access, Access::Compile(e->id, e->args, env));
      NodePtr read(new ReadNode(std::move(access)));
      if (IsFloat(e->dtype)) return read;
      return NodePtr(new CastNode(e->dtype, std::move(read)));
    }
    case ExprKind::kBinary:
      if (args[0]->is_float() != args[1]->is_float()) return TypeError(e, "mixed operand types");
      if (args[0]->is_float()) {
        return NodePtr(new BinaryFloatNode(e->binary_op(), std::move(args[0]), std::move(args[1])));
      }
      return NodePtr(new BinaryIntNode(e->binary_op(), std::move(args[0]), std::move(args[1])));
    case ExprKind::kCompare:
      if (args[0]->is_float() != args[1]->is_float()) return TypeError(e, "mixed operand types");
      return NodePtr(new CompareNode(e->compare_op(), std::move(args[0]), std::move(args[1])));
    case ExprKind::kAnd:
    case ExprKind::kOr:
      return NodePtr(new LogicNode(e->kind, std::move(args[0]), std::move(args[1])));
    case ExprKind::kNot:
      return NodePtr(new LogicNode(e->kind, std::move(args[0]), nullptr));
    case ExprKind::kSelect: {
      const bool is_float = args[1]->is_float();
      if (is_float != args[2]->is_float()) return TypeError(e, "mixed branch types");
      return NodePtr(
          new SelectNode(is_float, std::move(args[0]), std::move(args[1]), std::move(args[2])));
    }
    case ExprKind::kCall:
      if (args.size() != 1) return TypeError(e, "calls take one argument");
      if (!args[0]->is_float()) {
        if (e->call_fn() == CallFn::kAbs) return NodePtr(new IntAbsNode(std::move(args[0])));
        return TypeError(e, "math call on an integer");
      }
      return NodePtr(new CallNode(e->call_fn(), std::move(args[0])));
    case ExprKind::kCast:
      return NodePtr(new CastNode(e->dtype, std::move(args[0])));
  }
  return TypeError(e, "unknown expression kind");
}

// ---------------------------------------------------------------- IntScalar --

absl::StatusOr<IntScalar> IntScalar::Compile(const Expr& e, const CompileEnv& scalar_env) {
  IntScalar out;
  if (IsInt(e->dtype)) {
    const LinearTerms lt = ToLinearTerms(e);
    bool affine = true;
    for (const auto& [atom, coeff] : lt.terms) {
      if (atom->kind != ExprKind::kVar || atom->id < 0 || atom->id >= scalar_env.num_vars) {
        affine = false;
        break;
      }
    }
    if (affine) {
      out.affine_ = true;
      out.constant_ = lt.constant;
      for (const auto& [atom, coeff] : lt.terms) out.terms_.emplace_back(atom->id, coeff);
      return out;
    }
  }
  PRUNER_ASSIGN_OR_RETURN(NodePtr node, CompileExpr(e, scalar_env));
  if (node->is_float()) return TypeError(e, "integer expression expected");
  out.node_ = std::shared_ptr<const Node>(std::move(node));
  return out;
}

bool IntScalar::Eval(const int64_t* vars, float* const* bufs, Scratch* scratch,
                     std::string* error, int64_t* out) const {
  if (affine_) {
    int64_t v = constant_;
    for (const auto& [var, coeff] : terms_) v += coeff * vars[var];
    *out = v;
    return true;
  }
  Frame f;
  f.vars = vars;
  f.bufs = bufs;
  f.n = 1;
  f.scratch = scratch;
  f.error = error;
  return node_->EvalI(f, out);
}

}  // namespace pruner::interp_internal
