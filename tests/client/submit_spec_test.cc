#include "client/submit_spec.h"

#include "gmock/gmock.h"
#include "gtest/gtest.h"

namespace pruner {
namespace {

using ::testing::ElementsAre;
using ::testing::HasSubstr;

constexpr char kFile[] = R"({"name": "from file", "network": "bert-tiny", "target": "cpu",
  "trialBudget": 100, "strategy": "random", "measure": {"repeat": 5, "number": 2}})";

TEST(BuildJobSpecTest, FlagsAlone) {
  SubmitFlags flags;
  flags.ops = {"dense:M=64,K=64,N=64", "softmax:M=16,N=100"};
  flags.target = "a100";
  flags.trials = 500;
  flags.per_round = 32;
  flags.seed = 9;
  flags.threads = 2;
  auto spec = BuildJobSpec(flags, "");
  ASSERT_TRUE(spec.ok()) << spec.status();
  EXPECT_THAT(spec->ops(), ElementsAre("dense:M=64,K=64,N=64", "softmax:M=16,N=100"));
  EXPECT_EQ(spec->target(), "a100");
  EXPECT_EQ(spec->trial_budget(), 500);
  EXPECT_EQ(spec->measures_per_round(), 32);
  EXPECT_EQ(spec->seed(), 9u);
  EXPECT_EQ(spec->measure().num_threads(), 2);
  EXPECT_TRUE(spec->strategy().empty());  // the server's default
}

TEST(BuildJobSpecTest, NoMeasureFlagsSendsNoMeasureOptions) {
  SubmitFlags flags;
  flags.network = "resnet-50";
  flags.target = "cpu";
  auto spec = BuildJobSpec(flags, "");
  ASSERT_TRUE(spec.ok()) << spec.status();
  EXPECT_FALSE(spec->has_measure());
}

TEST(BuildJobSpecTest, VerifiedBestsAreOnUnlessTurnedOff) {
  SubmitFlags flags;
  flags.network = "resnet-50";
  flags.target = "cpu";
  auto spec = BuildJobSpec(flags, "");
  ASSERT_TRUE(spec.ok()) << spec.status();
  EXPECT_FALSE(spec->has_verify_bests());  // the server's default: on
  EXPECT_EQ(spec->verify_tolerance(), 0);
  flags.no_verify_bests = true;
  flags.verify_tolerance = 0.5;
  spec = BuildJobSpec(flags, "");
  ASSERT_TRUE(spec.ok()) << spec.status();
  ASSERT_TRUE(spec->has_verify_bests());
  EXPECT_FALSE(spec->verify_bests());
  EXPECT_EQ(spec->verify_tolerance(), 0.5);
}

TEST(BuildJobSpecTest, SeedSchedulesAreOnUnlessTurnedOff) {
  SubmitFlags flags;
  flags.network = "resnet-50";
  flags.target = "cpu";
  auto spec = BuildJobSpec(flags, "");
  ASSERT_TRUE(spec.ok()) << spec.status();
  EXPECT_FALSE(spec->has_seed_schedules());  // the server's default: on
  flags.no_seeds = true;
  spec = BuildJobSpec(flags, "");
  ASSERT_TRUE(spec.ok()) << spec.status();
  ASSERT_TRUE(spec->has_seed_schedules());
  EXPECT_FALSE(spec->seed_schedules());
}

TEST(BuildJobSpecTest, FlagsOverrideTheFileFieldByField) {
  SubmitFlags flags;
  flags.trials = 300;
  flags.repeat = 7;
  auto spec = BuildJobSpec(flags, kFile);
  ASSERT_TRUE(spec.ok()) << spec.status();
  EXPECT_EQ(spec->trial_budget(), 300);
  EXPECT_EQ(spec->measure().repeat(), 7);
  EXPECT_EQ(spec->measure().number(), 2);  // kept from the file
  EXPECT_EQ(spec->name(), "from file");
  EXPECT_EQ(spec->strategy(), "random");
  EXPECT_EQ(spec->network(), "bert-tiny");
}

TEST(BuildJobSpecTest, OpsFlagReplacesTheFilesNetwork) {
  SubmitFlags flags;
  flags.ops = {"dense:M=8,K=8,N=8"};
  auto spec = BuildJobSpec(flags, kFile);
  ASSERT_TRUE(spec.ok()) << spec.status();
  EXPECT_TRUE(spec->network().empty());
  EXPECT_THAT(spec->ops(), ElementsAre("dense:M=8,K=8,N=8"));
}

TEST(BuildJobSpecTest, OpsAndNetworkTogetherAreRefused) {
  SubmitFlags flags;
  flags.ops = {"dense:M=8,K=8,N=8"};
  flags.network = "bert-tiny";
  flags.target = "cpu";
  auto spec = BuildJobSpec(flags, "");
  ASSERT_FALSE(spec.ok());
  EXPECT_THAT(spec.status().message(), HasSubstr("give one of --op, --network and --model"));

  SubmitFlags none;
  none.target = "cpu";
  auto both_in_file =
      BuildJobSpec(none, R"({"ops": ["dense:M=8,K=8,N=8"], "network": "bert-tiny"})");
  ASSERT_FALSE(both_in_file.ok());
  EXPECT_THAT(both_in_file.status().message(), HasSubstr("both"));
}

TEST(BuildJobSpecTest, NothingToTuneOrNoTarget) {
  SubmitFlags flags;
  flags.target = "cpu";
  auto nothing = BuildJobSpec(flags, "");
  ASSERT_FALSE(nothing.ok());
  EXPECT_THAT(nothing.status().message(), HasSubstr("--op"));

  SubmitFlags no_target;
  no_target.network = "bert-tiny";
  auto untargeted = BuildJobSpec(no_target, "");
  ASSERT_FALSE(untargeted.ok());
  EXPECT_THAT(untargeted.status().message(), HasSubstr("--target"));
}

TEST(BuildJobSpecTest, BadFileIsReportedAsIs) {
  SubmitFlags flags;
  flags.target = "cpu";
  auto spec = BuildJobSpec(flags, R"({"network": "bert-tiny", "budget": 5})");
  ASSERT_FALSE(spec.ok());
  EXPECT_THAT(spec.status().message(), HasSubstr("budget"));
}

TEST(BuildJobSpecTest, AModelTravelsAsItsTasksWithoutWeights) {
  SubmitFlags flags;
  flags.model = std::string(PRUNER_TEST_MODELS_DIR) + "/encoder.onnx";
  flags.target = "cpu";
  auto spec = BuildJobSpec(flags, "");
  ASSERT_TRUE(spec.ok()) << spec.status();
  EXPECT_TRUE(spec->ops().empty());
  EXPECT_TRUE(spec->network().empty());
  EXPECT_EQ(spec->model().name(), "encoder");
  ASSERT_EQ(spec->model().tasks_size(), 8);
  double weights = 0;
  for (const v1::ModelTask& t : spec->model().tasks()) {
    EXPECT_THAT(t.dag(), HasSubstr("placeholder"));
    weights += t.weight();
  }
  EXPECT_EQ(weights, 11);  // Q, K, V share a task; so do the two layer norms
  // Shapes only: the DAG texts together are far smaller than the weights.
  EXPECT_LT(spec->ByteSizeLong(), 40000u);

  SubmitFlags bad = flags;
  bad.model = std::string(PRUNER_TEST_MODELS_DIR) + "/unsupported_ops.onnx";
  EXPECT_THAT(BuildJobSpec(bad, "").status().message(), HasSubstr("CumSum x2"));
}

}  // namespace
}  // namespace pruner
