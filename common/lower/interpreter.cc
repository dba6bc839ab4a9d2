#include "common/lower/interpreter.h"

#include <algorithm>
#include <array>
#include <limits>
#include <set>
#include <string>
#include <utility>

#include "absl/status/status.h"
#include "absl/strings/str_cat.h"
#include "common/base/absl_compat.h"
#include "common/base/status_macros.h"
#include "common/lower/interp_expr.h"
#include "common/lower/interp_stmt.h"

namespace pruner {
namespace {

using interp_internal::Access;
using interp_internal::BufferShape;
using interp_internal::CompileEnv;
using interp_internal::ExecPtr;
using interp_internal::IntScalar;
using interp_internal::kChunkCap;
using interp_internal::MakeAllocExec;
using interp_internal::MakeBarrierExec;
using interp_internal::MakeBindExec;
using interp_internal::MakeIfExec;
using interp_internal::MakeLoopExec;
using interp_internal::MakeSeqExec;
using interp_internal::MakeStoreNestExec;
using interp_internal::NodePtr;
using interp_internal::RunAll;
using interp_internal::RunCtx;
using interp_internal::StoreMode;
using interp_internal::StoreNestPlan;
using interp_internal::ThreadCtx;

// ------------------------------------------------------------- Compilation --

bool ReadsBuffer(const Expr& e, int buffer) {
  bool found = false;
  VisitExpr(e, [&](const ExprNode& n) { found |= n.kind == ExprKind::kRead && n.id == buffer; });
  return found;
}

int64_t SaturatingMul(int64_t a, int64_t b) {
  const int64_t limit = std::numeric_limits<int32_t>::max();
  if (a > limit / std::max<int64_t>(b, 1)) return limit;
  return a * b;
}

// A run of For (not thread-bound) and one-armed If statements ending in a
// Store; single-statement Seqs are looked through.
bool PerfectChain(const Stmt& s, std::vector<const StmtNode*>* elements,
                  const StmtNode** store) {
  const StmtNode* cur = s.get();
  while (cur != nullptr) {
    if (cur->kind == StmtKind::kSeq && cur->seq.size() == 1) {
      cur = cur->seq[0].get();
    } else if (cur->kind == StmtKind::kStore) {
      *store = cur;
      return true;
    } else if ((cur->kind == StmtKind::kFor && !IsThreadBindingKind(cur->for_kind)) ||
               (cur->kind == StmtKind::kIfThenElse && cur->else_body == nullptr)) {
      elements->push_back(cur);
      cur = cur->body.get();
    } else {
      return false;
    }
  }
  return false;
}

class Compiler {
 public:
  Compiler(const Program& program, const std::vector<BufferShape>* shapes)
      : program_(program) {
    scalar_env_.buffers = shapes;
    scalar_env_.num_vars = program.num_vars();
  }

  absl::StatusOr<ExecPtr> Compile(const Stmt& s) {
    if (s == nullptr) return MakeSeqExec({});
    std::vector<const StmtNode*> chain;
    const StmtNode* store = nullptr;
    if (PerfectChain(s, &chain, &store)) {
      int64_t below = 1;  // points of the flattened loops under chain[0]
      for (size_t i = 1; i < chain.size(); ++i) {
        if (chain[i]->kind == StmtKind::kFor) below = SaturatingMul(below, chain[i]->extent);
      }
      if (below <= kChunkCap) return CompileNest(chain, *store);
    }
    switch (s->kind) {
      case StmtKind::kSeq: {
        std::vector<ExecPtr> children;
        for (const Stmt& c : s->seq) {
          PRUNER_ASSIGN_OR_RETURN(ExecPtr e, Compile(c));
          children.push_back(std::move(e));
        }
        return MakeSeqExec(std::move(children));
      }
      case StmtKind::kFor: {
        if (s->var < 0 || s->var >= program_.num_vars()) {
          return absl::InvalidArgumentError(absl::StrCat("loop ", s->var_name, " has no variable"));
        }
        PRUNER_ASSIGN_OR_RETURN(ExecPtr body, Compile(s->body));
        if (IsThreadBindingKind(s->for_kind)) {
          return MakeBindExec(s->var, s->extent, IsBlockKind(s->for_kind),
                              BindingDim(s->for_kind), std::move(body));
        }
        return MakeLoopExec(s->var, s->extent, std::move(body));
      }
      case StmtKind::kIfThenElse: {
        PRUNER_ASSIGN_OR_RETURN(IntScalar cond, IntScalar::Compile(s->condition, scalar_env_));
        PRUNER_ASSIGN_OR_RETURN(ExecPtr then_body, Compile(s->body));
        ExecPtr else_exec;
        if (s->else_body != nullptr) {
          PRUNER_ASSIGN_OR_RETURN(ExecPtr else_body, Compile(s->else_body));
          else_exec = std::move(else_body);
        }
        return MakeIfExec(std::move(cond), std::move(then_body), std::move(else_exec));
      }
      case StmtKind::kStore:
        return CompileNest({}, *s);
      case StmtKind::kBarrier:
        return MakeBarrierExec();
      case StmtKind::kAllocate: {
        PRUNER_ASSIGN_OR_RETURN(ExecPtr body, Compile(s->body));
        const Buffer& b = program_.buffer(s->buffer);
        const bool per_block =
            program_.target == DeviceKind::kGpu && b.scope == MemScope::kShared;
        return MakeAllocExec(b.id, b.num_elements(), per_block, std::move(body));
      }
    }
    return absl::InternalError("unknown statement kind");
  }

 private:
  absl::StatusOr<ExecPtr> CompileNest(const std::vector<const StmtNode*>& chain,
                                      const StmtNode& store) {
    auto plan = std::make_unique<StoreNestPlan>();
    std::vector<const StmtNode*> guards;
    for (const StmtNode* e : chain) {
      if (e->kind == StmtKind::kFor) {
        if (e->var < 0 || e->var >= program_.num_vars()) {
          return absl::InvalidArgumentError(absl::StrCat("loop ", e->var_name, " has no variable"));
        }
        plan->vars.push_back(e->var);
        plan->extents.push_back(e->extent);
      } else {
        guards.push_back(e);
      }
    }
    for (size_t k = 1; k < plan->extents.size(); ++k) plan->inner_points *= plan->extents[k];
    int64_t positions = 1;
    if (!plan->vars.empty()) {
      plan->chunk0 = std::clamp<int64_t>(kChunkCap / plan->inner_points, 1, plan->extents[0]);
      positions = plan->chunk0 * plan->inner_points;
    }
    // Row-major values of the flattened loops at each chunk position.
    const size_t m = plan->vars.size();
    plan->values.assign(m, std::vector<int32_t>(positions));
    for (int64_t p = 0; p < positions; ++p) {
      int64_t rest = p;
      for (size_t k = m; k-- > 0;) {
        const int64_t len = k == 0 ? plan->chunk0 : plan->extents[k];
        plan->values[k][p] = static_cast<int32_t>(rest % len);
        rest /= len;
      }
    }
    CompileEnv env = scalar_env_;
    env.flat_vars = plan->vars;
    env.flat_values = &plan->values;
    env.num_positions = static_cast<int>(positions);

    for (const StmtNode* g : guards) {
      PRUNER_ASSIGN_OR_RETURN(NodePtr mask, interp_internal::CompileExpr(g->condition, env));
      if (mask->is_float()) return absl::InvalidArgumentError("a float guard condition");
      plan->masks.push_back(std::move(mask));
    }
    absl::StatusOr<std::unique_ptr<Access>> dst = Access::Compile(store.buffer, store.indices, env);
    if (!dst.ok()) return dst.status();
    plan->dst = *std::move(dst);

    Expr value = store.value;
    if (!IsFloat(value->dtype)) value = Cast(DType::kFloat32, value);
    plan->mode = StoreMode::kPointwise;
    if (!ReadsBuffer(value, store.buffer)) {
      plan->mode = StoreMode::kAssign;
    } else if (value->kind == ExprKind::kBinary) {
      const BinaryOp op = value->binary_op();
      const Expr& acc = value->args[0];
      const Expr& rest = value->args[1];
      const bool combinable = op == BinaryOp::kAdd || op == BinaryOp::kMul ||
                              op == BinaryOp::kMin || op == BinaryOp::kMax;
      if (combinable && acc->kind == ExprKind::kRead && acc->id == store.buffer &&
          StructurallyEqual(acc->args, store.indices) && !ReadsBuffer(rest, store.buffer)) {
        plan->mode = StoreMode::kCombine;
        plan->combine = op;
        value = rest;
      }
    }
    PRUNER_ASSIGN_OR_RETURN(NodePtr node, interp_internal::CompileExpr(value, env));
    if (!node->is_float()) return absl::InvalidArgumentError("a store value is not float");
    plan->value = std::move(node);
    plan->context = absl::StrCat(
        "stage ",
        store.stage >= 0 && store.stage < static_cast<int>(program_.stage_names.size())
            ? program_.stage_names[store.stage]
            : std::string("?"));
    return MakeStoreNestExec(std::move(plan));
  }

  const Program& program_;
  CompileEnv scalar_env_;
};

// Buffers a kernel touches must be global or allocated inside it.
absl::Status CheckKernelBuffers(const Program& program, const Kernel& kernel,
                                const std::set<int>& allocated) {
  absl::Status status = absl::OkStatus();
  auto check = [&](int b) {
    if (!status.ok()) return;
    if (b < 0 || b >= static_cast<int>(program.buffers.size())) {
      status = absl::InvalidArgumentError(absl::StrCat("kernel ", kernel.name,
                                                       " accesses unknown buffer ", b));
    } else if (program.buffer(b).attached && allocated.count(b) == 0) {
      status = absl::InvalidArgumentError(absl::StrCat(
          "kernel ", kernel.name, " accesses ", program.buffer(b).name,
          " which it does not allocate"));
    }
  };
  VisitStmt(kernel.body, [&](const StmtNode& n) {
    auto reads = [&](const Expr& e) {
      if (e == nullptr) return;
      VisitExpr(e, [&](const ExprNode& x) {
        if (x.kind == ExprKind::kRead) check(x.id);
      });
    };
    if (n.kind == StmtKind::kStore) {
      check(n.buffer);
      reads(n.value);
      for (const Expr& i : n.indices) reads(i);
    }
    if (n.kind == StmtKind::kIfThenElse) reads(n.condition);
  });
  return status;
}

}  // namespace

// ---------------------------------------------------------------- Program --

struct CompiledProgram::Impl {
  struct KernelPlan {
    std::string name;
    ExecPtr body;
    std::array<int64_t, 3> grid = {1, 1, 1};
    std::array<int64_t, 3> block = {1, 1, 1};
    // Per buffer id: offset in the block's shared arena or in each thread's
    // local arena, -1 when the kernel does not allocate it there.
    std::vector<int64_t> shared_offset, local_offset;
    int64_t shared_elements = 0;
    int64_t local_elements = 0;
  };

  DeviceKind target = DeviceKind::kCpu;
  int num_vars = 0;
  std::vector<Buffer> buffers;  // without statement trees
  std::vector<BufferShape> shapes;
  std::vector<int> inputs, outputs;
  std::vector<KernelPlan> kernels;

  absl::Status RunKernel(const KernelPlan& k, std::vector<std::vector<float>>& global) const;
};

CompiledProgram::CompiledProgram(std::unique_ptr<Impl> impl) : impl_(std::move(impl)) {}
CompiledProgram::CompiledProgram(CompiledProgram&&) noexcept = default;
CompiledProgram& CompiledProgram::operator=(CompiledProgram&&) noexcept = default;
CompiledProgram::~CompiledProgram() = default;

absl::StatusOr<CompiledProgram> CompiledProgram::Compile(const Program& program) {
  auto impl = std::make_unique<Impl>();
  impl->target = program.target;
  impl->num_vars = program.num_vars();
  impl->inputs = program.inputs;
  impl->outputs = program.outputs;
  for (size_t b = 0; b < program.buffers.size(); ++b) {
    const Buffer& buf = program.buffers[b];
    if (buf.id != static_cast<int>(b)) {
      return absl::InvalidArgumentError(absl::StrCat("buffer ", buf.name, " has id ", buf.id,
                                                     " at position ", b));
    }
    impl->buffers.push_back(buf);
    BufferShape shape;
    shape.name = buf.name;
    shape.shape = buf.shape;
    shape.strides.assign(buf.shape.size(), 1);
    for (size_t d = buf.shape.size(); d-- > 1;) {
      shape.strides[d - 1] = shape.strides[d] * buf.shape[d];
    }
    impl->shapes.push_back(std::move(shape));
  }
  Compiler compiler(program, &impl->shapes);
  for (const Kernel& k : program.kernels) {
    Impl::KernelPlan plan;
    plan.name = k.name;
    plan.grid = k.grid;
    plan.block = k.block;
    plan.shared_offset.assign(program.buffers.size(), -1);
    plan.local_offset.assign(program.buffers.size(), -1);
    std::set<int> allocated;
    absl::Status status = absl::OkStatus();
    VisitStmt(k.body, [&](const StmtNode& n) {
      if (n.kind != StmtKind::kAllocate || !status.ok()) return;
      const Buffer& b = program.buffer(n.buffer);
      if (!allocated.insert(b.id).second) {
        status = absl::InvalidArgumentError(
            absl::StrCat("kernel ", k.name, " allocates ", b.name, " twice"));
        return;
      }
      if (program.target == DeviceKind::kGpu && b.scope == MemScope::kShared) {
        plan.shared_offset[b.id] = plan.shared_elements;
        plan.shared_elements += b.num_elements();
      } else {
        plan.local_offset[b.id] = plan.local_elements;
        plan.local_elements += b.num_elements();
      }
    });
    if (!status.ok()) return status;
    PRUNER_RETURN_IF_ERROR(CheckKernelBuffers(program, k, allocated));
    absl::StatusOr<ExecPtr> body = compiler.Compile(k.body);
    if (!body.ok()) {
      return absl::InvalidArgumentError(
          absl::StrCat("kernel ", k.name, ": ", body.status().message()));
    }
    plan.body = *std::move(body);
    impl->kernels.push_back(std::move(plan));
  }
  return CompiledProgram(std::move(impl));
}

absl::Status CompiledProgram::Impl::RunKernel(const KernelPlan& k,
                                              std::vector<std::vector<float>>& global) const {
  const int64_t num_threads = k.block[0] * k.block[1] * k.block[2];
  const size_t num_buffers = buffers.size();
  RunCtx rc;
  rc.threads.resize(num_threads);
  std::vector<int64_t> vars(num_threads * std::max(num_vars, 1), 0);
  std::vector<float*> views(num_threads * num_buffers, nullptr);
  std::vector<float> shared(k.shared_elements);
  std::vector<float> local(num_threads * k.local_elements);
  int64_t t = 0;
  for (int64_t z = 0; z < k.block[2]; ++z) {
    for (int64_t y = 0; y < k.block[1]; ++y) {
      for (int64_t x = 0; x < k.block[0]; ++x, ++t) {
        ThreadCtx& ctx = rc.threads[t];
        ctx.tid = {x, y, z};
        ctx.vars = vars.data() + t * std::max(num_vars, 1);
        ctx.bufs = views.data() + t * num_buffers;
        for (size_t b = 0; b < num_buffers; ++b) {
          if (k.shared_offset[b] >= 0) {
            ctx.bufs[b] = shared.data() + k.shared_offset[b];
          } else if (k.local_offset[b] >= 0) {
            ctx.bufs[b] = local.data() + t * k.local_elements + k.local_offset[b];
          } else if (!buffers[b].attached) {
            ctx.bufs[b] = global[b].data();
          }
        }
      }
    }
  }
  for (int64_t bz = 0; bz < k.grid[2]; ++bz) {
    for (int64_t by = 0; by < k.grid[1]; ++by) {
      for (int64_t bx = 0; bx < k.grid[0]; ++bx) {
        for (ThreadCtx& ctx : rc.threads) ctx.bid = {bx, by, bz};
        absl::Status st = RunAll(*k.body, rc);
        if (!st.ok()) {
          return absl::Status(st.code(), absl::StrCat("kernel ", k.name, " block (", bx, ", ",
                                                      by, ", ", bz, "): ", st.message()));
        }
      }
    }
  }
  return absl::OkStatus();
}

absl::StatusOr<std::vector<Tensor>> CompiledProgram::Run(const std::vector<Tensor>& inputs) const {
  const Impl& p = *impl_;
  if (inputs.size() != p.inputs.size()) {
    return absl::InvalidArgumentError(absl::StrCat("the program takes ", p.inputs.size(),
                                                   " inputs, got ", inputs.size()));
  }
  std::vector<std::vector<float>> global(p.buffers.size());
  for (const Buffer& b : p.buffers) {
    if (!b.attached) {
      global[b.id].assign(b.num_elements(), std::numeric_limits<float>::quiet_NaN());
    }
  }
  for (size_t i = 0; i < inputs.size(); ++i) {
    const Buffer& b = p.buffers[p.inputs[i]];
    PRUNER_ASSIGN_OR_RETURN(std::vector<float> data, InputInBufferLayout(b, inputs[i]));
    global[b.id] = std::move(data);
  }
  for (const Impl::KernelPlan& k : p.kernels) {
    PRUNER_RETURN_IF_ERROR(p.RunKernel(k, global));
  }
  std::vector<Tensor> outputs;
  for (int id : p.outputs) {
    Tensor t;
    t.dtype = p.buffers[id].dtype;
    t.shape = p.buffers[id].shape;
    t.data = global[id];
    outputs.push_back(std::move(t));
  }
  return outputs;
}

absl::StatusOr<std::vector<Tensor>> RunProgram(const Program& program,
                                               const std::vector<Tensor>& inputs) {
  PRUNER_ASSIGN_OR_RETURN(CompiledProgram compiled, CompiledProgram::Compile(program));
  return compiled.Run(inputs);
}

}  // namespace pruner
