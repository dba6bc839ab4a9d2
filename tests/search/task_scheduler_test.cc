// The task scheduler on synthetic tasks: the loop's reports are made up, so
// every expected choice can be worked out by hand from ansor.md §4.3.
#include "common/search/task_scheduler.h"

#include <set>
#include <vector>

#include "gtest/gtest.h"

namespace pruner {
namespace {

TaskSchedulerOptions Options(TaskSchedulerStrategy strategy = TaskSchedulerStrategy::kGradient) {
  TaskSchedulerOptions o;
  o.strategy = strategy;
  o.measures_per_round = 64;
  o.seed = 7;
  return o;
}

// Runs the warm-up: each task gets one round with the given best cost.
void WarmUp(TaskScheduler& s, const std::vector<double>& costs) {
  for (size_t i = 0; i < costs.size(); ++i) {
    ASSERT_EQ(s.NextTask(), static_cast<int>(i));
    s.OnRoundDone(static_cast<int>(i), 64, costs[i]);
  }
  ASSERT_TRUE(s.warmup_done());
}

TEST(TaskSchedulerTest, WarmUpVisitsEveryTaskOnceInOrder) {
  for (auto strategy : {TaskSchedulerStrategy::kGradient, TaskSchedulerStrategy::kRoundRobin}) {
    TaskScheduler s({1, 5, 1, 2}, {}, Options(strategy));
    // The heavy task 1 must wait for its turn: warm-up ignores gradients.
    for (int i = 0; i < 4; ++i) {
      EXPECT_FALSE(s.warmup_done());
      ASSERT_EQ(s.NextTask(), i);
      s.OnRoundDone(i, 64, 1e-3 * (i + 1));
    }
    EXPECT_TRUE(s.warmup_done());
    for (int i = 0; i < 4; ++i) EXPECT_EQ(s.rounds(i), 1);
    EXPECT_EQ(s.total_measured(), 4 * 64);
  }
}

TEST(TaskSchedulerTest, GradientPicksTheLargestExpectedGain) {
  // After one round each, forward_i = (g - g/1) - g = -g, backward = 0, so
  // grad_i = w_i * 0.8 * -g_i: the task with the largest w_i * g_i wins.
  TaskScheduler a({1, 1, 1}, {}, Options());
  WarmUp(a, {1e-3, 2e-3, 1e-3});
  const std::vector<double> g = a.Gradients();
  EXPECT_DOUBLE_EQ(g[0], -0.8e-3);
  EXPECT_DOUBLE_EQ(g[1], -1.6e-3);
  EXPECT_EQ(a.NextTask(), 1);

  // Weights count: 5 x 1 ms beats 1 x 2 ms.
  TaskScheduler b({1, 1, 5}, {}, Options());
  WarmUp(b, {1e-3, 2e-3, 1e-3});
  EXPECT_EQ(b.NextTask(), 2);
}

TEST(TaskSchedulerTest, GradientUsesTheBackwardWindow) {
  // Both tasks at 1 ms after 4 rounds; task 0 got there from 4 ms, task 1
  // has been flat. backward_0 = (1 - 4) / 3 ms = -1 ms, forward = -1/4 ms:
  // grad_0 = 0.2 * -1 + 0.8 * -0.25 = -0.4 ms; grad_1 = -0.2 ms.
  TaskScheduler s({1, 1}, {}, Options());
  TaskProgress improving;
  improving.rounds = 4;
  improving.best_cost = 1e-3;
  improving.best_round = 4;
  improving.history = {4e-3, 3e-3, 2e-3, 1e-3};
  TaskProgress flat = improving;
  flat.best_round = 1;
  flat.history = {1e-3, 1e-3, 1e-3, 1e-3};
  s.RestoreTask(0, improving);
  s.RestoreTask(1, flat);
  const std::vector<double> g = s.Gradients();
  EXPECT_NEAR(g[0], -0.4e-3, 1e-12);
  EXPECT_NEAR(g[1], -0.2e-3, 1e-12);
  EXPECT_EQ(s.NextTask(), 0);
}

TEST(TaskSchedulerTest, TasksWithoutAValidResultAreTunedFirst) {
  // A task whose rounds all failed keeps cost 1e10: its expected gain
  // (1e10 / rounds) dwarfs any real latency.
  TaskScheduler s({100, 1}, {}, Options());
  WarmUp(s, {1e-3, kNoValidCost});
  EXPECT_EQ(s.NextTask(), 1);
  EXPECT_FALSE(s.AllTasksValid());
}

TEST(TaskSchedulerTest, TiesAreBrokenAtRandomButReproducibly) {
  std::set<int> chosen;
  for (uint64_t seed = 0; seed < 40; ++seed) {
    TaskSchedulerOptions o = Options();
    o.seed = seed;
    TaskScheduler s({1, 1, 1}, {}, o);
    WarmUp(s, {1e-3, 1e-3, 1e-3});
    const int first = s.NextTask();
    chosen.insert(first);
    // The same seed and reports give the same choice.
    TaskScheduler again({1, 1, 1}, {}, o);
    WarmUp(again, {1e-3, 1e-3, 1e-3});
    EXPECT_EQ(again.NextTask(), first);
  }
  EXPECT_EQ(chosen, (std::set<int>{0, 1, 2}));
}

TEST(TaskSchedulerTest, RoundRobinCyclesOverLiveTasksAndSkipsDeadOnes) {
  TaskScheduler s({1, 1, 1}, {}, Options(TaskSchedulerStrategy::kRoundRobin));
  WarmUp(s, {1e-3, 1e-3, 1e-3});
  std::vector<int> order;
  for (int i = 0; i < 6; ++i) {
    const int t = s.NextTask();
    order.push_back(t);
    // Task 1's first round after warm-up measures nothing: it is dead.
    s.OnRoundDone(t, t == 1 ? 0 : 64, 1e-3);
  }
  EXPECT_EQ(order, (std::vector<int>{0, 1, 2, 0, 2, 0}));
  EXPECT_TRUE(s.dead(1));
  EXPECT_FALSE(s.dead(0));
}

TEST(TaskSchedulerTest, GradientSkipsDeadTasks) {
  TaskScheduler s({1, 10, 1}, {}, Options());
  WarmUp(s, {1e-3, 1e-3, 2e-3});
  ASSERT_EQ(s.NextTask(), 1);  // weight 10
  s.OnRoundDone(1, 0, 1e-3);   // exhausted
  EXPECT_TRUE(s.dead(1));
  EXPECT_EQ(s.Gradients()[1], 0);
  EXPECT_EQ(s.NextTask(), 2);
}

TEST(TaskSchedulerTest, EverythingDeadEndsTheJob) {
  TaskScheduler s({1, 1}, {}, Options());
  s.OnRoundDone(s.NextTask(), 0, kNoValidCost);
  EXPECT_EQ(s.NextTask(), 1);
  s.OnRoundDone(1, 0, kNoValidCost);
  EXPECT_EQ(s.NextTask(), -1);
  EXPECT_EQ(s.finish(), SchedulerFinish::kAllTasksDead);
}

TEST(TaskSchedulerTest, PerTaskEarlyStopping) {
  // 128 trials without improvement are allowed; the third stale round
  // (192 > 128) stops the task.
  TaskSchedulerOptions o = Options(TaskSchedulerStrategy::kRoundRobin);
  o.per_task_early_stopping = 128;
  TaskScheduler s({1, 1}, {}, o);
  WarmUp(s, {1e-3, 1e-3});
  s.OnRoundDone(0, 64, 1e-3);  // stale 1
  s.OnRoundDone(0, 64, 1e-3);  // stale 2: 128, not more
  EXPECT_FALSE(s.dead(0));
  s.OnRoundDone(0, 64, 0.9e-3);  // improves: the clock restarts
  s.OnRoundDone(0, 64, 0.9e-3);
  s.OnRoundDone(0, 64, 0.9e-3);
  EXPECT_FALSE(s.dead(0));
  s.OnRoundDone(0, 64, 0.9e-3);  // stale 3
  EXPECT_TRUE(s.dead(0));
  EXPECT_FALSE(s.dead(1));
  EXPECT_EQ(s.Progress(0).best_round, 4);
}

TEST(TaskSchedulerTest, GlobalEarlyStoppingNeedsValidResultsEverywhere) {
  TaskSchedulerOptions o = Options(TaskSchedulerStrategy::kRoundRobin);
  o.early_stopping = 128;
  TaskScheduler s({1, 1}, {}, o);
  WarmUp(s, {1e-3, kNoValidCost});
  // No improvement for 192 trials, but task 1 has no result: go on.
  for (int i = 0; i < 3; ++i) s.OnRoundDone(0, 64, 1e-3);
  EXPECT_NE(s.NextTask(), -1);
  s.OnRoundDone(1, 64, 2e-3);  // improves the objective (1e10 -> 2 ms)
  EXPECT_NE(s.NextTask(), -1);
  s.OnRoundDone(0, 64, 1e-3);
  EXPECT_NE(s.NextTask(), -1);  // 64 stale trials
  s.OnRoundDone(1, 64, 2e-3);   // 128 stale trials
  EXPECT_EQ(s.NextTask(), -1);
  EXPECT_EQ(s.finish(), SchedulerFinish::kEarlyStopping);
}

TEST(TaskSchedulerTest, TrialBudget) {
  TaskSchedulerOptions o = Options();
  o.trial_budget = 150;
  TaskScheduler s({1, 1}, {}, o);
  WarmUp(s, {1e-3, 1e-3});
  EXPECT_NE(s.NextTask(), -1);  // 128 < 150
  s.OnRoundDone(0, 30, 1e-3);
  EXPECT_EQ(s.NextTask(), -1);
  EXPECT_EQ(s.finish(), SchedulerFinish::kTrialBudget);
}

TEST(TaskSchedulerTest, BusyTasksAreNotChosen) {
  TaskScheduler s({1, 1, 1}, {}, Options());
  EXPECT_EQ(s.NextTask({0}), 1);  // warm-up goes on with the next task
  EXPECT_EQ(s.NextTask({0, 1, 2}), -1);
  EXPECT_FALSE(s.finished());  // nothing free, but not finished
}

TEST(TaskSchedulerTest, ObjectiveCountsMissingResultsAt1e10) {
  TaskScheduler s({2, 1}, {}, Options());
  EXPECT_DOUBLE_EQ(s.Objective(), 3 * kNoValidCost);
  WarmUp(s, {1e-3, kNoValidCost});
  EXPECT_DOUBLE_EQ(s.Objective(), 2e-3 + kNoValidCost);
  EXPECT_FALSE(s.EstimatedLatency().has_value());
  s.OnRoundDone(1, 64, 5e-3);
  EXPECT_DOUBLE_EQ(s.Objective(), 7e-3);
  ASSERT_TRUE(s.EstimatedLatency().has_value());
  EXPECT_DOUBLE_EQ(*s.EstimatedLatency(), 7e-3);
  // A worse report never raises a task's best cost.
  s.OnRoundDone(0, 64, 3e-3);
  EXPECT_DOUBLE_EQ(s.best_cost(0), 1e-3);
  EXPECT_EQ(s.history(0), (std::vector<double>{1e-3, 1e-3}));
}

TEST(TaskSchedulerTest, CustomObjectiveGetsANumericChainGradient) {
  TaskSchedulerOptions o = Options();
  // Only task 0's latency matters.
  o.objective = [](const std::vector<double>& c) { return 3 * c[0]; };
  TaskScheduler s({1, 1}, {}, o);
  WarmUp(s, {1e-3, 5e-3});
  EXPECT_DOUBLE_EQ(s.Objective(), 3e-3);
  const std::vector<double> g = s.Gradients();
  EXPECT_NEAR(g[0], 3 * -0.8e-3, 1e-9);
  EXPECT_NEAR(g[1], 0, 1e-12);
  EXPECT_EQ(s.NextTask(), 0);
}

TEST(TaskSchedulerTest, RestoreThenContinue) {
  // Tasks 0 and 2 were tuned in an earlier run; only task 1 warms up.
  TaskScheduler s({1, 1, 1}, {}, Options());
  s.RestoreTask(0, 3, 2e-3);
  s.RestoreTask(2, 2, kNoValidCost);
  EXPECT_EQ(s.total_measured(), 5 * 64);
  EXPECT_EQ(s.history(0), (std::vector<double>{2e-3, 2e-3, 2e-3}));
  EXPECT_EQ(s.Progress(0).best_round, 3);
  EXPECT_EQ(s.Progress(2).best_round, 0);
  EXPECT_FALSE(s.warmup_done());
  ASSERT_EQ(s.NextTask(), 1);
  s.OnRoundDone(1, 64, 1e-3);
  EXPECT_TRUE(s.warmup_done());
  // Task 2 still has no valid result: it comes first.
  EXPECT_EQ(s.NextTask(), 2);
  s.OnRoundDone(2, 64, 4e-3);
  EXPECT_EQ(s.rounds(2), 3);
  EXPECT_EQ(s.total_measured(), 7 * 64);
}

TEST(TaskSchedulerTest, RestoringProgressReproducesTheSchedule) {
  // Costs chosen so that no two gradients tie: the tie-break draws are the
  // one thing progress does not carry.
  TaskSchedulerOptions o = Options();
  TaskScheduler a({1, 2, 1}, {}, o);
  WarmUp(a, {3e-3, 1.1e-3, 2.3e-3});
  const double gain[] = {0.9, 0.93, 0.97};
  for (int i = 0; i < 10; ++i) {
    const int t = a.NextTask();
    ASSERT_GE(t, 0);
    a.OnRoundDone(t, 64, a.best_cost(t) * gain[t]);
  }
  TaskScheduler b({1, 2, 1}, {}, o);
  for (int i = 0; i < 3; ++i) b.RestoreTask(i, a.Progress(i));
  EXPECT_TRUE(b.warmup_done());
  EXPECT_EQ(b.total_measured(), a.total_measured());
  EXPECT_EQ(b.Gradients(), a.Gradients());
  for (int i = 0; i < 5; ++i) {
    const int t = a.NextTask();
    ASSERT_EQ(b.NextTask(), t);
    a.OnRoundDone(t, 64, a.best_cost(t) * gain[t]);
    b.OnRoundDone(t, 64, b.best_cost(t) * gain[t]);
  }
}

TEST(TaskSchedulerTest, RestoredStaleTaskIsDead) {
  TaskSchedulerOptions o = Options();
  o.per_task_early_stopping = 100;
  TaskScheduler s({1, 1}, {}, o);
  TaskProgress p;
  p.rounds = 5;
  p.best_cost = 1e-3;
  p.best_round = 2;  // 3 stale rounds = 192 trials > 100
  s.RestoreTask(0, p);
  EXPECT_TRUE(s.dead(0));
  EXPECT_EQ(s.NextTask(), 1);
}

TEST(TaskSchedulerTest, SimilarityGroupBoundsTheForwardGuess) {
  // Two tasks of one group with equal FLOPs: task 0 runs at 1 ms, task 1 at
  // 10 ms. Task 1 is expected to reach at best beta x task 0's time:
  // g_next_2 = 2 ms. After 2 rounds the plain guess is g_next_1 = 10 - 10/2
  // = 5 ms, so g_next_2 wins: grad_1 = 0.8 * (2 - 10) ms (backward 0: the
  // history is shorter than the window).
  TaskSchedulerOptions o = Options(TaskSchedulerStrategy::kRoundRobin);
  o.similarity_tags = {"dense", "dense", ""};
  TaskScheduler s({1, 1, 1}, {1e9, 1e9, 1e9}, o);
  WarmUp(s, {1e-3, 10e-3, 1e-3});
  s.OnRoundDone(0, 64, 1e-3);
  s.OnRoundDone(1, 64, 10e-3);
  s.OnRoundDone(2, 64, 1e-3);
  const std::vector<double> g = s.Gradients();
  EXPECT_NEAR(g[1], 0.8 * (2e-3 - 10e-3), 1e-12);
  // Task 2 has no group: the plain forward guess, 0.8 * -(1/2) ms.
  EXPECT_NEAR(g[2], 0.8 * -0.5e-3, 1e-12);
}

}  // namespace
}  // namespace pruner
