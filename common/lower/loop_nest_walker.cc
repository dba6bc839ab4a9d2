#include "common/lower/loop_nest_walker.h"

namespace pruner {

void LoopNestWalker::Walk(const StmtNode& s) {
  switch (s.kind) {
    case StmtKind::kFor:
      WalkFor(s);
      break;
    case StmtKind::kSeq:
      for (const Stmt& child : s.seq) Walk(*child);
      break;
    case StmtKind::kIfThenElse:
      VisitIf(s);
      break;
    case StmtKind::kAllocate:
      VisitAllocate(s);
      break;
    case StmtKind::kStore:
      VisitStore(s);
      break;
    case StmtKind::kBarrier:
      VisitBarrier(s);
      break;
  }
}

void LoopNestWalker::VisitIf(const StmtNode& branch) {
  WalkBody(branch);
  if (branch.else_body != nullptr) Walk(*branch.else_body);
}

void LoopNestWalker::VisitAllocate(const StmtNode& allocate) { WalkBody(allocate); }

void LoopNestWalker::WalkBody(const StmtNode& s) {
  if (s.body != nullptr) Walk(*s.body);
}

void LoopNestWalker::WalkFor(const StmtNode& loop) {
  int shadow = -1;
  if (IsThreadBindingKind(loop.for_kind)) {
    for (int j = static_cast<int>(loops_.size()) - 1; j >= 0; --j) {
      if (!loops_[j].shadowed && loops_[j].loop->for_kind == loop.for_kind) {
        shadow = j;
        break;
      }
    }
  }
  if (shadow >= 0) loops_[shadow].shadowed = true;
  loops_.push_back({&loop, false});
  EnterLoop(loop);
  WalkBody(loop);
  ExitLoop(loop);
  loops_.pop_back();
  if (shadow >= 0) loops_[shadow].shadowed = false;
}

}  // namespace pruner
