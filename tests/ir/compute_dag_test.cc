#include "common/ir/compute_dag.h"

#include <iostream>

#include "common/ir/ops.h"
#include "gmock/gmock.h"
#include "gtest/gtest.h"

namespace pruner {
namespace {

using ::testing::ElementsAre;
using ::testing::HasSubstr;

std::shared_ptr<Op> Placeholder(int id, std::string name, std::vector<int64_t> shape,
                                DType dtype = DType::kFloat32) {
  auto op = std::make_shared<Op>();
  op->id = id;
  op->name = std::move(name);
  op->kind = OpKind::kPlaceholder;
  op->dtype = dtype;
  op->shape = std::move(shape);
  return op;
}

std::shared_ptr<Op> Compute(int id, std::string name, std::vector<Axis> axes,
                            std::vector<Axis> reduce_axes = {}) {
  auto op = std::make_shared<Op>();
  op->id = id;
  op->name = std::move(name);
  op->kind = OpKind::kCompute;
  op->axes = std::move(axes);
  for (const Axis& a : op->axes) op->shape.push_back(a.extent);
  op->reduce_axes = std::move(reduce_axes);
  op->reduce = op->reduce_axes.empty() ? ReduceKind::kNone : ReduceKind::kSum;
  return op;
}

Expr ReadOf(const Op& op, std::vector<Expr> indices) {
  return Read(op.id, op.name, op.dtype, std::move(indices));
}

// A: [4, 8], B: [8, 3], C = A x B, D = relu(C).
std::vector<OpRef> MatmulRelu() {
  auto a = Placeholder(0, "A", {4, 8});
  auto b = Placeholder(1, "B", {8, 3});
  auto c = Compute(2, "C", {{"i", 4}, {"j", 3}}, {{"k", 8}});
  c->body = Mul(ReadOf(*a, {c->axis_var(0), c->axis_var(2)}),
                ReadOf(*b, {c->axis_var(2), c->axis_var(1)}));
  auto d = Compute(3, "D", {{"i", 4}, {"j", 3}});
  d->body = Max(ReadOf(*c, {d->axis_var(0), d->axis_var(1)}), FloatImm(0.0));
  return {a, b, c, d};
}

void ExpectInvalid(std::vector<OpRef> ops, const std::string& fragment) {
  absl::StatusOr<ComputeDag> dag = ComputeDag::Create(std::move(ops));
  ASSERT_FALSE(dag.ok()) << "expected an error containing: " << fragment;
  EXPECT_EQ(dag.status().code(), absl::StatusCode::kInvalidArgument);
  EXPECT_THAT(std::string(dag.status().message()), HasSubstr(fragment));
  std::cout << "Create() error: " << dag.status().message() << "\n";
}

TEST(ComputeDagTest, CreatesAndAnswersGraphQueries) {
  absl::StatusOr<ComputeDag> dag = ComputeDag::Create(MatmulRelu());
  ASSERT_TRUE(dag.ok()) << dag.status();
  EXPECT_EQ(dag->num_ops(), 4);
  EXPECT_THAT(dag->InputIndices(), ElementsAre(0, 1));
  EXPECT_THAT(dag->OutputIndices(), ElementsAre(3));
  EXPECT_THAT(dag->Consumers(0), ElementsAre(2));
  EXPECT_THAT(dag->Consumers(2), ElementsAre(3));
  EXPECT_THAT(dag->Producers(2), ElementsAre(0, 1));
  EXPECT_THAT(dag->Producers(0), ElementsAre());
  EXPECT_EQ(dag->IndexOfTensor(2), 2);
  EXPECT_EQ(dag->IndexOfTensor(42), -1);
  ASSERT_NE(dag->FindTensor(1), nullptr);
  EXPECT_EQ(dag->FindTensor(1)->name, "B");
  EXPECT_EQ(dag->FindTensor(42), nullptr);
  EXPECT_EQ(dag->op(2).num_elements(), 12);
}

TEST(ComputeDagTest, TensorIdsNeedNotBePositions) {
  std::vector<OpRef> ops = MatmulRelu();
  // Renumber ids 0..3 -> 10, 20, 30, 40, rewriting the reads to match.
  std::vector<OpRef> renumbered;
  for (const OpRef& op : ops) {
    auto copy = std::make_shared<Op>(*op);
    copy->id = (op->id + 1) * 10;
    if (copy->body) {
      copy->body = RewriteReads(copy->body, [](const ExprNode& r) {
        return Read((r.id + 1) * 10, r.name, r.dtype, r.args);
      });
    }
    renumbered.push_back(copy);
  }
  absl::StatusOr<ComputeDag> dag = ComputeDag::Create(renumbered);
  ASSERT_TRUE(dag.ok()) << dag.status();
  EXPECT_EQ(dag->IndexOfTensor(30), 2);
  EXPECT_THAT(dag->Producers(2), ElementsAre(0, 1));
  // The canonical text names tensors by position, so it does not change.
  EXPECT_EQ(dag->CanonicalText(), ComputeDag::Create(MatmulRelu())->CanonicalText());
}

TEST(ComputeDagTest, ReadsOfListsEveryIndexVector) {
  auto a = Placeholder(0, "A", {8});
  auto c = Compute(1, "C", {{"i", 4}});
  const Expr i = c->axis_var(0);
  c->body = Add(ReadOf(*a, {Mul(i, IntImm(2))}), ReadOf(*a, {Add(Mul(i, IntImm(2)), IntImm(1))}));
  std::vector<std::vector<Expr>> reads = ReadsOf(*c, 0);
  ASSERT_EQ(reads.size(), 2u);
  EXPECT_EQ(ToString(reads[0][0]), "(i * 2)");
  EXPECT_EQ(ToString(reads[1][0]), "((i * 2) + 1)");
  EXPECT_TRUE(ReadsOf(*c, 5).empty());
}

TEST(ComputeDagTest, RejectsReadOfLaterOp) {
  std::vector<OpRef> ops = MatmulRelu();
  std::swap(ops[2], ops[3]);  // D now comes before C, which it reads
  ExpectInvalid(ops, "op 'D': reads 'C' (op 3), which is not an earlier op");
}

TEST(ComputeDagTest, RejectsSelfRead) {
  auto a = Placeholder(0, "A", {4});
  auto c = Compute(1, "C", {{"i", 4}});
  c->body = ReadOf(*c, {c->axis_var(0)});
  ExpectInvalid({a, c}, "op 'C': reads itself");
}

TEST(ComputeDagTest, RejectsRankMismatch) {
  auto a = Placeholder(0, "A", {2, 3, 4});
  auto c = Compute(1, "add", {{"i", 2}, {"j", 3}});
  c->body = ReadOf(*a, {c->axis_var(0), c->axis_var(1)});
  ExpectInvalid({a, c}, "op 'add': reads 'A' with 2 indices but 'A' has rank 3");
}

TEST(ComputeDagTest, RejectsDTypeMismatch) {
  auto a = Placeholder(0, "A", {4});
  auto h = Placeholder(1, "H", {4}, DType::kFloat16);
  auto c = Compute(2, "x", {{"i", 4}});
  c->body = Add(ReadOf(*a, {c->axis_var(0)}), ReadOf(*h, {c->axis_var(0)}));
  ExpectInvalid({a, h, c}, "op 'x': dtype mismatch in Add: float32 vs float16");
}

TEST(ComputeDagTest, RejectsBodyDTypeDifferentFromOp) {
  auto a = Placeholder(0, "A", {4});
  auto c = Compute(1, "x", {{"i", 4}});
  c->body = Cast(DType::kFloat16, ReadOf(*a, {c->axis_var(0)}));
  ExpectInvalid({a, c}, "op 'x': the body has dtype float16 but the op is float32");
}

TEST(ComputeDagTest, RejectsZeroExtents) {
  auto a = Placeholder(0, "A", {4, 0});
  auto c = Compute(1, "C", {{"i", 4}});
  c->body = FloatImm(1.0);
  ExpectInvalid({a, c}, "op 'A': dimension 1 has extent 0; extents must be positive");

  auto b = Placeholder(0, "B", {4, 4});
  auto dense = Compute(1, "dense", {{"i", 4}}, {{"k", 0}});
  dense->body = ReadOf(*b, {dense->axis_var(0), dense->axis_var(1)});
  ExpectInvalid({b, dense}, "op 'dense': axis 'k' has extent 0; extents must be positive");
}

TEST(ComputeDagTest, RejectsBadIndicesAndVariables) {
  auto a = Placeholder(0, "A", {4});
  auto c = Compute(1, "C", {{"i", 4}});
  c->body = ReadOf(*a, {Var(3, "ghost")});
  ExpectInvalid({a, c}, "op 'C': variable 'ghost' has id 3 but the op has only 1 axes");

  auto d = Compute(1, "D", {{"i", 4}});
  d->body = ReadOf(*a, {Cast(DType::kFloat32, d->axis_var(0))});
  ExpectInvalid({a, d}, "index 0 of the read of 'A' has dtype float32; indices must be integers");

  auto e = Compute(1, "E", {{"i", 4}});
  e->body = ReadOf(*a, {Var(0, "i", DType::kInt32)});
  ExpectInvalid({a, e}, "variable 'i' has dtype int32; axis variables are int64");
}

TEST(ComputeDagTest, RejectsStructuralProblems) {
  ExpectInvalid({}, "at least one op");
  ExpectInvalid({Placeholder(0, "A", {4})}, "at least one compute op");
  auto a = Placeholder(0, "A", {4});
  auto dup = Compute(0, "C", {{"i", 4}});
  dup->body = FloatImm(1.0);
  ExpectInvalid({a, dup}, "tensor id 0 is used by both 'A' and 'C'");

  auto no_body = Compute(1, "C", {{"i", 4}});
  ExpectInvalid({a, no_body}, "op 'C': a compute op needs a body");

  auto bad_shape = Compute(1, "C", {{"i", 4}});
  bad_shape->shape = {5};
  bad_shape->body = FloatImm(1.0);
  ExpectInvalid({a, bad_shape}, "shape [5] does not match the spatial axis extents [4]");

  auto reduce_without_kind = Compute(1, "C", {{"i", 4}}, {{"k", 2}});
  reduce_without_kind->reduce = ReduceKind::kNone;
  reduce_without_kind->body = FloatImm(1.0);
  ExpectInvalid({a, reduce_without_kind}, "has reduce axes but no reduction kind");

  auto unknown = Compute(1, "C", {{"i", 4}});
  unknown->body = Read(7, "Z", DType::kFloat32, {unknown->axis_var(0)});
  ExpectInvalid({a, unknown}, "reads unknown tensor id 7");

  auto bad_flop = Compute(1, "C", {{"i", 4}});
  bad_flop->body = FloatImm(1.0);
  bad_flop->attrs["FLOP"] = "many";
  ExpectInvalid({a, bad_flop}, "attribute FLOP=\"many\" is not a non-negative number");

  auto logic = Compute(1, "C", {{"i", 4}});
  logic->body = Select(And(FloatImm(1.0), FloatImm(0.0)), FloatImm(1.0), FloatImm(2.0));
  ExpectInvalid({a, logic}, "operand of And has dtype float32; logical operators need bool");
}

TEST(ComputeDagFlopTest, CountsMatmulAndEpilogue) {
  absl::StatusOr<ComputeDag> dag = ComputeDag::Create(MatmulRelu());
  ASSERT_TRUE(dag.ok());
  // C: 4*3 elements x 8 reduce points x (1 add + 1 mul); D: 12 max.
  EXPECT_EQ(dag->FlopCount(), 4 * 3 * 8 * 2 + 12);
}

TEST(ComputeDagFlopTest, FollowsSelectCallAndDTypeClassRules) {
  auto a = Placeholder(0, "A", {4});
  auto c = Compute(1, "C", {{"i", 4}});
  const Expr x = ReadOf(*a, {c->axis_var(0)});
  // Integer index math and the bool And count nothing in a float op; the
  // float compare counts 1; select takes the larger branch (2 over 1); exp
  // counts only its argument (1 mul).
  const Expr cond = And(Compare(CompareOp::kGT, x, FloatImm(0.0)),
                        Compare(CompareOp::kLT, Add(c->axis_var(0), IntImm(1)), IntImm(3)));
  c->body = Select(cond, Add(Mul(x, x), x), Call(CallFn::kExp, {Mul(x, FloatImm(2.0))}));
  absl::StatusOr<ComputeDag> dag = ComputeDag::Create({a, c});
  ASSERT_TRUE(dag.ok()) << dag.status();
  EXPECT_EQ(dag->FlopCount(), 4 * (1 + 2));
}

TEST(ComputeDagFlopTest, FlopAttributeOverrides) {
  std::vector<OpRef> ops = MatmulRelu();
  auto c = std::make_shared<Op>(*ops[2]);
  c->attrs["FLOP"] = "1000";
  ops[2] = c;
  absl::StatusOr<ComputeDag> dag = ComputeDag::Create(ops);
  ASSERT_TRUE(dag.ok());
  EXPECT_EQ(dag->FlopCount(), 1000 + 12);
}

TEST(ComputeDagTest, AxisVarNamesAxes) {
  auto c = Compute(0, "C", {{"i", 4}, {"j", 2}}, {{"k", 3}});
  EXPECT_EQ(c->axis_var(1)->name, "j");
  EXPECT_EQ(c->axis_var(2)->name, "k");
  EXPECT_EQ(c->axis_var(2)->id, 2);
  EXPECT_EQ(c->axis_var(2)->dtype, DType::kInt64);
  EXPECT_EQ(ReduceIdentity(ReduceKind::kSum), 0.0);
  EXPECT_EQ(ReduceIdentity(ReduceKind::kMax), -std::numeric_limits<double>::infinity());
}

}  // namespace
}  // namespace pruner
