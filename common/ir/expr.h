// Scalar expressions: the bodies of compute stages and, after lowering, the
// index and value expressions of loop-nest programs. One immutable node type
// keeps traversal, hashing and printing in one place.
//
// Variables are small integers. Inside a compute stage's body, variable i is
// the stage's i-th axis (spatial axes first, then reduce axes); in a lowered
// program, variables are loop and thread indices numbered by the program.
#ifndef PRUNER_COMMON_IR_EXPR_H_
#define PRUNER_COMMON_IR_EXPR_H_

#include <cstdint>
#include <functional>
#include <memory>
#include <string>
#include <vector>

#include "common/ir/dtype.h"

namespace pruner {

enum class ExprKind : uint8_t {
  kIntImm,    // int_value
  kFloatImm,  // float_value
  kVar,       // var (id), name
  kRead,      // tensor (id), args = indices
  kBinary,    // binary_op, args = {a, b}
  kCompare,   // compare_op, args = {a, b}; dtype bool
  kAnd,       // args = {a, b}; dtype bool
  kOr,        // args = {a, b}; dtype bool
  kNot,       // args = {a}; dtype bool
  kSelect,    // args = {cond, then, else}
  kCall,      // call, args
  kCast,      // args = {a}; dtype is the target
};

// Integer kDiv truncates toward zero like C; kFloorDiv/kFloorMod round toward
// negative infinity, so floordiv(-1, 4) == -1 and floormod(-1, 4) == 3. On
// floats, floordiv(a, b) is floor(a / b) and floormod(a, b) = a - b * that.
enum class BinaryOp : uint8_t { kAdd, kSub, kMul, kDiv, kFloorDiv, kFloorMod, kMin, kMax };
enum class CompareOp : uint8_t { kLT, kLE, kGT, kGE, kEQ, kNE };
enum class CallFn : uint8_t { kExp, kTanh, kErf, kSqrt, kLog, kSigmoid, kAbs };

struct ExprNode;
using Expr = std::shared_ptr<const ExprNode>;

struct ExprNode {
  ExprKind kind;
  DType dtype;
  int64_t int_value = 0;
  double float_value = 0;
  int id = -1;  // variable id for kVar, tensor id for kRead
  uint8_t op = 0;  // BinaryOp / CompareOp / CallFn, by kind
  std::string name;  // variable or tensor name, for printing only
  std::vector<Expr> args;

  BinaryOp binary_op() const { return static_cast<BinaryOp>(op); }
  CompareOp compare_op() const { return static_cast<CompareOp>(op); }
  CallFn call_fn() const { return static_cast<CallFn>(op); }
};

// ---- Constructors. Integer arithmetic on constants is folded, and the
// identities x+0, x*1, x*0 are applied, so index expressions stay small.
// Constants of commutative integer ops move to the right ("1 + x" becomes
// "x + 1") and chains of constant additions merge. Float arithmetic is kept
// as written. Operand dtypes are not checked here: ComputeDag::Create does.
Expr IntImm(int64_t v, DType t = DType::kInt64);
Expr FloatImm(double v, DType t = DType::kFloat32);
Expr Var(int id, std::string name, DType t = DType::kInt64);
Expr Read(int tensor, std::string tensor_name, DType t, std::vector<Expr> indices);
Expr Binary(BinaryOp op, Expr a, Expr b);
Expr Compare(CompareOp op, Expr a, Expr b);
Expr And(Expr a, Expr b);
Expr Or(Expr a, Expr b);
Expr Not(Expr a);
Expr Select(Expr cond, Expr then_value, Expr else_value);
Expr Call(CallFn fn, std::vector<Expr> args);
Expr Cast(DType t, Expr a);

inline Expr Add(Expr a, Expr b) { return Binary(BinaryOp::kAdd, std::move(a), std::move(b)); }
inline Expr Sub(Expr a, Expr b) { return Binary(BinaryOp::kSub, std::move(a), std::move(b)); }
inline Expr Mul(Expr a, Expr b) { return Binary(BinaryOp::kMul, std::move(a), std::move(b)); }
inline Expr Div(Expr a, Expr b) { return Binary(BinaryOp::kDiv, std::move(a), std::move(b)); }
inline Expr FloorDiv(Expr a, Expr b) { return Binary(BinaryOp::kFloorDiv, std::move(a), std::move(b)); }
inline Expr FloorMod(Expr a, Expr b) { return Binary(BinaryOp::kFloorMod, std::move(a), std::move(b)); }
inline Expr Min(Expr a, Expr b) { return Binary(BinaryOp::kMin, std::move(a), std::move(b)); }
inline Expr Max(Expr a, Expr b) { return Binary(BinaryOp::kMax, std::move(a), std::move(b)); }

// ---- Queries.
bool IsConstInt(const Expr& e, int64_t* value = nullptr);
bool StructurallyEqual(const Expr& a, const Expr& b);
// Element by element (index lists of two accesses, say).
bool StructurallyEqual(const std::vector<Expr>& a, const std::vector<Expr>& b);
// Calls f on e and every sub-expression, parents before children.
void VisitExpr(const Expr& e, const std::function<void(const ExprNode&)>& f);
// True when some kVar node with this id occurs in e.
bool UsesVar(const Expr& e, int var_id);
// Ids of tensors read anywhere in e, in first-visit order, without repeats.
std::vector<int> ReadTensors(const Expr& e);

// ---- Rewriting.
// Replaces every variable v with subst(v.id) when that returns non-null.
Expr SubstituteVars(const Expr& e, const std::function<Expr(int var_id)>& subst);
// Rewrites every kRead node: f receives the node with its indices already
// rewritten and returns the replacement (or the node itself). Returning
// nullptr also keeps the node, since f only sees a reference.
Expr RewriteReads(const Expr& e, const std::function<Expr(const ExprNode& read)>& f);
// Rebuilds `node` with new operands through the constructors above, so the
// result is folded like any freshly built expression. Leaves are copied.
Expr WithArgs(const ExprNode& node, std::vector<Expr> args);

// Affine view of an integer expression: sum(coeff[v] * v) + constant.
// Returns false when e is not affine (contains floordiv, mod, min, reads ...).
struct AffineForm {
  std::vector<std::pair<int, int64_t>> terms;  // (var id, coefficient), sorted by id, no zeros
  int64_t constant = 0;
};
bool ToAffine(const Expr& e, AffineForm* out);

// Canonical text: variables print as their names, tensors as their names.
// Deterministic and used for workload keys, so it must never change silently.
//
// Format: every infix node is parenthesized, "(a + b)", "(a < b)",
// "(a && b)"; floordiv/floormod/min/max/select, calls and casts print as
// functions, "floordiv(a, b)", "exp(a)", "float32(a)"; reads print as
// "A[i, j]". int64 literals print bare ("-3"), int32 ones with "i32", bools as
// true/false; floats print the shortest digits that round-trip the double
// exactly, always with '.' or an exponent, then "f" (float32) or "h"
// (float16): "0.5f", "1e+30f", "-inff", "nanf".
std::string ToString(const Expr& e);
// Same format, but each kVar and kRead node prints as name_of(node) instead
// of its stored name (the canonical DAG text names things by position).
std::string ToString(const Expr& e, const std::function<std::string(const ExprNode&)>& name_of);

const char* BinaryOpName(BinaryOp op);
const char* CompareOpName(CompareOp op);
const char* CallFnName(CallFn fn);

}  // namespace pruner

#endif  // PRUNER_COMMON_IR_EXPR_H_
