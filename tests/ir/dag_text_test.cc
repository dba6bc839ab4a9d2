// CanonicalText(), WorkloadKey(), ToString() and ParseCanonical().
#include <iostream>

#include "common/ir/compute_dag.h"
#include "common/ir/ops.h"
#include "gmock/gmock.h"
#include "gtest/gtest.h"

namespace pruner {
namespace {

using ::testing::HasSubstr;

// C[i, j] = sum_k A[i, k] * B[k, j] built by hand with the given names.
ComputeDag NamedMatmul(const std::string& a_name, const std::string& b_name,
                       const std::string& c_name, std::vector<std::string> axis_names,
                       int64_t m = 4) {
  auto a = std::make_shared<Op>();
  a->id = 0;
  a->name = a_name;
  a->shape = {m, 8};
  auto b = std::make_shared<Op>();
  b->id = 1;
  b->name = b_name;
  b->shape = {8, 3};
  auto c = std::make_shared<Op>();
  c->id = 2;
  c->name = c_name;
  c->kind = OpKind::kCompute;
  c->axes = {{axis_names[0], m}, {axis_names[1], 3}};
  c->reduce_axes = {{axis_names[2], 8}};
  c->reduce = ReduceKind::kSum;
  c->shape = {m, 3};
  c->attrs["op"] = "matmul";
  c->body = Mul(Read(0, a_name, DType::kFloat32, {c->axis_var(0), c->axis_var(2)}),
                Read(1, b_name, DType::kFloat32, {c->axis_var(2), c->axis_var(1)}));
  absl::StatusOr<ComputeDag> dag = ComputeDag::Create({a, b, c});
  EXPECT_TRUE(dag.ok()) << dag.status();
  return *dag;
}

TEST(CanonicalTextTest, HasTheDocumentedFormat) {
  const ComputeDag dag = NamedMatmul("A", "B", "C", {"i", "j", "k"});
  EXPECT_EQ(dag.CanonicalText(),
            "T0 = placeholder float32 [4, 8]\n"
            "T1 = placeholder float32 [8, 3]\n"
            "T2 = compute float32 [i0=4, i1=3] sum [r0=8] {\"op\"=\"matmul\"} : "
            "(T0[i0, r0] * T1[r0, i1])\n");
  EXPECT_EQ(dag.ToString(),
            "A = placeholder float32 [4, 8]\n"
            "B = placeholder float32 [8, 3]\n"
            "C = compute float32 [i=4, j=3] sum [k=8] {\"op\"=\"matmul\"} : (A[i, k] * B[k, j])\n");
}

TEST(CanonicalTextTest, NamesDoNotChangeTheKey) {
  const ComputeDag x = NamedMatmul("A", "B", "C", {"i", "j", "k"});
  const ComputeDag y = NamedMatmul("lhs", "rhs", "out", {"row", "col", "red"});
  EXPECT_EQ(x.CanonicalText(), y.CanonicalText());
  EXPECT_EQ(x.WorkloadKey(), y.WorkloadKey());
  EXPECT_NE(x.ToString(), y.ToString());
}

TEST(CanonicalTextTest, ShapesAndAttributesChangeTheKey) {
  const ComputeDag x = NamedMatmul("A", "B", "C", {"i", "j", "k"}, 4);
  const ComputeDag y = NamedMatmul("A", "B", "C", {"i", "j", "k"}, 5);
  EXPECT_NE(x.WorkloadKey(), y.WorkloadKey());

  auto dense_a = Dense(4, 8, 16);
  auto dense_b = Dense(4, 8, 17);
  auto dense_relu = Dense(4, 8, 16, {.bias = false, .activation = Activation::kRelu});
  ASSERT_TRUE(dense_a.ok() && dense_b.ok() && dense_relu.ok());
  EXPECT_NE(dense_a->WorkloadKey(), dense_b->WorkloadKey());
  EXPECT_NE(dense_a->WorkloadKey(), dense_relu->WorkloadKey());
  EXPECT_EQ(dense_a->WorkloadKey(), Dense(4, 8, 16)->WorkloadKey());
}

TEST(CanonicalTextTest, WorkloadKeyIsSha256Prefix) {
  const ComputeDag dag = NamedMatmul("A", "B", "C", {"i", "j", "k"});
  const std::string key = dag.WorkloadKey();
  EXPECT_EQ(key.size(), 32u);
  EXPECT_EQ(key.find_first_not_of("0123456789abcdef"), std::string::npos);
}

// Every builder's DAG must survive text and come back printing identically.
TEST(ParseCanonicalTest, RoundTripsEveryOperator) {
  const std::vector<std::string> specs = {
      "dense:M=65,K=2048,N=1024",
      "dense:M=8,K=16,N=4,bias=1,act=relu",
      "dense:M=8,K=16,N=4,bias=1,act=gelu",
      "matmul:M=16,K=32,N=8",
      "batch_matmul:B=2,M=16,K=32,N=8",
      "batch_matmul:B=2,M=16,K=32,N=8,transpose_b=1",
      "conv2d:N=1,C=64,H=56,W=56,K=64,R=3,S=3,stride=1,pad=1,dilation=1,groups=1",
      "conv2d:N=2,C=8,H=15,W=17,K=12,R=3,S=5,stride_h=2,stride_w=1,pad_h=1,pad_w=2,"
      "dilation=2,groups=4,bias=1,act=relu",
      "conv2d:C=3,H=8,W=8,K=4,R=1,S=1",
      "depthwise_conv2d:N=1,C=32,H=28,W=28,R=3,S=3,stride=2,pad=1",
      "max_pool2d:N=1,C=16,H=32,W=32,kernel=3,stride=2,pad=1",
      "avg_pool2d:N=1,C=16,H=32,W=32,kernel=2",
      "softmax:M=128,N=1000",
      "layer_norm:M=16,N=768,eps=1e-5",
      "layer_norm:M=16,N=768,affine=0",
      "add:shape=4x128x768",
      "mul:shape=7",
      "relu:shape=2x3x4x5x6",
  };
  for (const std::string& spec : specs) {
    SCOPED_TRACE(spec);
    absl::StatusOr<ComputeDag> dag = BuildOperator(spec);
    ASSERT_TRUE(dag.ok()) << dag.status();
    const std::string text = dag->CanonicalText();
    absl::StatusOr<ComputeDag> parsed = ComputeDag::ParseCanonical(text);
    ASSERT_TRUE(parsed.ok()) << parsed.status() << "\n" << text;
    EXPECT_EQ(parsed->CanonicalText(), text);
    EXPECT_EQ(parsed->WorkloadKey(), dag->WorkloadKey());
    EXPECT_EQ(parsed->FlopCount(), dag->FlopCount());
    for (int i = 0; i < dag->num_ops(); ++i) {
      if (dag->op(i).body == nullptr) continue;
      EXPECT_TRUE(StructurallyEqual(parsed->op(i).body, dag->op(i).body)) << "op " << i;
    }
    // ToString() uses real names but the same grammar, so it parses too.
    absl::StatusOr<ComputeDag> from_pretty = ComputeDag::ParseCanonical(dag->ToString());
    ASSERT_TRUE(from_pretty.ok()) << from_pretty.status();
    EXPECT_EQ(from_pretty->CanonicalText(), text);
  }
}

TEST(ParseCanonicalTest, RoundTripsUnusualLiteralsAndAttributes) {
  auto a = std::make_shared<Op>();
  a->id = 0;
  a->name = "A";
  a->shape = {6};
  a->attrs["layout \"free\""] = "line\nbreak\\tab\t\x01";
  auto c = std::make_shared<Op>();
  c->id = 1;
  c->name = "C";
  c->kind = OpKind::kCompute;
  c->axes = {{"i", 3}};
  c->shape = {3};
  const Expr i = c->axis_var(0);
  const Expr x = Read(0, "A", DType::kFloat32, {Add(Mul(i, IntImm(2)), IntImm(-1, DType::kInt64))});
  c->body = Select(Or(Compare(CompareOp::kLT, i, IntImm(1)),
                      Not(Compare(CompareOp::kNE, Cast(DType::kInt32, i), IntImm(2, DType::kInt32)))),
                   Max(x, FloatImm(-std::numeric_limits<double>::infinity())),
                   Add(Mul(x, FloatImm(1.0 / 3.0)),
                       Cast(DType::kFloat32, FloorMod(Sub(IntImm(-7), i), IntImm(3)))));
  c->attrs["FLOP"] = "42";
  absl::StatusOr<ComputeDag> dag = ComputeDag::Create({a, c});
  ASSERT_TRUE(dag.ok()) << dag.status();
  const std::string text = dag->CanonicalText();
  std::cout << text;
  absl::StatusOr<ComputeDag> parsed = ComputeDag::ParseCanonical(text);
  ASSERT_TRUE(parsed.ok()) << parsed.status();
  EXPECT_EQ(parsed->CanonicalText(), text);
  EXPECT_EQ(parsed->op(0).attrs, a->attrs);
  EXPECT_TRUE(StructurallyEqual(parsed->op(1).body, c->body));
  EXPECT_EQ(parsed->FlopCount(), 42);
}

void ExpectParseError(const std::string& text, const std::string& fragment) {
  absl::StatusOr<ComputeDag> dag = ComputeDag::ParseCanonical(text);
  ASSERT_FALSE(dag.ok()) << "parsed unexpectedly: " << text;
  EXPECT_EQ(dag.status().code(), absl::StatusCode::kInvalidArgument);
  EXPECT_THAT(std::string(dag.status().message()), HasSubstr(fragment));
  std::cout << "ParseCanonical error: " << dag.status().message() << "\n";
}

TEST(ParseCanonicalTest, ReportsPositionsOfBadText) {
  const std::string good_first = "T0 = placeholder float32 [4]\n";
  ExpectParseError(good_first + "T1 = compute float32 [i0=4] : (T0[i0] * 2.0f\n",
                   "line 2, column 45: expected ')' but found end of line");
  ExpectParseError(good_first + "T1 = compute float33 [i0=4] : T0[i0]\n",
                   "line 2, column 14: unknown dtype 'float33'");
  ExpectParseError(good_first + "T1 = compute float32 [i0=4] : T9[i0]\n",
                   "line 2, column 31: reads 'T9', which is not defined above");
  ExpectParseError(good_first + "T1 = compute float32 [i0=4] : T0[q]\n",
                   "line 2, column 34: unknown axis 'q'");
  ExpectParseError(good_first + "T1 = compute float32 [i0=4] : (T0[i0] * 2.0)\n",
                   "needs a dtype suffix");
  ExpectParseError(good_first + "T1 = compute float32 [i0=4] : (T0[i0] * 2.0q)\n",
                   "unknown literal suffix 'q'");
  ExpectParseError(good_first + "T1 = compute float32 [i0=4] avg [r0=2] : T0[i0]\n",
                   "unknown reduction 'avg'");
  ExpectParseError(good_first + "T1 = compute float32 [i0=4] : frob(T0[i0])\n",
                   "unknown function 'frob'");
  ExpectParseError(good_first + "T1 = compute float32 [i0=4] : T0[i0] $\n",
                   "line 2, column 38: unexpected character '$'");
  ExpectParseError(good_first + "T0 = placeholder float32 [4]\n", "tensor 'T0' is defined twice");
  ExpectParseError(good_first + "T1 = placeholder float32 [4] {\"k\"=\"v}\n",
                   "unterminated string");
  ExpectParseError("", "no ops");
  ExpectParseError(good_first + "T1 = compute float32 [i0=4] : " + std::string(100000, '(') +
                       "T0[i0]\n",
                   "expression nested deeper than 500 levels");
  // Syntactically fine, semantically broken: Create() explains.
  ExpectParseError(good_first + "T1 = compute float32 [i0=4] : T0[i0, i0]\n",
                   "invalid DAG: op 'T1': reads 'T0' with 2 indices but 'T0' has rank 1");
}

}  // namespace
}  // namespace pruner
