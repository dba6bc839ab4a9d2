#include "common/codegen/cpu_loop_rules.h"

#include <algorithm>
#include <vector>

#include "absl/container/flat_hash_map.h"
#include "absl/status/status.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_format.h"
#include "common/ir/int_bounds.h"
#include "common/lower/index_simplify.h"

namespace pruner {
namespace {

uint64_t Fnv1a(const std::string& text) {
  uint64_t h = 1469598103934665603ull;
  for (unsigned char c : text) {
    h ^= c;
    h *= 1099511628211ull;
  }
  return h;
}

// True when index = c * var + (terms without var) with c != 0, so that
// different values of var give different indices whatever the other loops
// are. Terms are the canonical atoms of SimplifyIndex (floordiv, floormod,
// products), which lowering puts in the indices of split and fused loops.
bool VarHasNonZeroCoefficient(const Expr& index, int var) {
  bool found = false;
  for (const auto& [atom, coeff] : ToLinearTerms(index).terms) {
    if (atom->kind == ExprKind::kVar && atom->id == var) {
      found = coeff != 0;
    } else if (UsesVar(atom, var)) {
      return false;
    }
  }
  return found;
}

}  // namespace

std::string CpuKernelSymbol(const Program& program) {
  return absl::StrFormat("pruner_cpu_%016x", Fnv1a(program.ToString()));
}

absl::StatusOr<Expr> FlatBufferOffset(const Program& program, int buffer,
                                      const std::vector<Expr>& indices, const VarRangeFn& ranges) {
  if (buffer < 0 || buffer >= static_cast<int>(program.buffers.size())) {
    return absl::InvalidArgumentError(absl::StrCat("access to unknown buffer ", buffer));
  }
  const Buffer& b = program.buffer(buffer);
  if (indices.size() != b.shape.size()) {
    return absl::InvalidArgumentError(absl::StrCat("buffer ", b.name, " has ", b.shape.size(),
                                                   " dimensions but is accessed with ",
                                                   indices.size(), " indices"));
  }
  Expr flat = IntImm(0);
  int64_t stride = 1;
  for (size_t d = indices.size(); d-- > 0;) {
    flat = Add(flat, Mul(indices[d], IntImm(stride)));
    stride *= b.shape[d];
  }
  return SimplifyIndex(flat, ranges);
}

bool IterationsIndependent(const StmtNode& loop) {
  // Written buffer -> the indices of its stores; two stores of one buffer
  // at different indices could hit each other's elements across iterations.
  absl::flat_hash_map<int, const std::vector<Expr>*> written;
  bool safe = true;
  VisitStmt(loop.body, [&](const StmtNode& s) {
    if (s.kind != StmtKind::kStore) return;
    auto [it, inserted] = written.emplace(s.buffer, &s.indices);
    if (!inserted && !StructurallyEqual(*it->second, s.indices)) safe = false;
  });
  auto reads_written = [&](const Expr& e) {
    if (e == nullptr) return false;
    for (int t : ReadTensors(e)) {
      if (written.contains(t)) return true;
    }
    return false;
  };
  VisitStmt(loop.body, [&](const StmtNode& s) {
    if (!safe) return;
    if (s.kind == StmtKind::kIfThenElse && reads_written(s.condition)) safe = false;
    if (s.kind != StmtKind::kStore) return;
    bool distinct = false;
    for (const Expr& index : s.indices) {
      if (reads_written(index)) safe = false;
      distinct = distinct || VarHasNonZeroCoefficient(index, loop.var);
    }
    if (!distinct) safe = false;
    VisitExpr(s.value, [&](const ExprNode& n) {
      if (n.kind != ExprKind::kRead || !written.contains(n.id)) return;
      if (n.id != s.buffer || !StructurallyEqual(n.args, s.indices)) safe = false;
    });
  });
  return safe;
}

}  // namespace pruner
