#include "common/lower/inlined_bodies.h"

#include <utility>

#include "absl/status/status.h"
#include "absl/strings/str_cat.h"

namespace pruner {

absl::StatusOr<InlinedBodies> InlinedBodies::Build(const State& state) {
  InlinedBodies out;
  const int n = state.num_stages();
  out.bodies_.resize(n);
  out.consumers_.resize(n);
  // Stages are in topological order, so every inlined producer of stage s has
  // its expanded body ready when s is expanded.
  for (int s = 0; s < n; ++s) {
    const Stage& stage = state.stage(s);
    if (stage.is_placeholder()) continue;
    if (stage.op->body == nullptr) {
      return absl::InvalidArgumentError(
          absl::StrCat("compute stage ", stage.op->name, " has no body"));
    }
    if (stage.compute_at == ComputeAtKind::kInlined && stage.has_reduce()) {
      return absl::InvalidArgumentError(absl::StrCat(
          "stage ", stage.op->name, " has reduce axes and cannot be computed inline"));
    }
    absl::Status error;
    Expr body = RewriteReads(stage.op->body, [&](const ExprNode& read) -> Expr {
      Expr self = Read(read.id, read.name, read.dtype, read.args);
      const int t = state.StageOfTensor(read.id);
      if (t < 0 || t >= s) {
        error = absl::InvalidArgumentError(absl::StrCat(
            "stage ", stage.op->name, " reads tensor ", read.name, " (id ", read.id,
            ") that no earlier stage produces"));
        return self;
      }
      if (state.stage(t).compute_at != ComputeAtKind::kInlined) return self;
      const std::vector<Expr>& args = read.args;
      return SubstituteVars(out.bodies_[t], [&](int var) -> Expr {
        return var >= 0 && var < static_cast<int>(args.size()) ? args[var] : nullptr;
      });
    });
    if (!error.ok()) return error;
    out.bodies_[s] = std::move(body);
  }
  for (int s = 0; s < n; ++s) {
    if (out.bodies_[s] == nullptr ||
        state.stage(s).compute_at == ComputeAtKind::kInlined) {
      continue;
    }
    for (int tensor : ReadTensors(out.bodies_[s])) {
      const int t = state.StageOfTensor(tensor);
      if (t >= 0) out.consumers_[t].push_back(s);
    }
  }
  return out;
}

}  // namespace pruner
