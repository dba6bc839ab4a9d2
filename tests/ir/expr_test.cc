#include "common/ir/expr.h"

#include <cmath>
#include <limits>

#include "common/ir/reference.h"
#include "gmock/gmock.h"
#include "gtest/gtest.h"

namespace pruner {
namespace {

Expr I() { return Var(0, "i"); }
Expr J() { return Var(1, "j"); }
Expr C(int64_t v) { return IntImm(v); }

int64_t ConstValue(const Expr& e) {
  int64_t v = 0;
  EXPECT_TRUE(IsConstInt(e, &v)) << ToString(e);
  return v;
}

int64_t EvalInt(const Expr& e, std::vector<int64_t> vars = {}) {
  absl::StatusOr<double> v = EvaluateExpr(e, vars);
  EXPECT_TRUE(v.ok()) << v.status();
  return v.ok() ? static_cast<int64_t>(*v) : 0;
}

TEST(ExprFoldingTest, FoldsIntegerConstants) {
  EXPECT_EQ(ConstValue(Add(C(2), C(3))), 5);
  EXPECT_EQ(ConstValue(Sub(C(2), C(7))), -5);
  EXPECT_EQ(ConstValue(Mul(C(4), C(-3))), -12);
  EXPECT_EQ(ConstValue(Min(C(4), C(-3))), -3);
  EXPECT_EQ(ConstValue(Max(C(4), C(-3))), 4);
  EXPECT_EQ(ConstValue(Div(C(-7), C(2))), -3);  // C truncation
}

TEST(ExprFoldingTest, FloorDivAndModRoundTowardNegativeInfinity) {
  EXPECT_EQ(ConstValue(FloorDiv(C(7), C(2))), 3);
  EXPECT_EQ(ConstValue(FloorDiv(C(-7), C(2))), -4);
  EXPECT_EQ(ConstValue(FloorDiv(C(7), C(-2))), -4);
  EXPECT_EQ(ConstValue(FloorDiv(C(-7), C(-2))), 3);
  EXPECT_EQ(ConstValue(FloorMod(C(-1), C(4))), 3);
  EXPECT_EQ(ConstValue(FloorMod(C(7), C(-2))), -1);
  EXPECT_EQ(ConstValue(FloorMod(C(-8), C(4))), 0);
  // The evaluator agrees with the folder on non-constant operands.
  const Expr e = FloorMod(I(), C(4));
  EXPECT_EQ(EvalInt(e, {-1}), 3);
  EXPECT_EQ(EvalInt(FloorDiv(I(), C(4)), {-1}), -1);
}

TEST(ExprFoldingTest, DivisionByZeroIsNotFolded) {
  const Expr e = FloorDiv(C(1), C(0));
  EXPECT_EQ(e->kind, ExprKind::kBinary);
  absl::StatusOr<double> v = EvaluateExpr(e, {});
  EXPECT_EQ(v.status().code(), absl::StatusCode::kInvalidArgument);
  std::cout << "division by zero: " << v.status() << "\n";
}

TEST(ExprFoldingTest, AppliesIdentities) {
  EXPECT_TRUE(StructurallyEqual(Add(I(), C(0)), I()));
  EXPECT_TRUE(StructurallyEqual(Add(C(0), I()), I()));
  EXPECT_TRUE(StructurallyEqual(Sub(I(), C(0)), I()));
  EXPECT_TRUE(StructurallyEqual(Mul(I(), C(1)), I()));
  EXPECT_TRUE(StructurallyEqual(Mul(C(1), I()), I()));
  EXPECT_EQ(ConstValue(Mul(I(), C(0))), 0);
  EXPECT_EQ(ConstValue(Mul(C(0), I())), 0);
  EXPECT_TRUE(StructurallyEqual(FloorDiv(I(), C(1)), I()));
  EXPECT_EQ(ConstValue(FloorMod(I(), C(1))), 0);
}

TEST(ExprFoldingTest, FloatArithmeticIsKeptAsWritten) {
  const Expr x = Read(0, "A", DType::kFloat32, {I()});
  EXPECT_EQ(ToString(Mul(x, FloatImm(1.0))), "(A[i] * 1.0f)");
  EXPECT_EQ(ToString(Add(x, FloatImm(0.0))), "(A[i] + 0.0f)");
}

TEST(ExprFoldingTest, MergesNestedConstantOffsets) {
  EXPECT_EQ(ToString(Add(Add(I(), C(2)), C(3))), "(i + 5)");
  EXPECT_EQ(ToString(Sub(Add(I(), C(2)), C(3))), "(i - 1)");
  EXPECT_EQ(ToString(Add(Sub(I(), C(2)), C(2))), "i");
  EXPECT_EQ(ToString(Add(C(3), I())), "(i + 3)");  // constants move right
  EXPECT_EQ(ToString(Add(I(), C(-3))), "(i - 3)");
  EXPECT_EQ(ToString(Mul(Mul(I(), C(2)), C(3))), "(i * 6)");
}

TEST(ExprFoldingTest, FoldsComparesAndLogic) {
  const Expr t = Compare(CompareOp::kLT, C(1), C(2));
  ASSERT_EQ(t->kind, ExprKind::kIntImm);
  EXPECT_EQ(t->dtype, DType::kBool);
  EXPECT_EQ(t->int_value, 1);
  const Expr cond = Compare(CompareOp::kLT, I(), C(4));
  EXPECT_EQ(And(t, cond), cond);
  EXPECT_EQ(Or(t, cond), t);
  EXPECT_EQ(Not(Not(cond)), cond);
  EXPECT_TRUE(StructurallyEqual(Select(t, I(), J()), I()));
  EXPECT_EQ(ConstValue(Cast(DType::kInt32, C(7))), 7);
  EXPECT_EQ(Cast(DType::kInt32, C(7))->dtype, DType::kInt32);
}

TEST(ExprAffineTest, RecognizesAffineForms) {
  AffineForm f;
  ASSERT_TRUE(ToAffine(Add(Mul(I(), C(3)), Sub(J(), C(4))), &f));
  EXPECT_EQ(f.constant, -4);
  ASSERT_EQ(f.terms.size(), 2u);
  EXPECT_EQ(f.terms[0], std::make_pair(0, int64_t{3}));
  EXPECT_EQ(f.terms[1], std::make_pair(1, int64_t{1}));

  // 2 * (i + j) - 2 * j == 2 * i: cancelled terms disappear.
  ASSERT_TRUE(ToAffine(Sub(Mul(C(2), Add(I(), J())), Mul(J(), C(2))), &f));
  EXPECT_EQ(f.constant, 0);
  ASSERT_EQ(f.terms.size(), 1u);
  EXPECT_EQ(f.terms[0], std::make_pair(0, int64_t{2}));

  ASSERT_TRUE(ToAffine(C(9), &f));
  EXPECT_TRUE(f.terms.empty());
  EXPECT_EQ(f.constant, 9);
}

TEST(ExprAffineTest, RejectsNonAffineExpressions) {
  AffineForm f;
  EXPECT_FALSE(ToAffine(Mul(I(), J()), &f));
  EXPECT_FALSE(ToAffine(FloorDiv(I(), C(2)), &f));
  EXPECT_FALSE(ToAffine(FloorMod(I(), C(2)), &f));
  EXPECT_FALSE(ToAffine(Min(I(), C(2)), &f));
  EXPECT_FALSE(ToAffine(Read(0, "idx", DType::kInt64, {I()}), &f));
  EXPECT_FALSE(ToAffine(FloatImm(1.0), &f));
}

TEST(ExprPrintTest, PrintsEveryKindDeterministically) {
  const Expr a = Read(0, "A", DType::kFloat32, {I(), Add(J(), C(1))});
  const Expr cond = And(Compare(CompareOp::kGE, I(), C(1)), Not(Compare(CompareOp::kEQ, J(), C(0))));
  const Expr e = Select(cond, Call(CallFn::kExp, {a}), Max(a, FloatImm(-0.5)));
  EXPECT_EQ(ToString(e),
            "select(((i >= 1) && !(j == 0)), exp(A[i, (j + 1)]), max(A[i, (j + 1)], -0.5f))");
  EXPECT_EQ(ToString(FloorDiv(I(), C(4))), "floordiv(i, 4)");
  EXPECT_EQ(ToString(FloorMod(I(), C(4))), "floormod(i, 4)");
  EXPECT_EQ(ToString(Cast(DType::kFloat32, I())), "float32(i)");
  EXPECT_EQ(ToString(IntImm(3, DType::kInt32)), "3i32");
  EXPECT_EQ(ToString(IntImm(1, DType::kBool)), "true");
  EXPECT_EQ(ToString(Or(Compare(CompareOp::kLT, I(), J()), Compare(CompareOp::kNE, I(), C(2)))),
            "((i < j) || (i != 2))");
}

TEST(ExprPrintTest, FloatsRoundTripExactly) {
  EXPECT_EQ(ToString(FloatImm(0.1)), "0.1f");
  EXPECT_EQ(ToString(FloatImm(1.0)), "1.0f");
  EXPECT_EQ(ToString(FloatImm(1e30)), "1e+30f");
  EXPECT_EQ(ToString(FloatImm(1.5, DType::kFloat16)), "1.5h");
  EXPECT_EQ(ToString(FloatImm(std::numeric_limits<double>::infinity())), "inff");
  EXPECT_EQ(ToString(FloatImm(-std::numeric_limits<double>::infinity())), "-inff");
  EXPECT_EQ(ToString(FloatImm(std::nan(""))), "nanf");
  const double third = 1.0 / 3.0;
  EXPECT_EQ(std::stod(ToString(FloatImm(third))), third);
}

TEST(ExprPrintTest, NameHookReplacesNames) {
  const Expr e = Add(Read(7, "A", DType::kFloat32, {I()}), FloatImm(1.0));
  EXPECT_EQ(ToString(e, [](const ExprNode& n) {
              return n.kind == ExprKind::kVar ? "v" + std::to_string(n.id)
                                              : "T" + std::to_string(n.id);
            }),
            "(T7[v0] + 1.0f)");
}

TEST(ExprQueryTest, StructuralEqualityIgnoresNamesButNotIds) {
  EXPECT_TRUE(StructurallyEqual(Var(0, "i"), Var(0, "renamed")));
  EXPECT_FALSE(StructurallyEqual(Var(0, "i"), Var(1, "i")));
  EXPECT_FALSE(StructurallyEqual(IntImm(1), IntImm(1, DType::kInt32)));
  EXPECT_FALSE(StructurallyEqual(FloatImm(0.0), FloatImm(-0.0)));
  EXPECT_TRUE(StructurallyEqual(FloatImm(std::nan("")), FloatImm(std::nan(""))));
  EXPECT_FALSE(StructurallyEqual(Add(I(), J()), Add(J(), I())));
}

TEST(ExprQueryTest, VisitsParentsBeforeChildren) {
  const Expr e = Add(Mul(I(), J()), C(1));
  std::vector<ExprKind> order;
  VisitExpr(e, [&](const ExprNode& n) { order.push_back(n.kind); });
  EXPECT_THAT(order, ::testing::ElementsAre(ExprKind::kBinary, ExprKind::kBinary, ExprKind::kVar,
                                            ExprKind::kVar, ExprKind::kIntImm));
}

TEST(ExprQueryTest, UsesVarAndReadTensors) {
  const Expr a = Read(3, "A", DType::kFloat32, {I()});
  const Expr b = Read(1, "B", DType::kFloat32, {Read(5, "idx", DType::kInt64, {J()})});
  const Expr e = Add(Add(a, b), a);
  EXPECT_TRUE(UsesVar(e, 0));
  EXPECT_TRUE(UsesVar(e, 1));
  EXPECT_FALSE(UsesVar(e, 2));
  EXPECT_THAT(ReadTensors(e), ::testing::ElementsAre(3, 1, 5));
}

TEST(ExprRewriteTest, SubstituteVarsRefolds) {
  const Expr e = Add(Mul(I(), C(4)), J());
  const Expr s = SubstituteVars(e, [](int id) -> Expr { return id == 1 ? IntImm(3) : nullptr; });
  EXPECT_EQ(ToString(s), "((i * 4) + 3)");
  const Expr all = SubstituteVars(e, [](int id) -> Expr { return IntImm(id + 2); });
  EXPECT_EQ(ConstValue(all), 11);
  // Untouched trees are shared, not copied.
  EXPECT_EQ(SubstituteVars(e, [](int) -> Expr { return nullptr; }), e);
}

TEST(ExprRewriteTest, RewriteReadsSeesRewrittenIndices) {
  const Expr inner = Read(1, "idx", DType::kInt64, {I()});
  const Expr e = Mul(Read(0, "A", DType::kFloat32, {inner}), FloatImm(2.0));
  std::vector<std::string> seen;
  const Expr r = RewriteReads(e, [&](const ExprNode& read) -> Expr {
    seen.push_back(read.name);
    if (read.name == "idx") return Add(I(), C(1));
    if (read.name == "A") return Read(9, "B", DType::kFloat32, read.args);
    return nullptr;
  });
  EXPECT_THAT(seen, ::testing::ElementsAre("idx", "A"));
  EXPECT_EQ(ToString(r), "(B[(i + 1)] * 2.0f)");
}

TEST(ExprEvaluateTest, EvaluatesWithReadCallback) {
  const Expr e = Add(Read(0, "A", DType::kFloat32, {Add(I(), C(1))}), FloatImm(0.5));
  absl::StatusOr<double> v =
      EvaluateExpr(e, {2}, [](const ExprNode&, const std::vector<int64_t>& index)
                               -> absl::StatusOr<double> { return 10.0 * index[0]; });
  ASSERT_TRUE(v.ok()) << v.status();
  EXPECT_EQ(*v, 30.5);

  absl::StatusOr<double> no_reader = EvaluateExpr(e, {2});
  EXPECT_EQ(no_reader.status().code(), absl::StatusCode::kInvalidArgument);
  EXPECT_THAT(std::string(no_reader.status().message()),
              ::testing::HasSubstr("reads 'A' but no read function was given"));
  absl::StatusOr<double> unbound = EvaluateExpr(I(), {});
  EXPECT_EQ(unbound.status().code(), absl::StatusCode::kInvalidArgument);
  std::cout << "no reader: " << no_reader.status() << "\nunbound: " << unbound.status() << "\n";
}

TEST(ExprEvaluateTest, FloatMathHappensInFloat) {
  // 0.1f + 0.2f in float differs from the double sum.
  absl::StatusOr<double> v = EvaluateExpr(Add(FloatImm(0.1), FloatImm(0.2)), {});
  ASSERT_TRUE(v.ok());
  EXPECT_EQ(*v, static_cast<double>(0.1f + 0.2f));
  absl::StatusOr<double> sel =
      EvaluateExpr(Select(Compare(CompareOp::kLT, I(), C(0)), FloatImm(1.0), FloatImm(2.0)), {-3});
  ASSERT_TRUE(sel.ok());
  EXPECT_EQ(*sel, 1.0);
}

}  // namespace
}  // namespace pruner
