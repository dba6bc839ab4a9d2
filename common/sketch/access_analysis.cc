#include "common/sketch/access_analysis.h"

#include <algorithm>
#include <map>
#include <set>
#include <string>

namespace pruner {
namespace {

// A transcendental call: as costly as exp, so never worth recomputing.
bool IsExpensiveCall(const ExprNode& n) {
  return n.kind == ExprKind::kCall && n.call_fn() != CallFn::kAbs;
}

// Index `e` is a constant (returns -1 in *axis) or spatial axis a plus a
// constant (returns a). False for anything else.
bool SimpleIndex(const Expr& e, int num_spatial, int* axis) {
  AffineForm form;
  if (!ToAffine(e, &form)) return false;
  if (form.terms.empty()) {
    *axis = -1;
    return true;
  }
  if (form.terms.size() != 1 || form.terms[0].second != 1) return false;
  const int var = form.terms[0].first;
  if (var < 0 || var >= num_spatial) return false;
  *axis = var;
  return true;
}

// Simple access with the axes in increasing order and none repeated.
bool IsInlineFriendlyRead(const std::vector<Expr>& indices, int num_spatial) {
  int last_axis = -1;
  for (const Expr& index : indices) {
    int axis = -1;
    if (!SimpleIndex(index, num_spatial, &axis)) return false;
    if (axis < 0) continue;
    if (axis <= last_axis) return false;  // transposed or repeated
    last_axis = axis;
  }
  return true;
}

bool ComputeStrictlyInlineable(const Op& op) {
  if (op.is_placeholder() || !op.reduce_axes.empty()) return false;
  bool ok = true;
  const int num_spatial = static_cast<int>(op.axes.size());
  VisitExpr(op.body, [&](const ExprNode& n) {
    if (!ok) return;
    if (IsExpensiveCall(n)) ok = false;
    // No select at all, padding's bounds check included (as TVM): inlined
    // into a conv2d it puts a compare and branch before every multiply-add
    // of the register tile, which held a tuned ResNet conv2d at ~250
    // GFLOP/s on AVX-512 where the same schedule with the padding computed
    // first (root, or at a loop of the conv, as annotation picks) ran at
    // ~450.
    if (n.kind == ExprKind::kSelect) ok = false;
    if (n.kind == ExprKind::kRead && !IsInlineFriendlyRead(n.args, num_spatial)) ok = false;
  });
  return ok;
}

bool ComputeNeedsTiling(const Op& op) {
  if (op.is_placeholder()) return false;
  // Variables used to index each producer, pooled over all its reads.
  std::map<int, std::set<int>> vars_by_producer;
  VisitExpr(op.body, [&](const ExprNode& n) {
    if (n.kind != ExprKind::kRead) return;
    std::set<int>& vars = vars_by_producer[n.id];
    for (const Expr& index : n.args) {
      VisitExpr(index, [&](const ExprNode& v) {
        if (v.kind == ExprKind::kVar) vars.insert(v.id);
      });
    }
  });
  int producers_with_reuse = 0;
  for (const auto& [tensor, vars] : vars_by_producer) {
    for (size_t a = 0; a < op.axes.size(); ++a) {
      if (op.axes[a].extent > 1 && !vars.count(static_cast<int>(a))) {
        ++producers_with_reuse;
        break;
      }
    }
  }
  return producers_with_reuse >= 2 || (producers_with_reuse >= 1 && !op.reduce_axes.empty());
}

// `consumer` reads `producer` only as producer[i0, i1, ...] at its own axes.
bool ReadsElementWise(const Op& consumer, const Op& producer) {
  if (consumer.is_placeholder() || consumer.shape != producer.shape) return false;
  const auto reads = ReadsOf(consumer, producer.id);
  if (reads.empty()) return false;
  for (const std::vector<Expr>& indices : reads) {
    if (indices.size() != consumer.axes.size()) return false;
    for (size_t d = 0; d < indices.size(); ++d) {
      const ExprNode& index = *indices[d];
      if (index.kind != ExprKind::kVar || index.id != static_cast<int>(d)) return false;
    }
  }
  return true;
}

}  // namespace

AccessAnalysis::AccessAnalysis(const ComputeDag& dag) {
  const int n = dag.num_ops();
  strictly_inlineable_.resize(n);
  needs_tiling_.resize(n);
  is_output_.resize(n);
  elementwise_next_.assign(n, -1);
  for (int i = 0; i < n; ++i) {
    const Op& op = dag.op(i);
    const std::vector<int> consumers = dag.Consumers(i);
    strictly_inlineable_[i] = ComputeStrictlyInlineable(op);
    needs_tiling_[i] = ComputeNeedsTiling(op);
    is_output_[i] = !op.is_placeholder() && consumers.empty();
    if (consumers.size() == 1 && ReadsElementWise(dag.op(consumers[0]), op)) {
      elementwise_next_[i] = consumers[0];
    }
  }
}

bool AccessAnalysis::ElementWiseMatch(int op, int target) const {
  int current = op;
  while (current != target) {
    current = elementwise_next_[current];
    if (current < 0) return false;
  }
  return true;
}

namespace {

void CollectThroughInlined(const State& state, int stage, bool consumers, std::set<int>* out) {
  const ComputeDag& dag = state.current_dag();
  for (int next : consumers ? dag.Consumers(stage) : dag.Producers(stage)) {
    if (state.stage(next).compute_at == ComputeAtKind::kInlined) {
      CollectThroughInlined(state, next, consumers, out);
    } else {
      out->insert(next);
    }
  }
}

}  // namespace

std::vector<int> GetConsumers(const State& state, int stage) {
  std::set<int> out;
  CollectThroughInlined(state, stage, /*consumers=*/true, &out);
  return {out.begin(), out.end()};
}

std::vector<int> GetProducers(const State& state, int stage) {
  std::set<int> out;
  CollectThroughInlined(state, stage, /*consumers=*/false, &out);
  return {out.begin(), out.end()};
}

std::vector<int> GetDirectProducers(const State& state, int stage) {
  std::vector<int> out = state.current_dag().Producers(stage);
  std::sort(out.begin(), out.end());
  return out;
}

bool HasSingleElementwiseMatchedConsumer(const State& state, const AccessAnalysis& analysis,
                                         int stage, int* target) {
  const std::vector<int> consumers = GetConsumers(state, stage);
  if (consumers.size() != 1) return false;
  const int consumer = consumers[0];
  if (!analysis.ElementWiseMatch(stage, consumer)) return false;
  if (state.stage(stage).has_reduce() && state.stage(consumer).has_reduce()) return false;
  if (state.stage(consumer).scope == "shared") return false;
  if (target != nullptr) *target = consumer;
  return true;
}

}  // namespace pruner
