#include "common/features/op_counts.h"

namespace pruner {
namespace {

bool LeftIsFloat(const ExprNode& e) { return !e.args.empty() && IsFloat(e.args[0]->dtype); }

}  // namespace

void CountOps(const ExprNode& e, OpCounts* c) {
  switch (e.kind) {
    case ExprKind::kBinary: {
      const bool f = LeftIsFloat(e);
      switch (e.binary_op()) {
        case BinaryOp::kAdd:
        case BinaryOp::kSub:
          ++(f ? c->float_addsub : c->int_addsub);
          break;
        case BinaryOp::kMul:
          ++(f ? c->float_mul : c->int_mul);
          break;
        case BinaryOp::kDiv:
        case BinaryOp::kFloorDiv:
        case BinaryOp::kFloorMod:
          ++(f ? c->float_divmod : c->int_divmod);
          break;
        case BinaryOp::kMin:
        case BinaryOp::kMax:
          ++(f ? c->float_cmp : c->int_cmp);
          break;
      }
      break;
    }
    case ExprKind::kCompare:
      ++(LeftIsFloat(e) ? c->float_cmp : c->int_cmp);
      break;
    case ExprKind::kAnd:
    case ExprKind::kOr:
    case ExprKind::kNot:
      ++c->bool_op;
      break;
    case ExprKind::kSelect:
      ++c->select_op;
      break;
    case ExprKind::kCall:
      // Every CallFn we have (exp, tanh, erf, sqrt, log, sigmoid, abs) is a
      // pure math intrinsic; TVM counts such calls as math_func.
      ++(IsFloat(e.dtype) ? c->float_math_func : c->int_math_func);
      break;
    case ExprKind::kIntImm:
    case ExprKind::kFloatImm:
    case ExprKind::kVar:
    case ExprKind::kRead:
    case ExprKind::kCast:
      break;
  }
  for (const Expr& arg : e.args) CountOps(*arg, c);
}

}  // namespace pruner
