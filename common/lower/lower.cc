#include "common/lower/lower.h"

#include "common/base/status_macros.h"
#include "common/lower/layout_order.h"

#include <map>
#include <optional>
#include <set>
#include <string>
#include <utility>
#include <vector>

#include "absl/status/status.h"
#include "absl/strings/str_cat.h"
#include "common/base/absl_compat.h"
#include "common/lower/bound_inference.h"
#include "common/lower/index_simplify.h"
#include "common/lower/inlined_bodies.h"
#include "common/lower/kernel_checks.h"

namespace pruner {
namespace {

ForKind ForKindOf(IterAnnotation a) {
  switch (a) {
    case IterAnnotation::kNone: return ForKind::kSerial;
    case IterAnnotation::kUnroll: return ForKind::kUnrolled;
    case IterAnnotation::kVectorize: return ForKind::kVectorized;
    case IterAnnotation::kParallel: return ForKind::kParallel;
    case IterAnnotation::kVThread: return ForKind::kVThread;
    case IterAnnotation::kBlockX: return ForKind::kBlockX;
    case IterAnnotation::kBlockY: return ForKind::kBlockY;
    case IterAnnotation::kBlockZ: return ForKind::kBlockZ;
    case IterAnnotation::kThreadX: return ForKind::kThreadX;
    case IterAnnotation::kThreadY: return ForKind::kThreadY;
    case IterAnnotation::kThreadZ: return ForKind::kThreadZ;
  }
  return ForKind::kSerial;
}

Expr AndAll(const std::vector<Expr>& conds) {
  Expr out;
  for (const Expr& c : conds) out = out == nullptr ? c : And(out, c);
  return out;
}

bool UsesNegativeVar(const Expr& e) {
  bool found = false;
  VisitExpr(e, [&](const ExprNode& n) { found |= n.kind == ExprKind::kVar && n.id < 0; });
  return found;
}

class Lowerer {
 public:
  Lowerer(const State& state, BoundResult bound, InlinedBodies bodies,
          const DeviceProfile& device)
      : original_(state), b_(std::move(bound)), bodies_(std::move(bodies)), device_(device) {
    program_.target = device.kind;
    for (int v = 0; v < b_.loops.size(); ++v) {
      program_.var_names.push_back(b_.loops.name(v));
      var_extent_.push_back(
          b_.state.stage(b_.loops.stage_of(v)).iter_extent(b_.loops.iter_of(v)));
    }
    ranges_ = [this](int v) -> std::optional<IntRange> {
      if (v < 0 || v >= static_cast<int>(var_extent_.size()) || var_extent_[v] < 1) {
        return std::nullopt;
      }
      return IntRange{0, var_extent_[v] - 1};
    };
    for (int s = 0; s < b_.state.num_stages(); ++s) {
      const StageRegion& r = b_.regions[s];
      if (r.attached) attached_at_[{r.attach_stage, r.attach_iter}].push_back(s);
    }
  }

  absl::StatusOr<Program> Run() {
    PRUNER_RETURN_IF_ERROR(CheckAnnotations());
    PRUNER_RETURN_IF_ERROR(CreateBuffers());
    std::vector<int> roots;
    for (int s = 0; s < b_.state.num_stages(); ++s) {
      if (b_.regions[s].materialized && !b_.regions[s].attached) roots.push_back(s);
    }
    if (program_.target == DeviceKind::kGpu) {
      for (int s : roots) {
        PRUNER_ASSIGN_OR_RETURN(Stmt nest, StageNest(s));
        Kernel k;
        k.name = b_.state.stage(s).op->name;
        k.root_stage = s;
        k.body = std::move(nest);
        program_.kernels.push_back(std::move(k));
      }
    } else {
      std::vector<Stmt> nests;
      for (int s : roots) {
        PRUNER_ASSIGN_OR_RETURN(Stmt nest, StageNest(s));
        nests.push_back(std::move(nest));
      }
      Kernel k;
      k.name = "main";
      k.body = MakeSeq(std::move(nests));
      program_.kernels.push_back(std::move(k));
    }
    for (Kernel& k : program_.kernels) {
      PRUNER_RETURN_IF_ERROR(FinalizeKernel(program_, &k));
    }
    PRUNER_RETURN_IF_ERROR(CheckProgramLimits(program_, device_));
    OrderBufferDimsByLoops(*original_.original_dag(), &program_);
    return std::move(program_);
  }

 private:
  const Stage& stage(int s) const { return b_.state.stage(s); }

  absl::Status CheckAnnotations() const {
    for (int s = 0; s < b_.state.num_stages(); ++s) {
      const Stage& st = stage(s);
      if (!b_.regions[s].materialized) continue;
      for (int i = 0; i < static_cast<int>(st.iters.size()); ++i) {
        const IterAnnotation a = st.iters[i].annotation;
        const bool gpu = program_.target == DeviceKind::kGpu;
        if (!gpu && IsThreadBinding(a)) {
          return absl::InvalidArgumentError(absl::StrCat(
              "invalid schedule: stage ", st.op->name, ": loop ", st.iter_name(i),
              " is bound to ", ToAbsl(AnnotationName(a)), " but the target is a CPU"));
        }
        if (gpu && a == IterAnnotation::kParallel) {
          return absl::InvalidArgumentError(
              absl::StrCat("invalid schedule: stage ", st.op->name, ": parallel loop ",
                           st.iter_name(i), " on a GPU (bind it to a thread axis instead)"));
        }
      }
    }
    return absl::OkStatus();
  }

  absl::Status CreateBuffers() {
    const ComputeDag& original = *original_.original_dag();
    std::set<int> output_tensors;
    for (int i : original.OutputIndices()) output_tensors.insert(original.op(i).id);
    program_.stage_buffers.assign(b_.state.num_stages(), -1);
    for (int s = 0; s < b_.state.num_stages(); ++s) {
      const Stage& st = stage(s);
      const Op& op = *st.op;
      const StageRegion& r = b_.regions[s];
      program_.stage_names.push_back(op.name);
      if (!st.is_placeholder() && !r.materialized) continue;  // inlined
      Buffer buf;
      buf.id = static_cast<int>(program_.buffers.size());
      buf.name = op.name;
      buf.dtype = op.dtype;
      buf.tensor_id = op.id;
      if (st.is_placeholder()) {
        buf.shape = op.shape;
        buf.role = BufferRole::kInput;
      } else {
        buf.stage = s;
        buf.scope = r.scope;
        buf.role = output_tensors.count(op.id) > 0 ? BufferRole::kOutput
                                                   : BufferRole::kIntermediate;
        if (r.attached) {
          if (buf.role == BufferRole::kOutput) {
            return absl::InvalidArgumentError(absl::StrCat(
                "invalid schedule: stage ", op.name,
                ": a workload output must be computed at root, not at a loop"));
          }
          buf.attached = true;
          for (size_t d = 0; d < op.axes.size(); ++d) {
            buf.shape.push_back(r.extent[d]);
            buf.region_min.push_back(SimplifyIndex(r.min[d], ranges_));
          }
        } else {
          buf.shape = op.shape;
          if (program_.target == DeviceKind::kGpu && buf.scope != MemScope::kGlobal) {
            return absl::InvalidArgumentError(absl::StrCat(
                "invalid schedule: stage ", op.name, ": scope ", MemScopeName(buf.scope),
                " needs the stage to be computed inside a kernel, but it is computed at root"));
          }
        }
      }
      if (buf.region_min.empty()) buf.region_min.assign(buf.shape.size(), IntImm(0));
      program_.stage_buffers[s] = buf.id;
      tensor_buffer_[op.id] = buf.id;
      program_.buffers.push_back(std::move(buf));
    }
    for (int i : original.InputIndices()) {
      auto it = tensor_buffer_.find(original.op(i).id);
      if (it == tensor_buffer_.end()) {
        return absl::InternalError(absl::StrCat("input ", original.op(i).name, " has no buffer"));
      }
      program_.inputs.push_back(it->second);
    }
    for (int i : original.OutputIndices()) {
      auto it = tensor_buffer_.find(original.op(i).id);
      if (it == tensor_buffer_.end()) {
        return absl::InvalidArgumentError(absl::StrCat(
            "invalid schedule: output ", original.op(i).name, " is not materialized"));
      }
      program_.outputs.push_back(it->second);
    }
    return absl::OkStatus();
  }

  int NewVar(std::string name, int64_t extent) {
    program_.var_names.push_back(std::move(name));
    var_extent_.push_back(extent);
    return static_cast<int>(var_extent_.size()) - 1;
  }

  // Loops of extent 1 vanish unless they bind a hardware index, which the
  // launch configuration reads.
  bool Emitted(int s, int i) const {
    const IterAnnotation a = stage(s).iters[i].annotation;
    return stage(s).iter_extent(i) > 1 ||
           (IsThreadBinding(a) && a != IterAnnotation::kVThread);
  }

  // The stage's body at global axis values, with reads mapped to buffers.
  absl::StatusOr<Expr> StageValue(int s, const std::vector<Expr>& axis_values) {
    Expr value = SubstituteVars(bodies_.body(s), [&](int v) -> Expr {
      return v >= 0 && v < static_cast<int>(axis_values.size()) ? axis_values[v] : nullptr;
    });
    absl::Status error;
    value = RewriteReads(value, [&](const ExprNode& read) -> Expr {
      auto it = tensor_buffer_.find(read.id);
      if (it == tensor_buffer_.end()) {
        error = absl::InternalError(absl::StrCat("tensor ", read.name, " has no buffer"));
        return Read(read.id, read.name, read.dtype, read.args);
      }
      const Buffer& buf = program_.buffers[it->second];
      std::vector<Expr> indices;
      for (size_t d = 0; d < read.args.size(); ++d) {
        indices.push_back(SimplifyIndex(Sub(read.args[d], buf.region_min[d]), ranges_));
      }
      return Read(buf.id, buf.name, buf.dtype, std::move(indices));
    });
    if (!error.ok()) return error;
    return SimplifyExpr(value, ranges_);
  }

  // Global axis values, the stage's own (region-relative) buffer indices,
  // and the guards a store at those points needs.
  struct PointIndexing {
    std::vector<Expr> global;
    std::vector<Expr> local;
    std::vector<Expr> guards;
  };

  absl::StatusOr<PointIndexing> IndexPoint(int s, const std::vector<Expr>& leaf) {
    const Stage& st = stage(s);
    const StageRegion& r = b_.regions[s];
    absl::StatusOr<RootIndexing> idx = ExpressRootsByLeaves(st, [&](int node) -> Expr {
      const int i = st.IterIndexOfNode(node);
      return i >= 0 ? leaf[i] : nullptr;
    });
    if (!idx.ok()) return idx.status();
    PointIndexing out;
    const size_t num_spatial = st.op->axes.size();
    for (size_t a = 0; a < idx->root_values.size(); ++a) {
      out.global.push_back(SimplifyIndex(Add(r.min[a], idx->root_values[a]), ranges_));
      if (a < num_spatial) out.local.push_back(SimplifyIndex(idx->root_values[a], ranges_));
    }
    std::vector<Expr> guards = idx->guards;
    for (size_t a = 0; a < num_spatial; ++a) {
      if (r.may_overshoot[a]) {
        guards.push_back(Compare(CompareOp::kLT, out.global[a],
                                 IntImm(st.op->axes[a].extent, out.global[a]->dtype)));
      }
      if (r.may_undershoot[a]) {
        guards.push_back(
            Compare(CompareOp::kGE, out.global[a], IntImm(0, out.global[a]->dtype)));
      }
    }
    for (const Expr& g : guards) {
      Expr simplified = SimplifyExpr(g, ranges_);
      bool constant = false;
      if (simplified->kind == ExprKind::kIntImm) constant = simplified->int_value != 0;
      if (!constant) out.guards.push_back(simplified);
    }
    return out;
  }

  Stmt Guarded(const std::vector<Expr>& guards, Stmt body) {
    return guards.empty() ? body : MakeIf(AndAll(guards), std::move(body));
  }

  std::shared_ptr<StmtNode> NewFor(int var, int s, int i, Stmt body, bool init_copy) {
    auto n = std::make_shared<StmtNode>();
    n->kind = StmtKind::kFor;
    n->var = var;
    n->var_name = program_.var_names[var];
    n->extent = stage(s).iter_extent(i);
    n->for_kind = ForKindOf(stage(s).iters[i].annotation);
    n->stage = s;
    n->iter = i;
    n->init_copy = init_copy;
    n->body = std::move(body);
    return n;
  }

  // The reduction's init nest: the identity stored at every spatial point of
  // the loops from `first_reduce` inward, re-created with fresh variables.
  absl::StatusOr<Stmt> InitNest(int s, int first_reduce, const std::vector<Expr>& leaf) {
    const Stage& st = stage(s);
    const int n = static_cast<int>(st.iters.size());
    std::vector<Expr> init_leaf = leaf;
    std::vector<int> init_var(n, -1);
    for (int j = first_reduce; j < n; ++j) {
      if (st.iter_kind(j) != IterKind::kSpatial) {
        // Reduce loops do not exist in the init nest; a placeholder variable
        // marks the guards that depend on them.
        init_leaf[j] = Var(-2 - j, "reduce_placeholder");
      } else if (Emitted(s, j)) {
        init_var[j] = NewVar(absl::StrCat(program_.var_names[b_.loops.id(s, j)], ".init"),
                             st.iter_extent(j));
        init_leaf[j] = Var(init_var[j], program_.var_names[init_var[j]]);
      } else {
        init_leaf[j] = IntImm(0);
      }
    }
    PRUNER_ASSIGN_OR_RETURN(PointIndexing point, IndexPoint(s, init_leaf));
    std::vector<Expr> guards;
    for (const Expr& g : point.guards) {
      if (!UsesNegativeVar(g)) guards.push_back(g);
    }
    const Op& op = *st.op;
    Stmt body = Guarded(guards, MakeStore(program_.stage_buffers[s], point.local,
                                          FloatImm(ReduceIdentity(op.reduce), op.dtype),
                                          StoreRole::kReduceInit, s));
    for (int j = n - 1; j >= first_reduce; --j) {
      if (init_var[j] >= 0) body = NewFor(init_var[j], s, j, body, /*init_copy=*/true);
    }
    return body;
  }

  // Stages attached at loop (s, i), each preceded by its Allocate, then
  // `rest`; runs of shared stages are fenced by barriers on GPUs.
  absl::StatusOr<Stmt> WithAttached(int s, int i, Stmt rest) {
    auto it = attached_at_.find({s, i});
    if (it == attached_at_.end()) return rest;
    const std::vector<int>& attached = it->second;
    std::vector<Stmt> parts;
    const bool gpu = program_.target == DeviceKind::kGpu;
    bool in_shared_run = false;
    for (int p : attached) {
      const bool shared = gpu && b_.regions[p].scope == MemScope::kShared;
      if (shared && !in_shared_run) parts.push_back(MakeBarrier());
      if (!shared && in_shared_run) parts.push_back(MakeBarrier());
      in_shared_run = shared;
      PRUNER_ASSIGN_OR_RETURN(Stmt nest, StageNest(p));
      parts.push_back(std::move(nest));
    }
    if (in_shared_run) parts.push_back(MakeBarrier());
    parts.push_back(std::move(rest));
    Stmt body = MakeSeq(std::move(parts));
    for (auto p = attached.rbegin(); p != attached.rend(); ++p) {
      body = MakeAllocate(program_.stage_buffers[*p], std::move(body));
    }
    return body;
  }

  // The loop nest of stage s with everything attached to it.
  absl::StatusOr<Stmt> StageNest(int s) {
    const Stage& st = stage(s);
    const Op& op = *st.op;
    const int n = static_cast<int>(st.iters.size());
    const bool reduce = st.has_reduce();
    if (reduce && op.reduce == ReduceKind::kNone) {
      return absl::InvalidArgumentError(
          absl::StrCat("stage ", op.name, " has reduce axes but no reduction kind"));
    }
    int first_reduce = n;
    for (int i = 0; i < n; ++i) {
      const IterKind kind = st.iter_kind(i);
      if (kind == IterKind::kSpatial) continue;
      if (kind == IterKind::kMixed) {
        return absl::UnimplementedError(absl::StrCat(
            "stage ", op.name, ": loop ", st.iter_name(i),
            " fuses spatial and reduce iterators; lowering such a loop is not supported"));
      }
      const IterAnnotation a = st.iters[i].annotation;
      if (IsThreadBinding(a) && a != IterAnnotation::kVThread) {
        return absl::UnimplementedError(absl::StrCat(
            "stage ", op.name, ": reduce loop ", st.iter_name(i), " is bound to ",
            ToAbsl(AnnotationName(a)), " (cross-thread reduction is not supported yet)"));
      }
      if (first_reduce == n) first_reduce = i;
    }

    std::vector<Expr> leaf(n);
    for (int i = 0; i < n; ++i) {
      leaf[i] = Emitted(s, i) ? b_.loops.var(s, i) : IntImm(0);
    }
    PRUNER_ASSIGN_OR_RETURN(PointIndexing point, IndexPoint(s, leaf));
    PRUNER_ASSIGN_OR_RETURN(Expr value, StageValue(s, point.global));
    const int buffer = program_.stage_buffers[s];
    Stmt store;
    if (reduce) {
      Expr acc = Read(buffer, op.name, op.dtype, point.local);
      Expr combined = op.reduce == ReduceKind::kMax ? Max(acc, value) : Add(acc, value);
      store = MakeStore(buffer, point.local, combined, StoreRole::kReduceUpdate, s);
    } else {
      store = MakeStore(buffer, point.local, value, StoreRole::kCompute, s);
    }
    Stmt init;
    if (reduce) {
      PRUNER_ASSIGN_OR_RETURN(Stmt init_nest, InitNest(s, first_reduce, leaf));
      init = std::move(init_nest);
    }

    Stmt body = Guarded(point.guards, store);
    std::shared_ptr<StmtNode> outermost_for;
    for (int i = n - 1; i >= 0; --i) {
      if (reduce && i + 1 == first_reduce) body = MakeSeq({init, body});
      PRUNER_ASSIGN_OR_RETURN(Stmt with, WithAttached(s, i, body));
      body = std::move(with);
      if (Emitted(s, i)) {
        outermost_for = NewFor(b_.loops.id(s, i), s, i, body, /*init_copy=*/false);
        body = outermost_for;
      }
    }
    if (reduce && first_reduce == 0) body = MakeSeq({init, body});
    // The auto_unroll_max_step pragma annotates the stage's outermost loop
    // (Ansor puts it on iterator 0).
    if (outermost_for != nullptr && st.auto_unroll_max_step > 0) {
      outermost_for->auto_unroll_max_step = st.auto_unroll_max_step;
    }
    return body;
  }

  const State& original_;
  BoundResult b_;
  InlinedBodies bodies_;
  const DeviceProfile& device_;
  Program program_;
  std::vector<int64_t> var_extent_;
  VarRangeFn ranges_;
  std::map<std::pair<int, int>, std::vector<int>> attached_at_;
  std::map<int, int> tensor_buffer_;
};

}  // namespace

absl::StatusOr<Program> Lower(const State& state, const DeviceProfile& device) {
  PRUNER_ASSIGN_OR_RETURN(BoundResult bound, InferBoundDetailed(state));
  PRUNER_ASSIGN_OR_RETURN(InlinedBodies bodies, InlinedBodies::Build(bound.state));
  return Lowerer(state, std::move(bound), std::move(bodies), device).Run();
}

}  // namespace pruner
