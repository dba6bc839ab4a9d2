#include "common/analysis/store_walk.h"

#include <algorithm>

#include "common/lower/loop_nest_walker.h"
#include "common/lower/unroll_rules.h"

namespace pruner {
namespace {

class StoreWalker : public LoopNestWalker {
 public:
  StoreWalker(const Program& program, const std::function<void(const StoreSite&)>& visit)
      : program_(program), visit_(visit) {}

  void Run() {
    for (size_t k = 0; k < program_.kernels.size(); ++k) {
      kernel_ = static_cast<int>(k);
      if (program_.kernels[k].body != nullptr) Walk(*program_.kernels[k].body);
    }
  }

 private:
  // The unroll decision needs the loop's whole body, so it is taken once
  // per loop on entry, with the budget of the innermost enclosing
  // auto_unroll_max_step (the loop's own included), as the emitter does.
  void EnterLoop(const StmtNode& loop) override {
    const int64_t budget =
        loop.auto_unroll_max_step > 0 ? loop.auto_unroll_max_step
                                      : (budgets_.empty() ? 0 : budgets_.back());
    budgets_.push_back(budget);
    // Only the CPU backend unrolls by these rules; GPU analysis never asks.
    const bool cpu = program_.target == DeviceKind::kCpu;
    unrolled_.push_back(loop.for_kind == ForKind::kUnrolled ||
                        (cpu && loop.for_kind == ForKind::kSerial &&
                         SerialLoopUnrolled(loop, budget)));
  }
  void ExitLoop(const StmtNode&) override {
    budgets_.pop_back();
    unrolled_.pop_back();
  }

  void VisitStore(const StmtNode& s) override {
    loops_.clear();
    const std::vector<EnclosingLoop>& enclosing = enclosing_loops();
    for (size_t i = 0; i < enclosing.size(); ++i) {
      if (enclosing[i].shadowed) continue;
      const StmtNode& loop = *enclosing[i].loop;
      // A loop that runs zero times would zero every product; it does no
      // work the analyzer could rank anyway.
      loops_.push_back(
          LoopInfo{loop.var, std::max<int64_t>(loop.extent, 1), loop.for_kind, unrolled_[i]});
    }
    StoreSite site;
    site.program = &program_;
    site.kernel = kernel_;
    site.store = &s;
    site.loops = loops_;
    visit_(site);
  }

  const Program& program_;
  const std::function<void(const StoreSite&)>& visit_;
  int kernel_ = 0;
  std::vector<LoopInfo> loops_;
  std::vector<int64_t> budgets_;  // per enclosing loop
  std::vector<bool> unrolled_;    // per enclosing loop
};

}  // namespace

void ForEachStore(const Program& program, const std::function<void(const StoreSite&)>& visit) {
  StoreWalker(program, visit).Run();
}

}  // namespace pruner
