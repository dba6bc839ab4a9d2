#include "common/features/workload_tag.h"

#include <string>
#include <string_view>

namespace pruner {
namespace {

enum TagEntry {
  kMax = 0,
  kMin = 1,
  kAdd = 2,
  kConv2d = 3,
  kWinograd = 4,
  kDepthwise = 5,
  kDense = 6,
  kSoftmax = 7,
  kBatchMatmul = 8,
};

bool HasBinary(const Expr& body, BinaryOp op) {
  bool found = false;
  VisitExpr(body, [&](const ExprNode& e) {
    found = found || (e.kind == ExprKind::kBinary && e.binary_op() == op);
  });
  return found;
}

}  // namespace

WorkloadTag ComputeWorkloadTag(const ComputeDag& dag) {
  WorkloadTag tag{};
  for (const OpRef& op : dag.ops()) {
    if (op->is_placeholder()) continue;
    if (op->reduce == ReduceKind::kMax || HasBinary(op->body, BinaryOp::kMax)) tag[kMax] = 1;
    if (HasBinary(op->body, BinaryOp::kMin)) tag[kMin] = 1;
    const auto it = op->attrs.find("op");
    const std::string_view kind = it == op->attrs.end() ? "" : std::string_view(it->second);
    if (kind == "add" || kind == "bias_add") tag[kAdd] = 1;
    if (kind == "conv2d" || kind == "group_conv2d") tag[kConv2d] = 1;
    if (kind.find("winograd") != std::string_view::npos) tag[kWinograd] = 1;
    if (kind == "depthwise_conv2d") tag[kDepthwise] = 1;
    if (kind == "dense" || kind == "matmul") tag[kDense] = 1;
    if (kind.starts_with("softmax")) tag[kSoftmax] = 1;
    if (kind == "batch_matmul") tag[kBatchMatmul] = 1;
  }
  return tag;
}

}  // namespace pruner
