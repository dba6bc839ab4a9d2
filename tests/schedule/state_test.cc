#include <iostream>
#include <set>

#include "common/ir/reference.h"
#include "common/schedule/state.h"
#include "gtest/gtest.h"
#include "tests/schedule/test_dags.h"

namespace pruner {
namespace {

using testing::MakeMatmulDag;

std::vector<std::string> IterNames(const Stage& s) {
  std::vector<std::string> names;
  for (size_t i = 0; i < s.iters.size(); ++i) names.push_back(s.iter_name(static_cast<int>(i)));
  return names;
}

// Evaluates an integer expression whose variables are leaf node ids.
int64_t EvalInt(const Expr& e, const std::map<int, int64_t>& vars) {
  switch (e->kind) {
    case ExprKind::kIntImm: return e->int_value;
    case ExprKind::kVar: return vars.at(e->id);
    case ExprKind::kBinary: {
      const int64_t a = EvalInt(e->args[0], vars), b = EvalInt(e->args[1], vars);
      switch (e->binary_op()) {
        case BinaryOp::kAdd: return a + b;
        case BinaryOp::kSub: return a - b;
        case BinaryOp::kMul: return a * b;
        case BinaryOp::kFloorDiv: return a >= 0 ? a / b : -((-a + b - 1) / b);
        case BinaryOp::kFloorMod: return ((a % b) + b) % b;
        default: break;
      }
      break;
    }
    case ExprKind::kCompare: {
      const int64_t a = EvalInt(e->args[0], vars), b = EvalInt(e->args[1], vars);
      if (e->compare_op() == CompareOp::kLT) return a < b;
      break;
    }
    default: break;
  }
  ADD_FAILURE() << "unexpected expression " << ToString(e);
  return 0;
}

TEST(State, InitialStateHasOneStagePerOp) {
  State s = State::Initial(MakeMatmulDag(64, 32, 16));
  ASSERT_EQ(s.num_stages(), 3);
  EXPECT_TRUE(s.stage(0).is_placeholder());
  EXPECT_EQ(IterNames(s.stage(2)), (std::vector<std::string>{"i", "j", "k"}));
  EXPECT_EQ(s.stage(2).iter_kind(2), IterKind::kReduce);
  EXPECT_TRUE(s.IsConcrete());
}

TEST(State, SplitNamesPartsAndRoundsTheOuterExtentUp) {
  State s = State::Initial(MakeMatmulDag(65, 32, 16));
  ASSERT_TRUE(s.Apply(SplitStep(2, 0, 65, {4, 2})).ok());
  EXPECT_EQ(IterNames(s.stage(2)), (std::vector<std::string>{"i.0", "i.1", "i.2", "j", "k"}));
  EXPECT_EQ(s.stage(2).iter_extent(0), 9);  // ceil(65 / 8)
  EXPECT_EQ(s.stage(2).iter_extent(1), 4);
  EXPECT_EQ(s.stage(2).iter_extent(2), 2);
  ASSERT_TRUE(s.Apply(SplitStep(2, 3, 32, {std::nullopt})).ok());
  EXPECT_FALSE(s.IsConcrete());
  EXPECT_EQ(s.stage(2).iter_extent(3), -1);
}

TEST(State, FuseConcatenatesNamesAndMultipliesExtents) {
  State s = State::Initial(MakeMatmulDag(8, 4, 2));
  ASSERT_TRUE(s.Apply(FuseStep(2, {0, 1})).ok());
  EXPECT_EQ(IterNames(s.stage(2)), (std::vector<std::string>{"i@j@", "k"}));
  EXPECT_EQ(s.stage(2).iter_extent(0), 32);
  EXPECT_EQ(s.stage(2).iter_kind(0), IterKind::kSpatial);
  ASSERT_TRUE(s.Apply(FuseStep(2, {0, 1})).ok());
  EXPECT_EQ(s.stage(2).iter_kind(0), IterKind::kMixed);
}

// Every point of the original iteration space is produced exactly once by
// the leaves of a split+fuse+split graph, and overshooting points are the
// ones the guards reject.
TEST(State, RootsExpressedByLeavesCoverTheSpaceExactlyOnce) {
  State s = State::Initial(MakeMatmulDag(7, 5, 3));
  ASSERT_TRUE(s.Apply(SplitStep(2, 0, 7, {3})).ok());      // i.0(3) i.1(3)
  ASSERT_TRUE(s.Apply(FuseStep(2, {1, 2})).ok());          // i.0 i.1@j@(15) k
  ASSERT_TRUE(s.Apply(SplitStep(2, 1, 15, {4})).ok());     // i.0 f.0(4) f.1(4) k
  const Stage& st = s.stage(2);
  auto indexing = ExpressRootsByLeaves(st, [&](int node) { return Var(node, st.nodes[node].name); });
  ASSERT_TRUE(indexing.ok()) << indexing.status();
  std::multiset<std::tuple<int64_t, int64_t, int64_t>> seen;
  std::map<int, int64_t> vars;
  std::function<void(size_t)> walk = [&](size_t depth) {
    if (depth == st.iters.size()) {
      for (const Expr& g : indexing->guards) {
        if (!EvalInt(g, vars)) return;
      }
      seen.insert({EvalInt(indexing->root_values[0], vars), EvalInt(indexing->root_values[1], vars),
                   EvalInt(indexing->root_values[2], vars)});
      return;
    }
    for (int64_t v = 0; v < st.iter_extent(static_cast<int>(depth)); ++v) {
      vars[st.iters[depth].node] = v;
      walk(depth + 1);
    }
  };
  walk(0);
  EXPECT_EQ(seen.size(), 7u * 5u * 3u);
  for (int64_t i = 0; i < 7; ++i)
    for (int64_t j = 0; j < 5; ++j)
      for (int64_t k = 0; k < 3; ++k) EXPECT_EQ(seen.count({i, j, k}), 1u) << i << "," << j << "," << k;
}

TEST(State, ReorderNeedsAPermutation) {
  State s = State::Initial(MakeMatmulDag(8, 4, 2));
  ASSERT_TRUE(s.Apply(ReorderStep(2, {2, 0, 1})).ok());
  EXPECT_EQ(IterNames(s.stage(2)), (std::vector<std::string>{"k", "i", "j"}));
  absl::Status bad = s.Apply(ReorderStep(2, {0, 0, 1}));
  EXPECT_FALSE(bad.ok());
  std::cout << bad.message() << "\n";
  EXPECT_NE(bad.message().find("exactly once"), absl::string_view::npos);
}

TEST(State, CacheReadInsertsAStageAndRedirectsTheReader) {
  State s = State::Initial(MakeMatmulDag(8, 4, 2, /*relu=*/true));
  ASSERT_TRUE(s.Apply(ComputeAtStep(2, 3, 1)).ok());
  ASSERT_TRUE(s.Apply(CacheReadStep(0, "shared", {2})).ok());
  ASSERT_EQ(s.num_stages(), 5);
  EXPECT_EQ(s.stage(1).op->name, "A.shared");
  EXPECT_EQ(s.stage(1).scope, "shared");
  // The matmul moved to index 3 and still attaches to the relu, now at 4.
  EXPECT_EQ(s.stage(3).op->name, "C");
  EXPECT_EQ(s.stage(3).attach_stage, 4);
  const std::vector<int> reads = ReadTensors(s.stage(3).op->body);
  EXPECT_EQ(reads, (std::vector<int>{s.stage(1).op->id, 1}));
  EXPECT_EQ(s.current_dag().num_ops(), 5);
}

TEST(State, CacheWriteSplitsComputeFromStore) {
  State s = State::Initial(MakeMatmulDag(8, 4, 2));
  ASSERT_TRUE(s.Apply(CacheWriteStep(2, "local")).ok());
  ASSERT_EQ(s.num_stages(), 4);
  EXPECT_EQ(s.stage(2).op->name, "C.local");
  EXPECT_EQ(s.stage(2).op->reduce_axes.size(), 1u);
  EXPECT_EQ(s.stage(3).op->name, "C");
  EXPECT_TRUE(s.stage(3).op->reduce_axes.empty());
  EXPECT_EQ(ReadTensors(s.stage(3).op->body), (std::vector<int>{s.stage(2).op->id}));
}

TEST(State, RfactorMakesTheFactoredIteratorSpatial) {
  State s = State::Initial(MakeMatmulDag(4, 4, 10));
  ASSERT_TRUE(s.Apply(SplitStep(2, 2, 10, {4})).ok());  // k.0(3) k.1(4), non-divisible
  ASSERT_TRUE(s.Apply(RfactorStep(2, 3, 2)).ok());
  ASSERT_EQ(s.num_stages(), 4);
  const Op& rf = *s.stage(2).op;
  EXPECT_EQ(rf.name, "C.rf");
  EXPECT_EQ(rf.shape, (std::vector<int64_t>{4, 4, 4}));
  ASSERT_EQ(rf.reduce_axes.size(), 1u);
  EXPECT_EQ(rf.reduce_axes[0].extent, 3);
  // 3*4 = 12 > 10: the rfactor body guards the overshoot.
  EXPECT_EQ(rf.body->kind, ExprKind::kSelect);
  const Op& final_op = *s.stage(3).op;
  EXPECT_EQ(final_op.reduce_axes[0].extent, 4);
}

// The DAG that cache and rfactor steps rewrite must compute the same result
// as the original workload.
TEST(State, StageInsertingStepsPreserveTheComputation) {
  auto dag = MakeMatmulDag(6, 5, 11, /*relu=*/true);
  const std::vector<std::string> sentences = {
      "SP 2 2 11 [4]; RF 2 3 2",
      "SP 2 2 11 [3]; RF 2 2 0",
      "SP 2 2 11 [2,2]; RF 2 4 1",
      "SP 2 2 11 [5]; RF 2 2 2",
      "CHW 2 local",
      "CHR 0 shared [2]; CHR 2 local [3]; CHW 4 local",
  };
  const std::vector<Tensor> inputs = RandomInputs(*dag, 7);
  auto want = RunReference(*dag, inputs);
  ASSERT_TRUE(want.ok()) << want.status();
  for (const std::string& sentence : sentences) {
    auto steps = ParseSteps(sentence);
    ASSERT_TRUE(steps.ok()) << steps.status();
    auto state = State::Replay(dag, *steps);
    ASSERT_TRUE(state.ok()) << sentence << ": " << state.status();
    auto got = RunReference(state->current_dag(), inputs);
    ASSERT_TRUE(got.ok()) << sentence << ": " << got.status();
    ASSERT_EQ(got->size(), want->size());
    for (size_t i = 0; i < got->size(); ++i) {
      EXPECT_TRUE(CheckAllClose((*got)[i], (*want)[i], 1e-5, 1e-5).ok()) << sentence;
    }
  }
}

TEST(State, InvalidStepsSayWhatIsWrong) {
  State s = State::Initial(MakeMatmulDag(8, 4, 2));
  const std::vector<std::pair<Step, std::string>> cases = {
      {SplitStep(7, 0, 8, {2}), "stage 7 does not exist"},
      {SplitStep(2, 5, 8, {2}), "has no iterator 5"},
      {SplitStep(0, 0, 8, {2}), "is a placeholder"},
      {ComputeInlineStep(2), "reduction cannot be inlined"},
      {FuseStep(2, {0, 2}), "consecutive"},
      {ComputeAtStep(2, 2, 0), "cannot attach to itself"},
      {CacheReadStep(0, "shared", {1}), "does not read"},
      {CacheReadStep(2, "shared", {1}), "is not a later stage"},
      {RfactorStep(2, 0, 0), "must be a reduction iterator"},
      // Found by tests/fuzz/schedule_sentence_fuzz.cc ("RF 2 2 1"): once
      // aborted the process.
      {RfactorStep(2, 2, 1), "needs a reduction loop besides the factored one"},
      // Also found by the fuzzer: a product of lengths that overflowed to 0
      // and was divided by (SIGFPE).
      {SplitStep(2, 0, 8, std::vector<std::optional<int64_t>>(40, 4)), "multiply to more than 2^31"},
  };
  for (const auto& [step, expected] : cases) {
    absl::Status st = s.Apply(step);
    ASSERT_FALSE(st.ok()) << StepToString(step);
    EXPECT_NE(st.message().find(expected), absl::string_view::npos) << st.message();
    std::cout << StepToString(step) << "  ->  " << st.message() << "\n";
  }
  EXPECT_TRUE(s.steps().empty()) << "failed steps must not be recorded";
}

TEST(State, ReplayReproducesTheSameLoopNest) {
  auto dag = MakeMatmulDag(64, 48, 32, /*relu=*/true);
  State s = State::Initial(dag);
  ASSERT_TRUE(s.Apply(SplitStep(2, 0, 64, {4, 8})).ok());
  ASSERT_TRUE(s.Apply(SplitStep(2, 3, 48, {6})).ok());
  ASSERT_TRUE(s.Apply(ComputeAtStep(2, 3, 1)).ok());
  ASSERT_TRUE(s.Apply(FuseStep(3, {0, 1})).ok());
  ASSERT_TRUE(s.Apply(AnnotationStep(3, 0, IterAnnotation::kParallel)).ok());
  ASSERT_TRUE(s.Apply(AutoUnrollPragmaStep(2, 0, 64)).ok());
  auto parsed = ParseSteps(s.ToSentence());
  ASSERT_TRUE(parsed.ok()) << parsed.status();
  auto replayed = State::Replay(dag, *parsed);
  ASSERT_TRUE(replayed.ok()) << replayed.status();
  EXPECT_EQ(replayed->ToStr(), s.ToStr());
  EXPECT_EQ(replayed->ToSentence(), s.ToSentence());
  std::cout << s.ToStr();
}

}  // namespace
}  // namespace pruner
