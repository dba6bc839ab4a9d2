#include "common/lower/bound_inference.h"

#include <algorithm>
#include <optional>
#include <set>
#include <utility>

#include "absl/status/status.h"
#include "absl/strings/str_cat.h"
#include "common/base/status_macros.h"
#include "common/lower/index_simplify.h"
#include "common/lower/inlined_bodies.h"

namespace pruner {

int ScopeRank(MemScope scope) {
  switch (scope) {
    case MemScope::kGlobal: return 0;
    case MemScope::kShared: return 1;
    case MemScope::kLocal: return 3;
  }
  return 0;
}

int ThreadRank(IterAnnotation annotation) {
  switch (annotation) {
    case IterAnnotation::kBlockX:
    case IterAnnotation::kBlockY:
    case IterAnnotation::kBlockZ: return 0;
    case IterAnnotation::kThreadX:
    case IterAnnotation::kThreadY:
    case IterAnnotation::kThreadZ:
    case IterAnnotation::kVThread: return 1;
    default: return -1;
  }
}

LoopVarTable::LoopVarTable(const State& state) {
  std::set<std::string> used;
  for (int s = 0; s < state.num_stages(); ++s) {
    const Stage& stage = state.stage(s);
    offsets_.push_back(static_cast<int>(names_.size()));
    for (int i = 0; i < static_cast<int>(stage.iters.size()); ++i) {
      // Iterator names repeat across stages (a cache stage and its consumer
      // both have "i.0"); the first keeps the plain name.
      std::string name = stage.iter_name(i);
      if (!used.insert(name).second) {
        name = absl::StrCat(stage.op->name, ".", name);
        used.insert(name);
      }
      names_.push_back(std::move(name));
      stage_of_.push_back(s);
    }
  }
}

Expr LoopVarTable::var(int stage, int iter) const {
  const int v = id(stage, iter);
  return Var(v, names_[v]);
}

namespace {

// base + [lo, hi]: the values an index takes while the relaxed loops range.
struct SymInterval {
  Expr base;        // null: no symbolic part
  std::string key;  // ExprKey(base), "" when null
  int64_t lo = 0;
  int64_t hi = 0;
};

IntRange Scale(IntRange r, int64_t c) {
  return c >= 0 ? IntRange{r.min * c, r.max * c} : IntRange{r.max * c, r.min * c};
}

bool UsesAnyVar(const Expr& e, const VarRangeFn& relaxed) {
  bool found = false;
  VisitExpr(e, [&](const ExprNode& n) {
    if (n.kind == ExprKind::kVar && relaxed(n.id).has_value()) found = true;
  });
  return found;
}

// Splits e into a symbolic part (terms over fixed variables) and an interval
// (terms over relaxed variables). See the header for the fallbacks.
std::optional<SymInterval> EvalSymInterval(const Expr& e, const VarRangeFn& relaxed,
                                           const VarRangeFn& all) {
  const LinearTerms terms = ToLinearTerms(e, all);
  LinearTerms symbolic;
  IntRange interval{terms.constant, terms.constant};
  for (const auto& [atom, coeff] : terms.terms) {
    if (!UsesAnyVar(atom, relaxed)) {
      symbolic.terms.emplace_back(atom, coeff);
      continue;
    }
    std::optional<IntRange> pure = BoundExpr(atom, relaxed);
    if (pure.has_value()) {
      const IntRange r = Scale(*pure, coeff);
      interval.min += r.min;
      interval.max += r.max;
      continue;
    }
    // A relaxed loop mixed with fixed ones inside a division (a fused loop
    // whose parts sit on both sides of the attach point).
    int64_t divisor = 0;
    if (atom->kind == ExprKind::kBinary && IsConstInt(atom->args[1], &divisor) && divisor > 0) {
      if (atom->binary_op() == BinaryOp::kFloorMod) {
        const IntRange r = Scale(IntRange{0, divisor - 1}, coeff);
        interval.min += r.min;
        interval.max += r.max;
        continue;
      }
      if (atom->binary_op() == BinaryOp::kFloorDiv) {
        std::optional<SymInterval> inner = EvalSymInterval(atom->args[0], relaxed, all);
        if (!inner.has_value()) return std::nullopt;
        // floordiv(b + x, d) for x in [lo, hi] lies in
        // floordiv(b + lo, d) + [0, ceil((hi - lo) / d)].
        Expr low = inner->base == nullptr ? IntImm(inner->lo)
                                          : Add(inner->base, IntImm(inner->lo));
        symbolic.terms.emplace_back(
            SimplifyIndex(FloorDiv(low, IntImm(divisor, low->dtype)), all), coeff);
        const int64_t width = (inner->hi - inner->lo + divisor - 1) / divisor;
        const IntRange r = Scale(IntRange{0, width}, coeff);
        interval.min += r.min;
        interval.max += r.max;
        continue;
      }
    }
    return std::nullopt;
  }
  SymInterval out;
  out.lo = interval.min;
  out.hi = interval.max;
  if (!symbolic.terms.empty()) {
    // Re-canonicalize so that equal bases compare equal, and move the
    // constant into the interval.
    LinearTerms base = ToLinearTerms(FromLinearTerms(symbolic), all);
    out.lo += base.constant;
    out.hi += base.constant;
    base.constant = 0;
    if (!base.terms.empty()) {
      out.base = FromLinearTerms(base);
      out.key = ExprKey(out.base);
    }
  }
  return out;
}

int64_t CeilDivOrUnknown(int64_t a, int64_t b) {
  return (a < 0 || b < 0) ? -1 : (a + b - 1) / b;
}

// PropagateExtents with TVM's tightening (PassDownDomain): an inner split
// part never exceeds what is left of its parent, unless a thread-bound loop
// derives from it (its extent is then a launch dimension the schedule
// chose). Without it, a cache stage whose region is one thread's 4x4 tile
// but whose split lengths were chosen for the whole tensor would loop over
// the vthread and thread factors too, guarded, doing that many times the
// work; TVM shrinks those loops to extent 1.
void PropagateTightExtents(Stage* stage) {
  std::vector<bool> feeds_thread(stage->nodes.size(), false);
  for (const Iterator& it : stage->iters) {
    if (IsThreadBinding(it.annotation)) feeds_thread[it.node] = true;
  }
  for (auto rel = stage->relations.rbegin(); rel != stage->relations.rend(); ++rel) {
    bool any = false;
    for (int out : rel->outputs) any |= feeds_thread[out];
    if (any) {
      for (int in : rel->inputs) feeds_thread[in] = true;
    }
  }
  auto tight = [&](int node, int64_t wanted, int64_t available) -> int64_t {
    if (wanted < 0 || available < 0 || feeds_thread[node]) return wanted;
    return std::min(wanted, available);
  };
  for (const IterRelation& rel : stage->relations) {
    std::vector<IterNode>& nodes = stage->nodes;
    if (rel.kind == IterRelation::Kind::kFuse) {
      int64_t product = 1;
      for (int in : rel.inputs) {
        const int64_t e = nodes[in].extent;
        product = (product < 0 || e < 0) ? -1 : product * e;
      }
      nodes[rel.outputs[0]].extent = product;
      continue;
    }
    const int64_t parent = nodes[rel.inputs[0]].extent;
    if (rel.nparts) {
      nodes[rel.outputs[0]].extent = tight(rel.outputs[0], rel.lengths[0], parent);
      nodes[rel.outputs[1]].extent = CeilDivOrUnknown(parent, rel.lengths[0]);
      continue;
    }
    int64_t rest = parent;
    for (int i = static_cast<int>(rel.lengths.size()) - 1; i >= 0; --i) {
      const int out = rel.outputs[i + 1];
      nodes[out].extent = tight(out, rel.lengths[i], rest);
      rest = CeilDivOrUnknown(rest, rel.lengths[i]);
    }
    nodes[rel.outputs[0]].extent = rest;
  }
}

class RegionInferrer {
 public:
  RegionInferrer(BoundResult* result, const InlinedBodies* bodies)
      : r_(result), bodies_(bodies), visit_(result->state.num_stages(), 0) {}

  absl::Status Infer(int s) {
    if (visit_[s] == 2) return absl::OkStatus();
    if (visit_[s] == 1) {
      return absl::InvalidArgumentError(
          absl::StrCat("stage ", r_->state.stage(s).op->name,
                       " is attached (directly or through its consumers) inside itself"));
    }
    visit_[s] = 1;
    absl::Status status = InferStage(s);
    visit_[s] = 2;
    return status;
  }

 private:
  int64_t LoopExtent(int var) const {
    return r_->state.stage(r_->loops.stage_of(var)).iter_extent(r_->loops.iter_of(var));
  }
  IterAnnotation LoopAnnotation(int var) const {
    return r_->state.stage(r_->loops.stage_of(var)).iters[r_->loops.iter_of(var)].annotation;
  }
  std::optional<IntRange> FullRange(int var) const {
    if (var < 0 || var >= r_->loops.size()) return std::nullopt;
    const int64_t e = LoopExtent(var);
    if (e < 1) return std::nullopt;
    return IntRange{0, e - 1};
  }

  absl::Status InferStage(int s) {
    const Stage& stage = r_->state.stage(s);
    StageRegion& region = r_->regions[s];
    if (stage.is_placeholder() || stage.compute_at == ComputeAtKind::kInlined) {
      return absl::OkStatus();
    }
    region.materialized = true;
    std::optional<MemScope> declared = ParseMemScope(stage.scope);
    if (!declared.has_value()) {
      return absl::InvalidArgumentError(
          absl::StrCat("stage ", stage.op->name, " has unknown scope \"", stage.scope, "\""));
    }
    region.scope = *declared;
    const Op& op = *stage.op;
    const int num_spatial = static_cast<int>(op.axes.size());
    for (int i = 0; i < op.num_axes(); ++i) {
      region.min.push_back(IntImm(0));
      region.extent.push_back(i < num_spatial ? op.axes[i].extent
                                              : op.reduce_axes[i - num_spatial].extent);
    }
    region.exact.assign(num_spatial, true);
    region.may_overshoot.assign(num_spatial, false);
    region.may_undershoot.assign(num_spatial, false);
    if (stage.compute_at == ComputeAtKind::kIter) {
      PRUNER_RETURN_IF_ERROR(InferAttached(s));
    }
    PropagateTightExtents(r_->state.mutable_stage(s));
    for (const Iterator& it : stage.iters) {
      if (stage.nodes[it.node].extent < 1) {
        return absl::InvalidArgumentError(absl::StrCat(
            "stage ", op.name, " loop ", stage.nodes[it.node].name, " has no known extent"));
      }
    }
    return absl::OkStatus();
  }

  absl::Status InferAttached(int s) {
    const Stage& stage = r_->state.stage(s);
    const Op& op = *stage.op;
    StageRegion& region = r_->regions[s];
    const int target = stage.attach_stage;
    if (target < 0 || target >= r_->state.num_stages() || target == s) {
      return absl::InvalidArgumentError(
          absl::StrCat("stage ", op.name, " is attached to invalid stage ", target));
    }
    PRUNER_RETURN_IF_ERROR(Infer(target));
    const Stage& t = r_->state.stage(target);
    const int attach_iter = t.IterIndexOfNode(stage.attach_node);
    if (attach_iter < 0 || !r_->regions[target].materialized) {
      return absl::InvalidArgumentError(absl::StrCat(
          "stage ", op.name, " is attached to a loop that stage ", t.op->name, " does not have"));
    }
    region.attached = true;
    region.attach_stage = target;
    region.attach_iter = attach_iter;
    region.enclosing_loops = r_->regions[target].enclosing_loops;
    for (int i = 0; i <= attach_iter; ++i) {
      region.enclosing_loops.push_back(r_->loops.id(target, i));
    }
    const std::set<int> enclosing(region.enclosing_loops.begin(), region.enclosing_loops.end());
    const int attach_var = r_->loops.id(target, attach_iter);

    if (region.scope == MemScope::kGlobal) {
      // TVM's default for an unscoped buffer inside thread bindings.
      int rank = -1;
      for (int v : region.enclosing_loops) rank = std::max(rank, ThreadRank(LoopAnnotation(v)));
      region.scope = rank < 0 ? MemScope::kGlobal
                              : (rank == 0 ? MemScope::kShared : MemScope::kLocal);
    }
    const int scope_rank = ScopeRank(region.scope);

    const VarRangeFn all = [this](int v) { return FullRange(v); };
    const VarRangeFn relaxed = [&](int v) -> std::optional<IntRange> {
      if (enclosing.count(v) > 0) {
        const int thread_rank = ThreadRank(LoopAnnotation(v));
        if (thread_rank < 0 || scope_rank > thread_rank) return std::nullopt;
      }
      return FullRange(v);
    };

    const int num_spatial = static_cast<int>(op.axes.size());
    std::vector<std::vector<SymInterval>> reads(num_spatial);
    std::vector<bool> failed(num_spatial, false);
    for (int c : bodies_->consumers(s)) {
      PRUNER_RETURN_IF_ERROR(Infer(c));
      const StageRegion& cr = r_->regions[c];
      const bool inside =
          c == target ||
          std::find(cr.enclosing_loops.begin(), cr.enclosing_loops.end(), attach_var) !=
              cr.enclosing_loops.end();
      if (!inside) {
        return absl::InvalidArgumentError(absl::StrCat(
            "stage ", op.name, " is computed at ", t.op->name, ".",
            t.iter_name(attach_iter), " but its consumer ", r_->state.stage(c).op->name,
            " is computed outside that loop"));
      }
      const Stage& cs = r_->state.stage(c);
      absl::StatusOr<RootIndexing> idx = ExpressRootsByLeaves(cs, [&](int node) -> Expr {
        const int it = cs.IterIndexOfNode(node);
        return it >= 0 ? r_->loops.var(c, it) : nullptr;
      });
      if (!idx.ok()) return idx.status();
      std::vector<Expr> axis_values;
      for (size_t i = 0; i < idx->root_values.size(); ++i) {
        axis_values.push_back(Add(cr.min[i], idx->root_values[i]));
      }
      VisitExpr(bodies_->body(c), [&](const ExprNode& n) {
        if (n.kind != ExprKind::kRead || n.id != op.id) return;
        for (int d = 0; d < num_spatial && d < static_cast<int>(n.args.size()); ++d) {
          Expr index = SubstituteVars(n.args[d], [&](int v) -> Expr {
            return v >= 0 && v < static_cast<int>(axis_values.size()) ? axis_values[v]
                                                                       : nullptr;
          });
          std::optional<SymInterval> si = EvalSymInterval(index, relaxed, all);
          if (si.has_value()) {
            reads[d].push_back(std::move(*si));
          } else {
            failed[d] = true;
          }
        }
      });
    }

    for (int d = 0; d < num_spatial; ++d) {
      const int64_t n = op.axes[d].extent;
      bool exact = !failed[d] && !reads[d].empty();
      SymInterval u;
      if (exact) {
        u = reads[d][0];
        for (const SymInterval& si : reads[d]) {
          if (si.key != u.key) {
            exact = false;
            break;
          }
          u.lo = std::min(u.lo, si.lo);
          u.hi = std::max(u.hi, si.hi);
        }
      }
      if (exact && u.base == nullptr) {
        // A constant region can be clamped to the domain: points outside are
        // never read (the consumer guards them).
        u.lo = std::clamp<int64_t>(u.lo, 0, n - 1);
        u.hi = std::clamp<int64_t>(u.hi, u.lo, n - 1);
      }
      if (exact && u.hi - u.lo + 1 > n) exact = false;  // no better than the domain
      if (!exact) {
        u = SymInterval{nullptr, "", 0, n - 1};
      }
      Expr min = u.base == nullptr ? IntImm(u.lo) : SimplifyIndex(Add(u.base, IntImm(u.lo)), all);
      const int64_t extent = u.hi - u.lo + 1;
      region.min[d] = min;
      region.extent[d] = extent;
      region.exact[d] = exact;
      if (u.base != nullptr) {
        std::optional<IntRange> b = BoundExpr(min, all);
        region.may_undershoot[d] = !b.has_value() || b->min < 0;
        region.may_overshoot[d] = !b.has_value() || b->max + extent > n;
      }
    }

    Stage* mutable_stage = r_->state.mutable_stage(s);
    for (size_t i = 0; i < region.extent.size(); ++i) {
      mutable_stage->nodes[i].extent = region.extent[i];
    }
    return absl::OkStatus();
  }

  BoundResult* r_;
  const InlinedBodies* bodies_;
  std::vector<int> visit_;  // 0 new, 1 in progress, 2 done
};

}  // namespace

absl::StatusOr<BoundResult> InferBoundDetailed(const State& state) {
  if (!state.IsConcrete()) {
    return absl::InvalidArgumentError("the state is not concrete: some split lengths are open");
  }
  PRUNER_ASSIGN_OR_RETURN(InlinedBodies bodies, InlinedBodies::Build(state));
  BoundResult result{state, LoopVarTable(state), {}};
  result.regions.resize(state.num_stages());
  RegionInferrer inferrer(&result, &bodies);
  for (int s = state.num_stages() - 1; s >= 0; --s) {
    PRUNER_RETURN_IF_ERROR(inferrer.Infer(s));
  }
  return result;
}

absl::StatusOr<State> InferBound(const State& state) {
  PRUNER_ASSIGN_OR_RETURN(BoundResult r, InferBoundDetailed(state));
  return std::move(r.state);
}

}  // namespace pruner
