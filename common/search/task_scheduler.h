// Ansor's task scheduler (ansor.md §4): which task of a job gets the next
// round of measurements. A pure algorithm: the tuning loop asks NextTask(),
// runs one policy round of that task, measures it, and reports back with
// OnRoundDone(). Nothing here measures, searches or sleeps, and the same
// seed and reports give the same choices.
//
// - Warm-up: every task with no rounds yet gets one, in task order.
// - Then "gradient" (default) picks the live task whose next round is
//   expected to lower the objective most (§4.3; argmin of the gradient,
//   uniform random among ties), or "round-robin" cycles over live tasks.
// - A task is dead when a round measured nothing (its space is exhausted)
//   or, with per-task early stopping, when it has gone that many trials
//   without improving. NextTask() answers -1 when every task is dead, when
//   global early stopping fired, or when the optional trial budget is spent.
//
// Costs are best mean latencies in seconds. A task without any valid
// result has cost kNoValidCost = 1e10, exactly as TVM initialises
// best_costs, and the objective keeps that value: Objective() is Ansor's
// Σ w_i · best_cost_i, so it is astronomically large until every task has a
// valid result, and the gradient strongly favours tasks that still have
// none (their expected gain is ~1e10 / rounds). EstimatedLatency() is the
// presentable form: the same sum, but only once every task has a result.
// Global early stopping likewise requires a valid result for every task.
#ifndef PRUNER_COMMON_SEARCH_TASK_SCHEDULER_H_
#define PRUNER_COMMON_SEARCH_TASK_SCHEDULER_H_

#include <cstdint>
#include <functional>
#include <optional>
#include <string>
#include <vector>

#include "common/sketch/random.h"

namespace pruner {

inline constexpr double kNoValidCost = 1e10;
// True for a cost that is a real measurement: positive, finite, < 1e10.
bool IsValidCost(double cost_s);

enum class TaskSchedulerStrategy { kGradient, kRoundRobin };

struct TaskSchedulerOptions {
  TaskSchedulerStrategy strategy = TaskSchedulerStrategy::kGradient;
  // Trials per round; converts rounds to trials for the early-stopping
  // rules (rounds are what the scheduler counts per task).
  int measures_per_round = 64;
  // A task dies once (rounds - best_round) * measures_per_round exceeds
  // this. <= 0: off (Ansor's default).
  int64_t per_task_early_stopping = 0;
  // Stop once this many trials passed since the objective last improved
  // and every task has a valid result. <= 0: off (Ansor's default).
  int64_t early_stopping = 0;
  // NextTask() answers -1 once this many trials were measured. <= 0: none
  // (the tuning loop usually enforces its own budget).
  int64_t trial_budget = 0;

  // Gradient strategy (§4.3).
  double alpha = 0.2;       // weight of the backward (history) gradient
  double beta = 2;          // similar tasks reach within 1/beta of the best
  int backward_window = 3;  // rounds
  // Similarity tags, one per task, or empty (no groups, TVM's situation:
  // no TOPI op sets a tag). Tasks whose non-empty tags and FLOP buckets
  // (floor(log_1.618(flop + 1))) agree form a group.
  std::vector<std::string> similarity_tags;
  // A custom objective over the tasks' best costs (lower is better); empty:
  // the weighted sum. Custom objectives get a numeric chain gradient.
  std::function<double(const std::vector<double>& best_costs)> objective;

  uint64_t seed = 0;  // tie-breaks
};

// Everything the scheduler keeps per task, to persist and restore a job.
struct TaskProgress {
  int rounds = 0;
  double best_cost = kNoValidCost;
  // The round (1-based) in which best_cost was found; 0: none.
  int best_round = 0;
  int64_t measured = 0;          // trials of this task, failures included
  std::vector<double> history;   // best cost after each round
  bool dead = false;
};

enum class SchedulerFinish { kNotFinished, kAllTasksDead, kEarlyStopping, kTrialBudget };
const char* SchedulerFinishName(SchedulerFinish finish);

class TaskScheduler {
 public:
  // One weight and one FLOP count per task (`flops` may be empty: only
  // similarity groups read it).
  TaskScheduler(std::vector<double> weights, std::vector<double> flops,
                TaskSchedulerOptions options = {});

  int num_tasks() const { return static_cast<int>(tasks_.size()); }
  const TaskSchedulerOptions& options() const { return options_; }

  // The task to tune next, or -1 when there is none. Tasks in `busy` (rounds
  // in flight, when the loop overlaps search and measurement) are not
  // chosen. Call OnRoundDone for the chosen task before asking again
  // (otherwise the same task may come back).
  int NextTask(const std::vector<int>& busy = {});

  // Reports a finished round of `task`: how many programs were measured
  // (failures included; 0 marks the task dead) and the task's best valid
  // cost after the round (any invalid value, e.g. 1e10, means none yet).
  void OnRoundDone(int task, int num_measured, double best_cost_after);

  // Restores a task when a job resumes, before the first NextTask().
  // The short form knows only rounds and best cost: the best is taken as
  // found in the last restored round (so the per-task early-stopping clock
  // restarts at resume) when it is valid, trials are estimated as rounds *
  // measures_per_round, and the history is flat at best_cost (so the
  // backward gradient starts at 0, as in TVM, where a restored task has one
  // history entry). The full form restores exactly what Progress() gave; a
  // history of the wrong length is padded at the front with its first
  // value or trimmed to the last `rounds` entries.
  void RestoreTask(int task, int rounds, double best_cost);
  void RestoreTask(int task, TaskProgress progress);

  const TaskProgress& Progress(int task) const { return tasks_[task].progress; }
  int rounds(int task) const { return Progress(task).rounds; }
  double best_cost(int task) const { return Progress(task).best_cost; }
  const std::vector<double>& history(int task) const { return Progress(task).history; }
  bool dead(int task) const { return Progress(task).dead; }
  double weight(int task) const { return tasks_[task].weight; }

  int64_t total_measured() const { return total_measured_; }
  bool warmup_done() const { return warmup_done_; }
  SchedulerFinish finish() const { return finish_; }
  bool finished() const { return finish_ != SchedulerFinish::kNotFinished; }

  // Σ w_i · best_cost_i (or the custom objective), tasks without a valid
  // result counted at kNoValidCost.
  double Objective() const;
  // Σ w_i · best_cost_i once every task has a valid result.
  std::optional<double> EstimatedLatency() const;
  bool AllTasksValid() const;

  // The gradient of every task as NextTask would compute it now (0 for dead
  // tasks and tasks with no round yet). For logs and tests.
  std::vector<double> Gradients() const;

 private:
  struct Task {
    double weight = 1;
    double flops = 0;
    int group = -1;  // similarity group, -1: none
    TaskProgress progress;
  };

  std::vector<double> BestCosts() const;
  double ChainGradient(int task) const;
  double Gradient(int task) const;
  int PickGradient(const std::vector<int>& candidates);
  int PickRoundRobin(const std::vector<int>& candidates) const;
  void BuildGroups();
  void AdjustGroup(int task);
  void CheckPerTaskEarlyStopping(int task);
  void UpdateWarmup();
  void UpdateGlobalEarlyStopping();

  TaskSchedulerOptions options_;
  std::vector<Task> tasks_;
  std::vector<std::vector<int>> groups_;  // members of each similarity group
  Rng rng_;
  int64_t total_measured_ = 0;
  bool warmup_done_ = false;
  int last_task_ = -1;  // round-robin cursor (the last task tuned after warm-up)
  double best_score_ = 0;
  int64_t best_score_measured_ = 0;  // total_measured_ when best_score_ was set
  SchedulerFinish finish_ = SchedulerFinish::kNotFinished;
};

}  // namespace pruner

#endif  // PRUNER_COMMON_SEARCH_TASK_SCHEDULER_H_
