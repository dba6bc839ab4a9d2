#include "common/lower/unroll_rules.h"

#include <algorithm>

#include "common/ir/int_bounds.h"

namespace pruner {
namespace {

constexpr int64_t kStepsSaturated = int64_t{1} << 40;

}  // namespace

int64_t UnrollStepCount(const Stmt& s) {
  if (s == nullptr) return 0;
  switch (s->kind) {
    case StmtKind::kStore: return 1;
    case StmtKind::kBarrier: return 0;
    case StmtKind::kFor:
      if (s->for_kind == ForKind::kVectorized) return UnrollStepCount(s->body);
      return std::min(kStepsSaturated, SaturatingMul(s->extent, UnrollStepCount(s->body)));
    case StmtKind::kSeq: {
      int64_t sum = 0;
      for (const Stmt& c : s->seq) sum = std::min(kStepsSaturated, sum + UnrollStepCount(c));
      return sum;
    }
    case StmtKind::kIfThenElse: return UnrollStepCount(s->body) + UnrollStepCount(s->else_body);
    case StmtKind::kAllocate: return UnrollStepCount(s->body);
  }
  return 0;
}

bool WithinUnrollBudget(const StmtNode& loop, int64_t budget) {
  return budget > 0 && SaturatingMul(UnrollStepCount(loop.body), loop.extent) <= budget;
}

}  // namespace pruner
