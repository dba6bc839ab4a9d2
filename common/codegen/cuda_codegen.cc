#include "common/codegen/cuda_codegen.h"

#include <algorithm>
#include <limits>
#include <set>
#include <utility>

#include "absl/status/status.h"
#include "absl/strings/str_cat.h"
#include "common/base/status_macros.h"
#include "common/codegen/cuda_expr.h"
#include "common/codegen/cuda_names.h"

namespace pruner {
namespace {

using cuda_internal::CudaExprPrinter;
using cuda_internal::CudaNameTable;

// Statements the nest below s runs, loops multiplied out, saturating: TVM's
// measure for "is this loop small enough to unroll completely".
int64_t StepCount(const Stmt& s) {
  constexpr int64_t kCap = std::numeric_limits<int64_t>::max() / 4;
  if (s == nullptr) return 0;
  switch (s->kind) {
    case StmtKind::kStore:
    case StmtKind::kBarrier: return 1;
    case StmtKind::kSeq: {
      int64_t n = 0;
      for (const Stmt& c : s->seq) n = std::min(kCap, n + StepCount(c));
      return n;
    }
    case StmtKind::kFor: {
      const int64_t body = StepCount(s->body);
      if (body != 0 && s->extent > kCap / body) return kCap;
      return s->extent * body;
    }
    case StmtKind::kIfThenElse: return std::min(kCap, StepCount(s->body) + StepCount(s->else_body));
    case StmtKind::kAllocate: return StepCount(s->body);
  }
  return 0;
}

const char* BindingIndex(ForKind kind) {
  switch (kind) {
    case ForKind::kBlockX: return "blockIdx.x";
    case ForKind::kBlockY: return "blockIdx.y";
    case ForKind::kBlockZ: return "blockIdx.z";
    case ForKind::kThreadX: return "threadIdx.x";
    case ForKind::kThreadY: return "threadIdx.y";
    case ForKind::kThreadZ: return "threadIdx.z";
    default: return nullptr;
  }
}

// Prints one kernel's body. Loop variables get their C names when their
// loop opens, so a variable used outside its loop is reported, not printed.
class KernelEmitter {
 public:
  KernelEmitter(const Program& program, const Kernel& kernel, CudaNameTable* names,
                const std::vector<std::string>& buffer_names)
      : program_(program),
        kernel_(kernel),
        names_(names),
        var_names_(program.var_names.size()),
        printer_(program, var_names_, buffer_names),
        buffer_names_(buffer_names) {}

  absl::Status Emit(const Stmt& s, int indent, int64_t unroll_budget) {
    if (s == nullptr) return absl::OkStatus();
    switch (s->kind) {
      case StmtKind::kSeq:
        for (const Stmt& c : s->seq) {
          PRUNER_RETURN_IF_ERROR(Emit(c, indent, unroll_budget));
        }
        return absl::OkStatus();
      case StmtKind::kBarrier:
        Line(indent, "__syncthreads();");
        return absl::OkStatus();
      case StmtKind::kStore: return EmitStore(*s, indent);
      case StmtKind::kIfThenElse: return EmitIf(*s, indent, unroll_budget);
      case StmtKind::kAllocate: return EmitAllocate(*s, indent, unroll_budget);
      case StmtKind::kFor:
        if (IsThreadBindingKind(s->for_kind)) return EmitBinding(*s, indent, unroll_budget);
        return EmitLoop(s, indent, unroll_budget);
    }
    return absl::InternalError("unknown statement kind");
  }

  std::string TakeText() { return std::move(out_); }

 private:
  void Line(int indent, std::string_view text) {
    out_.append(2 * indent, ' ');
    out_.append(text);
    out_.push_back('\n');
  }

  absl::Status EmitStore(const StmtNode& s, int indent) {
    PRUNER_ASSIGN_OR_RETURN(std::string target, printer_.BufferAccess(s.buffer, s.indices));
    PRUNER_ASSIGN_OR_RETURN(std::string value, printer_.Print(s.value));
    Line(indent, absl::StrCat(target, " = ", value, ";"));
    return absl::OkStatus();
  }

  absl::Status EmitIf(const StmtNode& s, int indent, int64_t unroll_budget) {
    PRUNER_ASSIGN_OR_RETURN(std::string cond, printer_.Print(s.condition));
    Line(indent, absl::StrCat("if ", cond, " {"));
    PRUNER_RETURN_IF_ERROR(Emit(s.body, indent + 1, unroll_budget));
    if (s.else_body != nullptr) {
      Line(indent, "} else {");
      PRUNER_RETURN_IF_ERROR(Emit(s.else_body, indent + 1, unroll_budget));
    }
    Line(indent, "}");
    return absl::OkStatus();
  }

  absl::Status EmitAllocate(const StmtNode& s, int indent, int64_t unroll_budget) {
    const Buffer& b = program_.buffer(s.buffer);
    switch (b.scope) {
      case MemScope::kShared:  // declared at the top of the kernel
        return Emit(s.body, indent, unroll_budget);
      case MemScope::kLocal:
        Line(indent, absl::StrCat("float ", buffer_names_[b.id], "[", b.num_elements(), "];"));
        return Emit(s.body, indent, unroll_budget);
      case MemScope::kGlobal: break;
    }
    return absl::UnimplementedError(
        absl::StrCat("buffer ", b.name, ": global buffers allocated inside a kernel"));
  }

  absl::Status EmitBinding(const StmtNode& s, int indent, int64_t unroll_budget) {
    const int dim = BindingDim(s.for_kind);
    const int64_t launched = IsBlockKind(s.for_kind) ? kernel_.grid[dim] : kernel_.block[dim];
    if (s.extent > launched) {
      return absl::InternalError(absl::StrCat("loop ", s.var_name, " binds ", s.extent,
                                              " but the kernel launches ", launched));
    }
    const std::string name = OpenVar(s);
    Line(indent, "{");
    Line(indent + 1, absl::StrCat("const int ", name, " = (int)", BindingIndex(s.for_kind), ";"));
    if (s.extent < launched) {
      // Every thread must reach a __syncthreads(); a guard around one would
      // let the threads above `extent` skip it.
      if (ContainsBarrier(s.body)) {
        return absl::UnimplementedError(absl::StrCat(
            "loop ", s.var_name, " binds fewer threads than the launch around a barrier"));
      }
      Line(indent + 1, absl::StrCat("if (", name, " < ", s.extent, ") {"));
      PRUNER_RETURN_IF_ERROR(Emit(s.body, indent + 2, unroll_budget));
      Line(indent + 1, "}");
    } else {
      PRUNER_RETURN_IF_ERROR(Emit(s.body, indent + 1, unroll_budget));
    }
    Line(indent, "}");
    CloseVar(s);
    return absl::OkStatus();
  }

  absl::Status EmitLoop(const Stmt& loop, int indent, int64_t unroll_budget) {
    const StmtNode& s = *loop;
    if (s.for_kind == ForKind::kParallel) {
      return absl::InvalidArgumentError(
          absl::StrCat("invalid schedule: loop ", s.var_name, ": parallel loop in a GPU kernel"));
    }
    if (s.auto_unroll_max_step > 0) unroll_budget = s.auto_unroll_max_step;
    const bool unroll = s.for_kind == ForKind::kUnrolled || s.for_kind == ForKind::kVectorized ||
                        s.for_kind == ForKind::kVThread ||
                        (unroll_budget > 0 && StepCount(loop) <= unroll_budget);
    const std::string name = OpenVar(s);
    if (unroll) Line(indent, "#pragma unroll");
    Line(indent, absl::StrCat("for (int ", name, " = 0; ", name, " < ", s.extent, "; ++", name,
                              ") {"));
    PRUNER_RETURN_IF_ERROR(Emit(s.body, indent + 1, unroll_budget));
    Line(indent, "}");
    CloseVar(s);
    return absl::OkStatus();
  }

  std::string OpenVar(const StmtNode& s) {
    std::string name = names_->Unique(s.var_name);
    if (s.var >= 0 && s.var < static_cast<int>(var_names_.size())) var_names_[s.var] = name;
    return name;
  }
  void CloseVar(const StmtNode& s) {
    if (s.var >= 0 && s.var < static_cast<int>(var_names_.size())) var_names_[s.var].clear();
  }

  const Program& program_;
  const Kernel& kernel_;
  CudaNameTable* names_;
  std::vector<std::string> var_names_;  // in-scope loop variables only
  CudaExprPrinter printer_;
  const std::vector<std::string>& buffer_names_;
  std::string out_;
};

// Global buffers a kernel touches, and which of them it writes.
struct KernelBuffers {
  std::set<int> global;
  std::set<int> written;
  std::set<int> shared;
};

KernelBuffers CollectBuffers(const Program& program, const Kernel& kernel) {
  KernelBuffers result;
  auto note_reads = [&](const Expr& e) {
    if (e == nullptr) return;
    VisitExpr(e, [&](const ExprNode& n) {
      if (n.kind == ExprKind::kRead && program.buffer(n.id).scope == MemScope::kGlobal) {
        result.global.insert(n.id);
      }
    });
  };
  VisitStmt(kernel.body, [&](const StmtNode& s) {
    switch (s.kind) {
      case StmtKind::kStore:
        if (program.buffer(s.buffer).scope == MemScope::kGlobal) {
          result.global.insert(s.buffer);
          result.written.insert(s.buffer);
        }
        for (const Expr& i : s.indices) note_reads(i);
        note_reads(s.value);
        break;
      case StmtKind::kIfThenElse: note_reads(s.condition); break;
      case StmtKind::kAllocate:
        if (program.buffer(s.buffer).scope == MemScope::kShared) result.shared.insert(s.buffer);
        break;
      default: break;
    }
  });
  return result;
}

absl::Status CheckBuffers(const Program& program) {
  for (const Buffer& b : program.buffers) {
    if (b.dtype != DType::kFloat32) {
      return absl::UnimplementedError(
          absl::StrCat("buffer ", b.name, ": only float32 buffers are generated yet"));
    }
    if (b.num_elements() > std::numeric_limits<int32_t>::max()) {
      return absl::UnimplementedError(absl::StrCat(
          "buffer ", b.name, " has ", b.num_elements(), " elements; indices are 32-bit"));
    }
  }
  return absl::OkStatus();
}

}  // namespace

absl::StatusOr<CudaModuleSource> GenerateCudaSource(const Program& program,
                                                    const DeviceProfile& device) {
  if (program.target != DeviceKind::kGpu || device.kind != DeviceKind::kGpu) {
    return absl::InvalidArgumentError("CUDA code generation needs a GPU program and device");
  }
  PRUNER_RETURN_IF_ERROR(CheckBuffers(program));

  CudaNameTable names;
  std::vector<std::string> buffer_names;
  buffer_names.reserve(program.buffers.size());
  for (const Buffer& b : program.buffers) buffer_names.push_back(names.Unique(b.name));

  CudaModuleSource module;
  module.source = absl::StrCat("// Generated by Pruner from a lowered ", device.name,
                               " program.\n", cuda_internal::CudaHelperPreamble());
  for (size_t k = 0; k < program.kernels.size(); ++k) {
    const Kernel& kernel = program.kernels[k];
    CudaKernelSource info;
    info.name = names.Unique(absl::StrCat(kernel.name, "_kernel", k));
    info.grid = kernel.grid;
    info.block = kernel.block;
    const KernelBuffers buffers = CollectBuffers(program, kernel);

    std::string params;
    for (int id : buffers.global) {
      info.params.push_back(id);
      const bool read_only = buffers.written.count(id) == 0;
      absl::StrAppend(&params, params.empty() ? "" : ", ", read_only ? "const " : "",
                      "float* __restrict__ ", buffer_names[id]);
    }
    absl::StrAppend(&module.source, "\nextern \"C\" __global__ void __launch_bounds__(",
                    kernel.threads_per_block(), ") ", info.name, "(", params, ") {\n");
    for (int id : buffers.shared) {
      const Buffer& b = program.buffer(id);
      info.shared_bytes += b.bytes();
      // 16-byte alignment lets a later float4 path load these tiles.
      absl::StrAppend(&module.source, "  __shared__ __align__(16) float ", buffer_names[id], "[",
                      b.num_elements(), "];\n");
    }
    KernelEmitter emitter(program, kernel, &names, buffer_names);
    if (absl::Status st = emitter.Emit(kernel.body, 1, 0); !st.ok()) {
      if (absl::IsInvalidArgument(st)) return st;  // keeps its "invalid schedule:" prefix
      return absl::Status(st.code(), absl::StrCat("kernel ", kernel.name, ": ", st.message()));
    }
    absl::StrAppend(&module.source, emitter.TakeText(), "}\n");
    module.kernels.push_back(std::move(info));
  }
  return module;
}

}  // namespace pruner
