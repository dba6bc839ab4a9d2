#include "common/lower/program.h"

#include <utility>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "common/base/absl_compat.h"
#include "common/lower/index_simplify.h"

namespace pruner {

const char* MemScopeName(MemScope scope) {
  switch (scope) {
    case MemScope::kGlobal: return "global";
    case MemScope::kShared: return "shared";
    case MemScope::kLocal: return "local";
  }
  return "?";
}

std::optional<MemScope> ParseMemScope(std::string_view name) {
  if (name == "global" || name.empty()) return MemScope::kGlobal;
  if (name == "shared") return MemScope::kShared;
  if (name == "local") return MemScope::kLocal;
  return std::nullopt;
}

const char* BufferRoleName(BufferRole role) {
  switch (role) {
    case BufferRole::kInput: return "input";
    case BufferRole::kOutput: return "output";
    case BufferRole::kIntermediate: return "intermediate";
  }
  return "?";
}

int64_t Buffer::num_elements() const {
  int64_t n = 1;
  for (int64_t d : shape) n *= d;
  return n;
}

int64_t Buffer::bytes() const { return num_elements() * DTypeBytes(dtype); }

std::vector<int64_t> Buffer::tensor_shape() const {
  if (dim_order.empty()) return shape;
  std::vector<int64_t> out(shape.size());
  for (size_t k = 0; k < dim_order.size(); ++k) out[dim_order[k]] = shape[k];
  return out;
}

absl::StatusOr<std::vector<float>> InputInBufferLayout(const Buffer& buffer, const Tensor& t) {
  const std::vector<int64_t> want = buffer.tensor_shape();
  if (t.shape != want || static_cast<int64_t>(t.data.size()) != buffer.num_elements()) {
    return absl::InvalidArgumentError(absl::StrCat(
        "input ", buffer.name, " has shape ", ShapeToString(t.shape), " with ", t.data.size(),
        " values; expected ", ShapeToString(want)));
  }
  if (t.dtype != buffer.dtype) {
    return absl::InvalidArgumentError(absl::StrCat("input ", buffer.name, " is ",
                                                   ToAbsl(DTypeName(t.dtype)), ", expected ",
                                                   ToAbsl(DTypeName(buffer.dtype))));
  }
  if (buffer.dim_order.empty()) return t.data;
  // Walk the buffer in its own row-major order, reading the tensor element
  // that each position holds.
  const std::vector<int64_t> tensor_strides = RowMajorStrides(want);
  std::vector<int64_t> stride(buffer.shape.size());
  for (size_t k = 0; k < buffer.shape.size(); ++k) stride[k] = tensor_strides[buffer.dim_order[k]];
  std::vector<float> out(t.data.size());
  std::vector<int64_t> index(buffer.shape.size(), 0);
  int64_t source = 0;
  for (float& value : out) {
    value = t.data[source];
    for (int k = static_cast<int>(index.size()) - 1; k >= 0; --k) {
      source += stride[k];
      if (++index[k] < buffer.shape[k]) break;
      source -= stride[k] * buffer.shape[k];
      index[k] = 0;
    }
  }
  return out;
}

std::vector<Expr> GlobalCoordinates(const Buffer& buffer, const std::vector<Expr>& indices) {
  std::vector<Expr> out;
  for (size_t d = 0; d < indices.size(); ++d) {
    out.push_back(d < buffer.region_min.size()
                      ? SimplifyIndex(Add(indices[d], buffer.region_min[d]))
                      : indices[d]);
  }
  return out;
}

const char* ForKindName(ForKind kind) {
  switch (kind) {
    case ForKind::kSerial: return "for";
    case ForKind::kParallel: return "parallel";
    case ForKind::kVectorized: return "vectorized";
    case ForKind::kUnrolled: return "unrolled";
    case ForKind::kVThread: return "vthread";
    case ForKind::kBlockX: return "blockIdx.x";
    case ForKind::kBlockY: return "blockIdx.y";
    case ForKind::kBlockZ: return "blockIdx.z";
    case ForKind::kThreadX: return "threadIdx.x";
    case ForKind::kThreadY: return "threadIdx.y";
    case ForKind::kThreadZ: return "threadIdx.z";
  }
  return "?";
}

bool IsBlockKind(ForKind kind) {
  return kind == ForKind::kBlockX || kind == ForKind::kBlockY || kind == ForKind::kBlockZ;
}

bool IsThreadIdxKind(ForKind kind) {
  return kind == ForKind::kThreadX || kind == ForKind::kThreadY ||
         kind == ForKind::kThreadZ;
}

int BindingDim(ForKind kind) {
  switch (kind) {
    case ForKind::kBlockY:
    case ForKind::kThreadY: return 1;
    case ForKind::kBlockZ:
    case ForKind::kThreadZ: return 2;
    default: return 0;
  }
}

Stmt MakeFor(int var, std::string var_name, int64_t extent, ForKind kind, Stmt body,
             int stage, int iter) {
  auto n = std::make_shared<StmtNode>();
  n->kind = StmtKind::kFor;
  n->var = var;
  n->var_name = std::move(var_name);
  n->extent = extent;
  n->for_kind = kind;
  n->body = std::move(body);
  n->stage = stage;
  n->iter = iter;
  return n;
}

Stmt MakeSeq(std::vector<Stmt> stmts) {
  auto n = std::make_shared<StmtNode>();
  n->kind = StmtKind::kSeq;
  for (Stmt& s : stmts) {
    if (s == nullptr) continue;
    if (s->kind == StmtKind::kSeq) {
      n->seq.insert(n->seq.end(), s->seq.begin(), s->seq.end());
    } else {
      n->seq.push_back(std::move(s));
    }
  }
  return n;
}

Stmt MakeIf(Expr condition, Stmt then_body, Stmt else_body) {
  auto n = std::make_shared<StmtNode>();
  n->kind = StmtKind::kIfThenElse;
  n->condition = std::move(condition);
  n->body = std::move(then_body);
  n->else_body = std::move(else_body);
  return n;
}

Stmt MakeStore(int buffer, std::vector<Expr> indices, Expr value, StoreRole role,
               int stage) {
  auto n = std::make_shared<StmtNode>();
  n->kind = StmtKind::kStore;
  n->buffer = buffer;
  n->indices = std::move(indices);
  n->value = std::move(value);
  n->store_role = role;
  n->stage = stage;
  return n;
}

Stmt MakeBarrier() {
  auto n = std::make_shared<StmtNode>();
  n->kind = StmtKind::kBarrier;
  return n;
}

Stmt MakeAllocate(int buffer, Stmt body) {
  auto n = std::make_shared<StmtNode>();
  n->kind = StmtKind::kAllocate;
  n->buffer = buffer;
  n->body = std::move(body);
  return n;
}

void VisitStmt(const Stmt& s, const std::function<void(const StmtNode&)>& f) {
  if (s == nullptr) return;
  f(*s);
  for (const Stmt& c : s->seq) VisitStmt(c, f);
  VisitStmt(s->body, f);
  VisitStmt(s->else_body, f);
}

bool ContainsBarrier(const Stmt& s) {
  bool found = false;
  VisitStmt(s, [&](const StmtNode& n) { found |= n.kind == StmtKind::kBarrier; });
  return found;
}

namespace {

std::string ShapeString(const std::vector<int64_t>& shape) {
  return absl::StrCat("[", absl::StrJoin(shape, ", "), "]");
}

std::string ExprListString(const std::vector<Expr>& exprs) {
  std::vector<std::string> parts;
  parts.reserve(exprs.size());
  for (const Expr& e : exprs) parts.push_back(ToString(e));
  return absl::StrJoin(parts, ", ");
}

void PrintStmt(const Program& p, const Stmt& s, int indent, std::string* out) {
  if (s == nullptr) return;
  const std::string pad(2 * indent, ' ');
  switch (s->kind) {
    case StmtKind::kFor:
      absl::StrAppend(out, pad, ForKindName(s->for_kind), " ", s->var_name, " in 0..",
                      s->extent, ":");
      if (s->auto_unroll_max_step > 0) {
        absl::StrAppend(out, "  // auto_unroll_max_step=", s->auto_unroll_max_step);
      }
      absl::StrAppend(out, "\n");
      PrintStmt(p, s->body, indent + 1, out);
      return;
    case StmtKind::kSeq:
      for (const Stmt& c : s->seq) PrintStmt(p, c, indent, out);
      return;
    case StmtKind::kIfThenElse:
      absl::StrAppend(out, pad, "if ", ToString(s->condition), ":\n");
      PrintStmt(p, s->body, indent + 1, out);
      if (s->else_body != nullptr) {
        absl::StrAppend(out, pad, "else:\n");
        PrintStmt(p, s->else_body, indent + 1, out);
      }
      return;
    case StmtKind::kStore:
      absl::StrAppend(out, pad, p.buffer(s->buffer).name, "[", ExprListString(s->indices),
                      "] = ", ToString(s->value), "\n");
      return;
    case StmtKind::kBarrier:
      absl::StrAppend(out, pad, "__syncthreads()\n");
      return;
    case StmtKind::kAllocate: {
      const Buffer& b = p.buffer(s->buffer);
      absl::StrAppend(out, pad, "allocate ", b.name, ": ", MemScopeName(b.scope), " ",
                      ToAbsl(DTypeName(b.dtype)), ShapeString(b.shape), "\n");
      PrintStmt(p, s->body, indent + 1, out);
      return;
    }
  }
}

}  // namespace

std::string StmtToString(const Program& program, const Stmt& stmt, int indent) {
  std::string out;
  PrintStmt(program, stmt, indent, &out);
  return out;
}

std::string Program::ToString() const {
  std::string out = absl::StrCat("program target=", ToAbsl(DeviceKindName(target)), "\n");
  for (const Buffer& b : buffers) {
    absl::StrAppend(&out, "buffer ", b.name, ": ", MemScopeName(b.scope), " ",
                    ToAbsl(DTypeName(b.dtype)), ShapeString(b.shape), " ", BufferRoleName(b.role));
    if (b.attached) {
      absl::StrAppend(&out, " region_min=[", ExprListString(b.region_min), "]");
    }
    if (!b.dim_order.empty()) {
      absl::StrAppend(&out, " dims=[", absl::StrJoin(b.dim_order, ", "), "]");
    }
    absl::StrAppend(&out, "\n");
  }
  for (const Kernel& k : kernels) {
    absl::StrAppend(&out, "kernel ", k.name);
    if (target == DeviceKind::kGpu) {
      absl::StrAppend(&out, " grid=", ShapeString({k.grid.begin(), k.grid.end()}),
                      " block=", ShapeString({k.block.begin(), k.block.end()}),
                      " shared=", k.shared_bytes, "B local=", k.local_bytes_per_thread,
                      "B/thread");
    }
    absl::StrAppend(&out, "\n");
    PrintStmt(*this, k.body, 1, &out);
  }
  return out;
}

}  // namespace pruner
