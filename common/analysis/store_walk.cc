#include "common/analysis/store_walk.h"

#include <algorithm>

namespace pruner {
namespace {

class StoreWalker {
 public:
  StoreWalker(const Program& program, const std::function<void(const StoreSite&)>& visit)
      : program_(program), visit_(visit) {}

  void Run() {
    for (size_t k = 0; k < program_.kernels.size(); ++k) {
      kernel_ = static_cast<int>(k);
      if (program_.kernels[k].body != nullptr) Visit(*program_.kernels[k].body);
    }
  }

 private:
  struct Frame {
    LoopInfo loop;
    bool shadowed = false;
  };

  void Visit(const StmtNode& s) {
    switch (s.kind) {
      case StmtKind::kFor:
        VisitFor(s);
        break;
      case StmtKind::kSeq:
        for (const Stmt& child : s.seq) Visit(*child);
        break;
      case StmtKind::kIfThenElse:
        if (s.body != nullptr) Visit(*s.body);
        if (s.else_body != nullptr) Visit(*s.else_body);
        break;
      case StmtKind::kAllocate:
        if (s.body != nullptr) Visit(*s.body);
        break;
      case StmtKind::kStore:
        VisitStore(s);
        break;
      case StmtKind::kBarrier:
        break;
    }
  }

  void VisitFor(const StmtNode& s) {
    int shadow = -1;
    if (IsThreadBindingKind(s.for_kind)) {
      for (int j = static_cast<int>(frames_.size()) - 1; j >= 0; --j) {
        if (!frames_[j].shadowed && frames_[j].loop.kind == s.for_kind) {
          shadow = j;
          break;
        }
      }
    }
    if (shadow >= 0) frames_[shadow].shadowed = true;
    // A loop that runs zero times would zero every product; it does no work
    // the analyzer could rank anyway.
    frames_.push_back({LoopInfo{s.var, std::max<int64_t>(s.extent, 1), s.for_kind}, false});
    if (s.body != nullptr) Visit(*s.body);
    frames_.pop_back();
    if (shadow >= 0) frames_[shadow].shadowed = false;
  }

  void VisitStore(const StmtNode& s) {
    loops_.clear();
    for (const Frame& f : frames_) {
      if (!f.shadowed) loops_.push_back(f.loop);
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
  std::vector<Frame> frames_;
  std::vector<LoopInfo> loops_;
};

}  // namespace

void ForEachStore(const Program& program, const std::function<void(const StoreSite&)>& visit) {
  StoreWalker(program, visit).Run();
}

}  // namespace pruner
