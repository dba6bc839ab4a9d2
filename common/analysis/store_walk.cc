#include "common/analysis/store_walk.h"

#include <algorithm>

#include "common/lower/loop_nest_walker.h"

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
  void VisitStore(const StmtNode& s) override {
    loops_.clear();
    for (const EnclosingLoop& enclosing : enclosing_loops()) {
      if (enclosing.shadowed) continue;
      const StmtNode& loop = *enclosing.loop;
      // A loop that runs zero times would zero every product; it does no
      // work the analyzer could rank anyway.
      loops_.push_back(LoopInfo{loop.var, std::max<int64_t>(loop.extent, 1), loop.for_kind});
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
};

}  // namespace

void ForEachStore(const Program& program, const std::function<void(const StoreSite&)>& visit) {
  StoreWalker(program, visit).Run();
}

}  // namespace pruner
