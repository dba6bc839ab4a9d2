// Bad job specs are refused with messages that say what to change; good
// ones become tasks and tuning options with the documented defaults.
#include "server/job_spec_check.h"

#include "common/ir/ops.h"

#include "gtest/gtest.h"

namespace pruner {
namespace {

v1::JobSpec Matmul() {
  v1::JobSpec spec;
  spec.add_ops("matmul:M=64,K=64,N=64");
  spec.set_target("cpu-x");
  spec.set_trial_budget(32);
  return spec;
}

void ExpectRefused(const v1::JobSpec& spec, const std::string& needle) {
  auto checked = CheckJobSpec(spec);
  ASSERT_FALSE(checked.ok()) << needle;
  EXPECT_NE(checked.status().message().find(needle), std::string::npos)
      << "message: " << checked.status().message() << "\nexpected to mention: " << needle;
}

TEST(JobSpecCheckTest, DefaultsFilled) {
  auto checked = CheckJobSpec(Matmul());
  ASSERT_TRUE(checked.ok()) << checked.status();
  EXPECT_EQ(checked->tasks.size(), 1u);
  EXPECT_EQ(checked->options.strategy, "ansor-xgb");
  EXPECT_EQ(checked->options.scheduler, "gradient");
  EXPECT_EQ(checked->options.measures_per_round, 64);
  EXPECT_EQ(checked->options.trial_budget, 32);
  EXPECT_EQ(checked->options.measure.number, 1);
  EXPECT_EQ(checked->options.measure.repeat, 3);
  EXPECT_TRUE(checked->options.verify_bests);
  EXPECT_EQ(checked->options.verify_tolerance, 0.25);
}

TEST(JobSpecCheckTest, VerifiedBestsCanBeTunedOrTurnedOff) {
  v1::JobSpec spec = Matmul();
  spec.set_verify_bests(false);
  spec.set_verify_tolerance(0.5);
  auto checked = CheckJobSpec(spec);
  ASSERT_TRUE(checked.ok()) << checked.status();
  EXPECT_FALSE(checked->options.verify_bests);
  EXPECT_EQ(checked->options.verify_tolerance, 0.5);
  spec.set_verify_tolerance(-1);
  ExpectRefused(spec, "verify tolerance must be in [0, 10]");
}

TEST(JobSpecCheckTest, RepeatedOperatorIsOneTaskWithWeight) {
  v1::JobSpec spec = Matmul();
  spec.add_ops("matmul:M=64,K=64,N=64");
  spec.add_ops("dense:M=4,K=8,N=16");
  auto checked = CheckJobSpec(spec);
  ASSERT_TRUE(checked.ok()) << checked.status();
  ASSERT_EQ(checked->tasks.size(), 2u);
  EXPECT_DOUBLE_EQ(checked->tasks[0].weight, 2);
  EXPECT_DOUBLE_EQ(checked->tasks[1].weight, 1);
}

TEST(JobSpecCheckTest, NetworkGivesItsTasks) {
  v1::JobSpec spec;
  spec.set_network("bert-tiny");
  spec.set_target("cpu-x");
  spec.set_trial_budget(100);
  auto checked = CheckJobSpec(spec);
  ASSERT_TRUE(checked.ok()) << checked.status();
  EXPECT_EQ(checked->tasks.size(), 8u);
}

TEST(JobSpecCheckTest, BudgetsZeroNegativeAndHugeRefused) {
  v1::JobSpec spec = Matmul();
  spec.set_trial_budget(0);
  ExpectRefused(spec, "trial_budget must be > 0");
  spec.set_trial_budget(-5);
  ExpectRefused(spec, "trial_budget must be > 0");
  spec.set_trial_budget(int64_t{1} << 40);
  ExpectRefused(spec, "more than this server allows");
}

TEST(JobSpecCheckTest, ModelTasksAreParsedAndKeyedHere) {
  absl::StatusOr<ComputeDag> dag = BuildOperator("dense:M=16,K=64,N=64,bias=1");
  ASSERT_TRUE(dag.ok());
  v1::JobSpec spec = Matmul();
  spec.clear_ops();
  v1::ModelTask* task = spec.mutable_model()->add_tasks();
  task->set_name("dense_bias");
  task->set_dag(dag->CanonicalText());
  task->set_weight(3);
  absl::StatusOr<CheckedJob> job = CheckJobSpec(spec, JobLimits{});
  ASSERT_TRUE(job.ok()) << job.status();
  ASSERT_EQ(job->tasks.size(), 1u);
  EXPECT_EQ(job->tasks[0].workload_key, dag->WorkloadKey());
  EXPECT_EQ(job->tasks[0].weight, 3);

  v1::JobSpec garbage = spec;
  garbage.mutable_model()->mutable_tasks(0)->set_dag("not a dag");
  ExpectRefused(garbage, "model task 'dense_bias'");
  v1::JobSpec weightless = spec;
  weightless.mutable_model()->mutable_tasks(0)->set_weight(0);
  ExpectRefused(weightless, "weight must be in (0, 1e6]");
  v1::JobSpec mixed = spec;
  mixed.add_ops("dense:M=8,K=8,N=8");
  ExpectRefused(mixed, "names a model and ops or a network");
}

TEST(JobSpecCheckTest, MalformedSpecsRefused) {
  v1::JobSpec none = Matmul();
  none.clear_ops();
  ExpectRefused(none, "nothing to tune");

  v1::JobSpec both = Matmul();
  both.set_network("resnet-50");
  ExpectRefused(both, "not both");

  v1::JobSpec no_target = Matmul();
  no_target.clear_target();
  ExpectRefused(no_target, "no target");

  v1::JobSpec per_round = Matmul();
  per_round.set_measures_per_round(100000);
  ExpectRefused(per_round, "measures_per_round");

  v1::JobSpec strategy = Matmul();
  strategy.set_strategy("simulated-annealing");
  ExpectRefused(strategy, "unknown strategy");

  v1::JobSpec scheduler = Matmul();
  scheduler.set_scheduler("fifo");
  ExpectRefused(scheduler, "unknown task scheduler");

  v1::JobSpec timing = Matmul();
  timing.mutable_measure()->set_repeat(-1);
  ExpectRefused(timing, "counts must be >= 0");
  timing.mutable_measure()->set_repeat(3);
  timing.mutable_measure()->set_run_timeout_s(1e9);
  ExpectRefused(timing, "out of range");

  v1::JobSpec long_name = Matmul();
  long_name.set_name(std::string(1000, 'x'));
  ExpectRefused(long_name, "job name");
}

TEST(JobSpecCheckTest, UnknownOperatorsNetworksAndImpossibleShapesRefused) {
  v1::JobSpec op = Matmul();
  op.set_ops(0, "fft:N=1024");
  ExpectRefused(op, "fft");

  v1::JobSpec shape = Matmul();
  shape.set_ops(0, "matmul:M=0,K=64,N=64");
  ExpectRefused(shape, "matmul:M=0");

  v1::JobSpec negative = Matmul();
  negative.set_ops(0, "conv2d:N=1,C=-3,H=8,W=8,K=4,R=3,S=3");
  auto checked = CheckJobSpec(negative);
  EXPECT_FALSE(checked.ok());

  v1::JobSpec network;
  network.set_network("alexnet");
  network.set_target("cpu-x");
  network.set_trial_budget(10);
  ExpectRefused(network, "resnet-50");  // lists the built-in networks
}

TEST(JobSpecCheckTest, TooManyOperatorsRefused) {
  v1::JobSpec spec = Matmul();
  for (int i = 0; i < 300; ++i) spec.add_ops("matmul:M=8,K=8,N=" + std::to_string(8 + i));
  ExpectRefused(spec, "at most");
}

}  // namespace
}  // namespace pruner
