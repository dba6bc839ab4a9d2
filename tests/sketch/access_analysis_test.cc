// The access analysis the sketch rules are derived from.
#include "common/sketch/access_analysis.h"

#include <string>

#include "gtest/gtest.h"
#include "tests/sketch/test_support.h"

namespace pruner::testing {
namespace {

int IndexOf(const ComputeDag& dag, const std::string& name) {
  for (int i = 0; i < dag.num_ops(); ++i) {
    if (dag.op(i).name == name) return i;
  }
  ADD_FAILURE() << "no op " << name;
  return -1;
}

TEST(AccessAnalysis, InlineabilityAndReuse) {
  auto conv = Build("conv2d:N=1,C=4,H=8,W=8,K=6,R=3,S=3,pad=1,bias=1,act=relu");
  const AccessAnalysis a(*conv);
  // Padding is a select (a bounds check): not strictly inlineable, as in
  // TVM, so CPU sketches leave its place to annotation.
  EXPECT_FALSE(a.IsStrictlyInlineable(IndexOf(*conv, "pad")));
  EXPECT_TRUE(a.IsStrictlyInlineable(IndexOf(*conv, "bias_add")));
  EXPECT_FALSE(a.IsStrictlyInlineable(IndexOf(*conv, "conv2d")));  // reduces
  // The convolution reuses both the input and the weights.
  EXPECT_TRUE(a.NeedsMultiLevelTiling(IndexOf(*conv, "conv2d")));
  // bias reuses one input along three axes, but does not reduce.
  EXPECT_FALSE(a.NeedsMultiLevelTiling(IndexOf(*conv, "bias_add")));
  EXPECT_TRUE(a.IsOutput(IndexOf(*conv, "relu")));
  EXPECT_FALSE(a.IsOutput(IndexOf(*conv, "conv2d")));
  // conv2d -> bias_add -> relu is element-wise all the way.
  EXPECT_TRUE(a.ElementWiseMatch(IndexOf(*conv, "conv2d"), IndexOf(*conv, "relu")));
  EXPECT_FALSE(a.ElementWiseMatch(IndexOf(*conv, "pad"), IndexOf(*conv, "conv2d")));

  auto softmax = Build("softmax:M=4,N=10");
  const AccessAnalysis s(*softmax);
  EXPECT_FALSE(s.IsStrictlyInlineable(IndexOf(*softmax, "exp")));  // expensive
  EXPECT_FALSE(s.NeedsMultiLevelTiling(IndexOf(*softmax, "max_elem")));
  // exp is read by two stages: no single element-wise chain.
  EXPECT_FALSE(s.ElementWiseMatch(IndexOf(*softmax, "exp"), IndexOf(*softmax, "softmax")));

  auto gelu = Build("dense:M=4,K=8,N=6,act=gelu");
  const AccessAnalysis g(*gelu);
  EXPECT_TRUE(g.NeedsMultiLevelTiling(IndexOf(*gelu, "dense")));
  EXPECT_FALSE(g.IsStrictlyInlineable(IndexOf(*gelu, "gelu")));  // erf

  // Each input misses one output axis (A misses j, B misses i).
  auto bmm = Build("batch_matmul:B=2,M=4,K=8,N=6,transpose_b=1");
  EXPECT_TRUE(AccessAnalysis(*bmm).NeedsMultiLevelTiling(IndexOf(*bmm, "batch_matmul")));
}

TEST(AccessAnalysis, ConsumersAndProducersPassThroughInlinedStages) {
  auto conv = Build("conv2d:N=1,C=4,H=8,W=8,K=6,R=3,S=3,pad=1,bias=1,act=relu");
  State state = State::Initial(conv);
  const int x = IndexOf(*conv, "X");
  const int pad = IndexOf(*conv, "pad");
  const int c = IndexOf(*conv, "conv2d");
  const int bias_add = IndexOf(*conv, "bias_add");
  const int relu = IndexOf(*conv, "relu");
  EXPECT_EQ(GetConsumers(state, c), std::vector<int>{bias_add});
  ASSERT_TRUE(state.Apply(ComputeInlineStep(bias_add)).ok());
  ASSERT_TRUE(state.Apply(ComputeInlineStep(pad)).ok());
  EXPECT_EQ(GetConsumers(state, c), std::vector<int>{relu});
  EXPECT_EQ(GetConsumers(state, x), std::vector<int>{c});
  const std::vector<int> producers = {IndexOf(*conv, "bias"), c};  // sorted
  EXPECT_EQ(GetProducers(state, relu), producers);
  EXPECT_EQ(GetDirectProducers(state, relu), std::vector<int>{bias_add});
  int target = -1;
  const AccessAnalysis analysis(state.current_dag());
  EXPECT_TRUE(HasSingleElementwiseMatchedConsumer(state, analysis, c, &target));
  EXPECT_EQ(target, relu);
}

}  // namespace
}  // namespace pruner::testing
