#include "common/lower/layout_order.h"

#include <algorithm>
#include <map>
#include <memory>
#include <numeric>
#include <set>
#include <utility>
#include <vector>

namespace pruner {
namespace {

// The access a buffer's layout follows, with the depth of each loop around
// it.
struct Access {
  std::vector<Expr> indices;
  std::map<int, int> depth_of_var;
  int rank = -1;  // which of several candidate accesses wins (highest)
};

// How much a store into an attached buffer says about its hot loop: the
// reduction update runs innermost, the init and copies less often.
int StoreRank(StoreRole role) {
  switch (role) {
    case StoreRole::kReduceUpdate: return 2;
    case StoreRole::kCompute: return 1;
    case StoreRole::kReduceInit: return 0;
  }
  return 0;
}

class AccessFinder {
 public:
  AccessFinder(const std::set<int>& attached, const std::set<int>& layout_free)
      : attached_(attached), layout_free_(layout_free) {}

  void Walk(const Stmt& s) {
    if (s == nullptr) return;
    switch (s->kind) {
      case StmtKind::kFor:
        loops_.push_back(s->var);
        Walk(s->body);
        loops_.pop_back();
        return;
      case StmtKind::kSeq:
        for (const Stmt& c : s->seq) Walk(c);
        return;
      case StmtKind::kIfThenElse:
        Walk(s->body);
        Walk(s->else_body);
        return;
      case StmtKind::kAllocate:
        Walk(s->body);
        return;
      case StmtKind::kStore:
        if (attached_.count(s->buffer) > 0) Offer(s->buffer, s->indices, StoreRank(s->store_role));
        VisitExpr(s->value, [&](const ExprNode& n) {
          if (n.kind != ExprKind::kRead || layout_free_.count(n.id) == 0) return;
          ++reads_[n.id];
          Offer(n.id, n.args, 0);
        });
        return;
      case StmtKind::kBarrier:
        return;
    }
  }

  const std::map<int, Access>& accesses() const { return accesses_; }
  int reads(int buffer) const {
    auto it = reads_.find(buffer);
    return it == reads_.end() ? 0 : it->second;
  }

 private:
  void Offer(int buffer, const std::vector<Expr>& indices, int rank) {
    Access& a = accesses_[buffer];
    if (rank <= a.rank) return;
    a.indices = indices;
    a.rank = rank;
    a.depth_of_var.clear();
    for (size_t d = 0; d < loops_.size(); ++d) a.depth_of_var[loops_[d]] = static_cast<int>(d);
  }

  const std::set<int>& attached_;
  const std::set<int>& layout_free_;
  std::vector<int> loops_;
  std::map<int, Access> accesses_;
  std::map<int, int> reads_;
};

// Dimensions sorted by the depth of the deepest loop in their index (-1:
// none), ties in tensor order.
std::vector<int> OrderOf(const Access& a) {
  std::vector<int> depth(a.indices.size(), -1);
  for (size_t d = 0; d < a.indices.size(); ++d) {
    VisitExpr(a.indices[d], [&](const ExprNode& n) {
      if (n.kind != ExprKind::kVar) return;
      auto it = a.depth_of_var.find(n.id);
      if (it != a.depth_of_var.end()) depth[d] = std::max(depth[d], it->second);
    });
  }
  std::vector<int> order(a.indices.size());
  std::iota(order.begin(), order.end(), 0);
  std::stable_sort(order.begin(), order.end(), [&](int x, int y) { return depth[x] < depth[y]; });
  return order;
}

template <typename T>
std::vector<T> Permuted(const std::vector<T>& v, const std::vector<int>& order) {
  std::vector<T> out;
  out.reserve(order.size());
  for (int d : order) out.push_back(v[d]);
  return out;
}

class AccessRewriter {
 public:
  explicit AccessRewriter(const std::map<int, std::vector<int>>& orders) : orders_(orders) {}

  Stmt Rewrite(const Stmt& s) const {
    if (s == nullptr) return s;
    auto n = std::make_shared<StmtNode>(*s);
    switch (s->kind) {
      case StmtKind::kFor:
      case StmtKind::kAllocate:
        n->body = Rewrite(s->body);
        break;
      case StmtKind::kSeq:
        for (Stmt& c : n->seq) c = Rewrite(c);
        break;
      case StmtKind::kIfThenElse:
        n->body = Rewrite(s->body);
        n->else_body = Rewrite(s->else_body);
        break;
      case StmtKind::kStore: {
        auto it = orders_.find(s->buffer);
        if (it != orders_.end()) n->indices = Permuted(s->indices, it->second);
        n->value = RewriteReads(s->value, [&](const ExprNode& read) -> Expr {
          auto order = orders_.find(read.id);
          if (order == orders_.end()) return nullptr;
          return Read(read.id, read.name, read.dtype, Permuted(read.args, order->second));
        });
        break;
      }
      case StmtKind::kBarrier:
        break;
    }
    return n;
  }

 private:
  const std::map<int, std::vector<int>>& orders_;
};

bool IsIdentity(const std::vector<int>& order) {
  for (size_t d = 0; d < order.size(); ++d) {
    if (order[d] != static_cast<int>(d)) return false;
  }
  return true;
}

}  // namespace

void OrderBufferDimsByLoops(const ComputeDag& dag, Program* program) {
  if (program->target != DeviceKind::kCpu) return;
  std::set<int> attached;
  std::set<int> layout_free;
  for (const Buffer& b : program->buffers) {
    if (b.shape.size() < 2) continue;
    if (b.attached) attached.insert(b.id);
    if (b.role == BufferRole::kInput) {
      const Op* op = dag.FindTensor(b.tensor_id);
      if (op != nullptr && op->is_layout_free()) layout_free.insert(b.id);
    }
  }
  if (attached.empty() && layout_free.empty()) return;
  AccessFinder finder(attached, layout_free);
  for (const Kernel& k : program->kernels) finder.Walk(k.body);

  std::map<int, std::vector<int>> orders;
  for (const auto& [buffer, access] : finder.accesses()) {
    if (layout_free.count(buffer) > 0 && finder.reads(buffer) != 1) continue;
    std::vector<int> order = OrderOf(access);
    if (!IsIdentity(order)) orders[buffer] = std::move(order);
  }
  if (orders.empty()) return;
  for (const auto& [id, order] : orders) {
    Buffer& b = program->buffers[id];
    b.shape = Permuted(b.shape, order);
    b.region_min = Permuted(b.region_min, order);
    b.dim_order = order;
  }
  const AccessRewriter rewriter(orders);
  for (Kernel& k : program->kernels) k.body = rewriter.Rewrite(k.body);
}

}  // namespace pruner
