#include "common/codegen/cpu_codegen.h"

#include <algorithm>
#include <cstdint>
#include <utility>
#include <vector>

#include "absl/container/flat_hash_map.h"
#include "absl/status/status.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "absl/strings/str_format.h"
#include "common/base/status_macros.h"
#include "common/codegen/cpu_expr_printer.h"
#include "common/codegen/cpu_loop_rules.h"
#include "common/lower/index_simplify.h"

namespace pruner {
namespace {

using cpu_codegen::ExprPrinter;
using cpu_codegen::SanitizeName;

// GCC rejects `#pragma GCC unroll` factors above this.
constexpr int64_t kMaxUnrollPragma = 65534;

class Emitter {
 public:
  Emitter(const Program& program, std::vector<std::string> buffer_names)
      : program_(program), printer_(program, std::move(buffer_names)) {}

  absl::Status Emit(const Stmt& s, int indent) {
    if (s == nullptr) return absl::OkStatus();
    switch (s->kind) {
      case StmtKind::kFor: return EmitFor(*s, indent);
      case StmtKind::kSeq:
        for (const Stmt& c : s->seq) {
          PRUNER_RETURN_IF_ERROR(Emit(c, indent));
        }
        return absl::OkStatus();
      case StmtKind::kIfThenElse: return EmitIf(*s, indent);
      case StmtKind::kStore: return EmitStore(*s, indent);
      case StmtKind::kAllocate: return EmitAllocate(*s, indent);
      case StmtKind::kBarrier:
        return absl::InvalidArgumentError("a barrier in a CPU program");
    }
    return absl::InvalidArgumentError("unknown statement kind");
  }

  std::string& out() { return out_; }
  int64_t stack_bytes() const { return stack_bytes_; }
  int64_t heap_bytes() const { return heap_bytes_; }

 private:
  void Line(int indent, const std::string& text) {
    out_.append(2 * indent, ' ');
    out_ += text;
    out_ += '\n';
  }

  absl::Status EmitFor(const StmtNode& s, int indent) {
    if (IsThreadBindingKind(s.for_kind)) {
      return absl::InvalidArgumentError(
          absl::StrCat("loop ", s.var_name, " is bound to ", ForKindName(s.for_kind),
                       " in a CPU program"));
    }
    const int64_t saved_budget = unroll_budget_;
    if (s.auto_unroll_max_step > 0) unroll_budget_ = s.auto_unroll_max_step;
    switch (s.for_kind) {
      case ForKind::kParallel:
        Line(indent, "#pragma omp parallel for schedule(static)");
        break;
      case ForKind::kVectorized:
        if (IterationsIndependent(s)) Line(indent, "#pragma omp simd");
        break;
      case ForKind::kUnrolled:
        if (s.extent <= kMaxUnrollPragma) Line(indent, absl::StrCat("#pragma GCC unroll ", s.extent));
        break;
      default:
        if (s.extent <= kMaxUnrollPragma && WithinUnrollBudget(s, unroll_budget_)) {
          Line(indent, absl::StrCat("#pragma GCC unroll ", s.extent));
        }
        break;
    }
    const std::string v = printer_.VarName(s.var);
    Line(indent, absl::StrCat("for (int64_t ", v, " = 0; ", v, " < ", s.extent, "; ++", v,
                              ") {  // ", ForKindName(s.for_kind), " ", s.var_name));
    printer_.EnterLoop(s.var, s.extent);
    absl::Status st = Emit(s.body, indent + 1);
    printer_.ExitLoop(s.var);
    Line(indent, "}");
    unroll_budget_ = saved_budget;
    return st;
  }

  absl::Status EmitIf(const StmtNode& s, int indent) {
    PRUNER_ASSIGN_OR_RETURN(std::string cond, printer_.Print(s.condition));
    Line(indent, absl::StrCat("if (", cond, ") {"));
    PRUNER_RETURN_IF_ERROR(Emit(s.body, indent + 1));
    if (s.else_body != nullptr) {
      Line(indent, "} else {");
      PRUNER_RETURN_IF_ERROR(Emit(s.else_body, indent + 1));
    }
    Line(indent, "}");
    return absl::OkStatus();
  }

  absl::Status EmitStore(const StmtNode& s, int indent) {
    PRUNER_ASSIGN_OR_RETURN(std::string offset, printer_.FlatOffset(s.buffer, s.indices));
    Expr value = s.value;
    if (!IsFloat(value->dtype)) value = Cast(DType::kFloat32, value);
    PRUNER_ASSIGN_OR_RETURN(std::string text, printer_.Print(value));
    Line(indent, absl::StrCat(printer_.BufferName(s.buffer), "[", offset, "] = ", text, ";"));
    return absl::OkStatus();
  }

  absl::Status EmitAllocate(const StmtNode& s, int indent) {
    if (s.buffer < 0 || s.buffer >= static_cast<int>(program_.buffers.size())) {
      return absl::InvalidArgumentError(absl::StrCat("allocation of unknown buffer ", s.buffer));
    }
    const Buffer& b = program_.buffer(s.buffer);
    const std::string& name = printer_.BufferName(s.buffer);
    const int64_t elements = std::max<int64_t>(1, b.num_elements());
    const int64_t bytes = elements * static_cast<int64_t>(sizeof(float));
    Line(indent, "{");
    if (bytes <= kCpuMaxStackBufferBytes) {
      stack_bytes_ += bytes;
      Line(indent + 1, absl::StrCat("alignas(64) float ", name, "[", elements, "];  // ",
                                    MemScopeName(b.scope), " ", b.name));
      PRUNER_RETURN_IF_ERROR(Emit(s.body, indent + 1));
    } else {
      heap_bytes_ += bytes;
      Line(indent + 1, absl::StrCat("pr_heap ", name, "_heap(", elements, ");  // ",
                                    MemScopeName(b.scope), " ", b.name));
      Line(indent + 1, absl::StrCat("float* __restrict__ const ", name, " = ", name, "_heap.data;"));
      Line(indent + 1, absl::StrCat("if (", name, " == nullptr) {"));
      Line(indent + 2, absl::StrCat("__atomic_store_n(pr_status, ", kCpuErrorOutOfMemory,
                                    ", __ATOMIC_RELAXED);"));
      Line(indent + 1, "} else {");
      PRUNER_RETURN_IF_ERROR(Emit(s.body, indent + 2));
      Line(indent + 1, "}");
    }
    Line(indent, "}");
    return absl::OkStatus();
  }

  const Program& program_;
  ExprPrinter printer_;
  std::string out_;
  int64_t unroll_budget_ = 0;
  int64_t stack_bytes_ = 0;
  int64_t heap_bytes_ = 0;
};

}  // namespace

absl::StatusOr<CpuKernelSource> GenerateCpuSource(const Program& program,
                                                  const DeviceProfile& device) {
  if (program.target != DeviceKind::kCpu || device.kind != DeviceKind::kCpu) {
    return absl::InvalidArgumentError("CPU codegen needs a CPU program and a CPU device");
  }
  CpuKernelSource source;
  source.symbol = CpuKernelSymbol(program);
  source.num_inputs = static_cast<int>(program.inputs.size());
  source.num_outputs = static_cast<int>(program.outputs.size());

  std::vector<std::string> names;
  for (const Buffer& b : program.buffers) {
    names.push_back(SanitizeName(absl::StrCat("b", b.id, "_"), b.name));
  }
  // Arguments (inputs, then outputs) and root intermediates become restrict
  // parameters of the body function: GCC trusts restrict on parameters, which
  // is what lets it vectorize stores next to loads of other buffers.
  std::vector<int> params = program.inputs;
  params.insert(params.end(), program.outputs.begin(), program.outputs.end());
  std::vector<int> intermediates;
  for (const Buffer& b : program.buffers) {
    const bool is_arg = std::find(params.begin(), params.end(), b.id) != params.end();
    if (!is_arg && !b.attached) intermediates.push_back(b.id);
  }

  Emitter body(program, names);
  for (const Kernel& k : program.kernels) {
    body.out() += absl::StrCat("  // kernel ", k.name, "\n");
    PRUNER_RETURN_IF_ERROR(body.Emit(k.body, 1));
  }

  std::string code = cpu_codegen::Preamble();
  std::string param_list;
  for (int id : params) absl::StrAppend(&param_list, "float* __restrict__ ", names[id], ", ");
  for (int id : intermediates) absl::StrAppend(&param_list, "float* __restrict__ ", names[id], ", ");
  absl::StrAppend(&code, "__attribute__((noinline)) static void pr_body(", param_list, "int* pr_status) {\n");
  for (int id : params) {
    absl::StrAppend(&code, "  ", names[id], " = static_cast<float*>(__builtin_assume_aligned(",
                    names[id], ", 64));\n");
  }
  for (int id : intermediates) {
    absl::StrAppend(&code, "  ", names[id], " = static_cast<float*>(__builtin_assume_aligned(",
                    names[id], ", 64));\n");
  }
  absl::StrAppend(&code, body.out(), "}\n\n");

  // Callers must know the layout of each argument: layout-free inputs may
  // be stored transposed (Buffer::dim_order); and how to allocate it.
  absl::StrAppend(&code, "// Every argument is 64-byte aligned, with ", kCpuReadSlackBytes,
                  " readable bytes before and after it (vector loads may touch them; "
                  "nothing is written there).\n");
  for (size_t i = 0; i < params.size(); ++i) {
    const Buffer& b = program.buffer(params[i]);
    absl::StrAppend(&code, "// args[", i, "]: ", b.name, " float[", absl::StrJoin(b.shape, "]["),
                    "]");
    if (!b.dim_order.empty()) {
      absl::StrAppend(&code, " holding the tensor's dimensions [",
                      absl::StrJoin(b.dim_order, ", "),
                      "] in this order (transpose it once before calling)");
    }
    absl::StrAppend(&code, "\n");
  }
  absl::StrAppend(&code, "extern \"C\" __attribute__((visibility(\"default\"))) int ",
                  source.symbol, "(float* const* args) {\n");
  std::string call_args;
  for (size_t i = 0; i < params.size(); ++i) absl::StrAppend(&call_args, "args[", i, "], ");
  for (int id : intermediates) {
    const int64_t elements = std::max<int64_t>(1, program.buffer(id).num_elements());
    source.heap_bytes += elements * static_cast<int64_t>(sizeof(float));
    absl::StrAppend(&code, "  pr_heap ", names[id], "(", elements, ");  // ",
                    program.buffer(id).name, "\n");
    absl::StrAppend(&code, "  if (", names[id], ".data == nullptr) return ",
                    kCpuErrorOutOfMemory, ";\n");
    absl::StrAppend(&call_args, names[id], ".data, ");
  }
  absl::StrAppend(&code, "  int pr_status = 0;\n  pr_body(", call_args, "&pr_status);\n",
                  "  return pr_status;\n}\n");
  source.code = std::move(code);
  source.stack_bytes = body.stack_bytes();
  source.heap_bytes += body.heap_bytes();
  return source;
}

}  // namespace pruner
