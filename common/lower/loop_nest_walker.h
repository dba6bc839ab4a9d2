// Walks a lowered statement tree in program order (depth first, parents
// before children) keeping the stack of enclosing loops, so that a pass
// over stores and loops is a few overrides instead of another switch over
// StmtKind. Seq children, both branches of an IfThenElse and the body of an
// Allocate are walked by default.
//
// Thread bindings: a thread axis bound again inside its own binding
// (cooperative fetching binds threadIdx.x inside the consumer's threadIdx.x)
// is the same hardware index, so the inner binding shadows the outer one
// for the statements below it; passes that multiply extents skip shadowed
// loops.
#ifndef PRUNER_COMMON_LOWER_LOOP_NEST_WALKER_H_
#define PRUNER_COMMON_LOWER_LOOP_NEST_WALKER_H_

#include <vector>

#include "common/lower/program.h"

namespace pruner {

class LoopNestWalker {
 public:
  virtual ~LoopNestWalker() = default;

  // Walks `s` and everything below it.
  void Walk(const StmtNode& s);

 protected:
  struct EnclosingLoop {
    const StmtNode* loop = nullptr;
    bool shadowed = false;  // an inner binding of the same thread axis hides it
  };
  // The loops around the statement being visited, outermost first.
  const std::vector<EnclosingLoop>& enclosing_loops() const { return loops_; }

  // Called with the loop already on (EnterLoop) and still on (ExitLoop)
  // the stack, around the walk of its body.
  virtual void EnterLoop(const StmtNode& loop) {}
  virtual void ExitLoop(const StmtNode& loop) {}
  virtual void VisitStore(const StmtNode& store) {}
  virtual void VisitBarrier(const StmtNode& barrier) {}
  // Defaults walk the body (and the else branch).
  virtual void VisitIf(const StmtNode& branch);
  virtual void VisitAllocate(const StmtNode& allocate);

  // Walks s.body when there is one.
  void WalkBody(const StmtNode& s);

 private:
  void WalkFor(const StmtNode& loop);

  std::vector<EnclosingLoop> loops_;
};

}  // namespace pruner

#endif  // PRUNER_COMMON_LOWER_LOOP_NEST_WALKER_H_
