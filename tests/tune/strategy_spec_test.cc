// A strategy name parses once into its parts, and the factories build what
// the parts say.
#include "common/tune/strategy_spec.h"

#include <memory>

#include "common/ir/ops.h"
#include "common/model/cost_model.h"
#include "common/search/draft_verify_policy.h"
#include "common/search/evolutionary_policy.h"
#include "common/tune/strategy.h"
#include "common/tune/tuning_options.h"
#include "gtest/gtest.h"
#include "tests/support/pinned_cpus.h"
#include "tests/tune/tune_test_util.h"

namespace pruner {
namespace {

TEST(StrategySpecTest, EveryKnownNameParsesToItself) {
  ASSERT_FALSE(KnownStrategySpecs().empty());
  for (const std::string& name : KnownStrategies()) {
    absl::StatusOr<StrategySpec> spec = ParseStrategy(name);
    ASSERT_TRUE(spec.ok()) << spec.status();
    EXPECT_EQ(spec->name, name);
    EXPECT_FALSE(spec->summary.empty()) << name;
    // A model-free strategy is exactly random search.
    EXPECT_EQ(spec->model == ScoreModel::kNone, spec->search == SearchMethod::kRandom) << name;
  }
}

TEST(StrategySpecTest, PartsOfEachStrategy) {
  auto parts = [](const char* name) { return *ParseStrategy(name); };
  EXPECT_EQ(parts("ansor-xgb").search, SearchMethod::kEvolutionary);
  EXPECT_EQ(parts("ansor-xgb").model, ScoreModel::kXgb);
  EXPECT_EQ(parts("ansor").model, ScoreModel::kXgb);
  EXPECT_EQ(parts("lse-xgb").search, SearchMethod::kDraftVerify);
  EXPECT_EQ(parts("lse-xgb").model, ScoreModel::kXgb);
  EXPECT_EQ(parts("pruner").model, ScoreModel::kPaCM);
  EXPECT_FALSE(parts("pruner").NeedsPretrainedModel());
  EXPECT_FALSE(parts("pruner").pacm_analyzer_branch);
  EXPECT_EQ(parts("pruner-sym").model, ScoreModel::kPaCM);
  EXPECT_TRUE(parts("pruner-sym").pacm_analyzer_branch);
  EXPECT_FALSE(parts("pruner-sym").NeedsPretrainedModel());
  EXPECT_TRUE(parts("moa-pruner").NeedsPretrainedModel());
  EXPECT_EQ(parts("moa-pruner").pacm_start, PaCMStart::kPretrainedAdapted);
  EXPECT_EQ(parts("pruner-offline").pacm_start, PaCMStart::kPretrainedFrozen);
  EXPECT_TRUE(parts("ansor-mlp").NeedsTorch());
  EXPECT_EQ(parts("pruner-ensemble").search, SearchMethod::kDraftVerify);
  EXPECT_EQ(parts("pruner-ensemble").model, ScoreModel::kEnsemble);
  EXPECT_TRUE(parts("pruner-ensemble").NeedsTorch());
  EXPECT_FALSE(parts("ansor-xgb").NeedsTorch());
  // Ansor's generations: 2 with random scores, 4 otherwise.
  EXPECT_EQ(parts("ansor-random").DefaultGenerations(), 2);
  EXPECT_EQ(parts("ansor-xgb").DefaultGenerations(), 4);
}

TEST(StrategySpecTest, UnknownNameListsTheKnownOnes) {
  absl::StatusOr<StrategySpec> spec = ParseStrategy("ansor-xbg");
  ASSERT_EQ(spec.status().code(), absl::StatusCode::kInvalidArgument);
  EXPECT_NE(spec.status().message().find("ansor-xbg"), absl::string_view::npos);
  EXPECT_NE(spec.status().message().find("moa-pruner"), absl::string_view::npos);
  TuningOptions options;
  options.strategy = "ansor-xbg";
  EXPECT_EQ(ValidateTuningOptions(options).code(), absl::StatusCode::kInvalidArgument);
}

TEST(StrategySpecTest, PretrainedStrategiesNeedTheSourceDevice) {
  TuningOptions options;
  options.strategy = "moa-pruner";
  EXPECT_EQ(ValidateTuningOptions(options).code(), absl::StatusCode::kInvalidArgument);
  options.pretrained_device = "cpu-other";
  EXPECT_TRUE(ValidateTuningOptions(options).ok());
}

// The evolutionary policy runs the generations the strategy chose: Ansor's
// default per model unless the options name a number.
TEST(StrategySpecTest, EvolutionGenerationsComeFromTheStrategy) {
  SearchTask task = OperatorTask("relu:shape=8");
  task.device = testing::PinnedEpycCpu();
  auto generations = [&](const char* strategy, int num_iters) {
    TuningOptions options;
    options.strategy = strategy;
    options.num_iters = num_iters;
    auto model = MakeStrategyModel(options, task.device, 1);
    EXPECT_TRUE(model.ok()) << model.status();
    auto policy = MakeStrategyPolicy(options, task, model->get(), 1);
    EXPECT_TRUE(policy.ok()) << policy.status();
    const auto* evo = dynamic_cast<const EvolutionarySearchPolicy*>(policy->get());
    EXPECT_NE(evo, nullptr) << strategy;
    return evo == nullptr ? -1 : evo->options().num_iters;
  };
  EXPECT_EQ(generations("ansor-random", -1), 2);
  EXPECT_EQ(generations("ansor-xgb", -1), 4);
  EXPECT_EQ(generations("ansor-random", 3), 3);
}

// A task with nothing measured takes the draft's best, or half its picks
// from it when the verifier was pretrained on another device
// (draft_verify_policy.h says why).
TEST(StrategySpecTest, ColdTasksTakeTheDraftWhateverTheVerifier) {
  SearchTask task = OperatorTask("relu:shape=8");
  task.device = testing::PinnedEpycCpu();
  // MakeStrategyPolicy reads the strategy, not the model's kind: any model
  // stands in for PaCM here.
  auto model = MakeRandomModel(1);
  auto cold_draft_share = [&](const char* strategy) {
    TuningOptions options;
    options.strategy = strategy;
    auto policy = MakeStrategyPolicy(options, task, model.get(), 1);
    EXPECT_TRUE(policy.ok()) << policy.status();
    const auto* dv = dynamic_cast<const DraftVerifySearchPolicy*>(policy->get());
    EXPECT_NE(dv, nullptr) << strategy;
    return dv != nullptr ? dv->options().cold_task_draft_share : -1.0;
  };
  EXPECT_EQ(cold_draft_share("pruner"), 1);
  EXPECT_EQ(cold_draft_share("lse-xgb"), 1);
  EXPECT_EQ(cold_draft_share("moa-pruner"), 1);
  EXPECT_EQ(cold_draft_share("pruner-offline"), 1);
}

// The drafter counts the code of the compiler that builds the job's
// kernels: g++'s for `pruner tune --backend gcc` (cpu_symbols.cc says where
// the two differ), LLVM's otherwise, with the device's constants either way.
TEST(StrategySpecTest, DraftCountsTheCodeOfTheJobsBackend) {
  CpuIssueConstants constants;
  constants.load = 2;
  TuningOptions options;
  EXPECT_EQ(DraftAnalyzerOptions(options, constants).cpu_codegen, CpuBackend::kLlvm);
  options.measure.build.backend = CpuBackend::kGcc;
  const AnalyzerOptions gcc = DraftAnalyzerOptions(options, constants);
  EXPECT_EQ(gcc.cpu_codegen, CpuBackend::kGcc);
  EXPECT_EQ(gcc.cpu_issue, constants);
}

}  // namespace
}  // namespace pruner
