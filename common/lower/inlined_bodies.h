// The bodies of a state's materialized stages with inlined stages
// substituted in.
//
// A compute_inline'd stage has no loops and no buffer: wherever a reader
// reads it, its body is evaluated at the reader's indices. Bound inference
// follows reads through inlined stages with these bodies (a shared stage
// reading an inlined padding stage really reads the padded tensor's input),
// and lowering stores exactly these values.
#ifndef PRUNER_COMMON_LOWER_INLINED_BODIES_H_
#define PRUNER_COMMON_LOWER_INLINED_BODIES_H_

#include <vector>

#include "absl/status/statusor.h"
#include "common/ir/expr.h"
#include "common/schedule/state.h"

namespace pruner {

class InlinedBodies {
 public:
  // Fails when a stage reads a tensor that no stage produces, or when a
  // stage with reduce axes is inlined (a reduction has no per-point body).
  static absl::StatusOr<InlinedBodies> Build(const State& state);

  // The expanded body of stage s, over s's axis variables; reads refer to
  // tensors of placeholders and non-inlined compute stages only. Null for
  // placeholders.
  const Expr& body(int stage) const { return bodies_[stage]; }
  // Stages whose expanded bodies read stage s's tensor, in stage order
  // (inlined stages are never listed: their readers are).
  const std::vector<int>& consumers(int stage) const { return consumers_[stage]; }

 private:
  std::vector<Expr> bodies_;
  std::vector<std::vector<int>> consumers_;
};

}  // namespace pruner

#endif  // PRUNER_COMMON_LOWER_INLINED_BODIES_H_
