// Task bookkeeping, warm-up, round-robin and early stopping; the gradient
// strategy is in task_scheduler_gradient.cc.
#include "common/search/task_scheduler.h"

#include <algorithm>
#include <cmath>
#include <utility>

namespace pruner {

bool IsValidCost(double cost_s) {
  return std::isfinite(cost_s) && cost_s > 0 && cost_s < kNoValidCost;
}

const char* SchedulerFinishName(SchedulerFinish finish) {
  switch (finish) {
    case SchedulerFinish::kNotFinished: return "not finished";
    case SchedulerFinish::kAllTasksDead: return "every task finished";
    case SchedulerFinish::kEarlyStopping: return "early stopping";
    case SchedulerFinish::kTrialBudget: return "trial budget spent";
  }
  return "?";
}

TaskScheduler::TaskScheduler(std::vector<double> weights, std::vector<double> flops,
                             TaskSchedulerOptions options)
    : options_(std::move(options)), rng_(options_.seed) {
  tasks_.resize(weights.size());
  for (size_t i = 0; i < weights.size(); ++i) {
    tasks_[i].weight = weights[i];
    tasks_[i].flops = i < flops.size() ? flops[i] : 0;
  }
  BuildGroups();
}

std::vector<double> TaskScheduler::BestCosts() const {
  std::vector<double> costs;
  costs.reserve(tasks_.size());
  for (const Task& t : tasks_) costs.push_back(t.progress.best_cost);
  return costs;
}

double TaskScheduler::Objective() const {
  if (options_.objective) return options_.objective(BestCosts());
  double sum = 0;
  for (const Task& t : tasks_) sum += t.weight * t.progress.best_cost;
  return sum;
}

bool TaskScheduler::AllTasksValid() const {
  return std::all_of(tasks_.begin(), tasks_.end(),
                     [](const Task& t) { return IsValidCost(t.progress.best_cost); });
}

std::optional<double> TaskScheduler::EstimatedLatency() const {
  if (!AllTasksValid()) return std::nullopt;
  double sum = 0;
  for (const Task& t : tasks_) sum += t.weight * t.progress.best_cost;
  return sum;
}

int TaskScheduler::NextTask(const std::vector<int>& busy) {
  if (finished()) return -1;
  if (options_.trial_budget > 0 && total_measured_ >= options_.trial_budget) {
    finish_ = SchedulerFinish::kTrialBudget;
    return -1;
  }
  auto is_busy = [&](int i) { return std::find(busy.begin(), busy.end(), i) != busy.end(); };
  bool any_live = false;
  std::vector<int> candidates;  // live, idle, tuned at least once
  for (int i = 0; i < num_tasks(); ++i) {
    const TaskProgress& p = tasks_[i].progress;
    if (p.dead) continue;
    any_live = true;
    if (is_busy(i)) continue;
    // Warm-up: the first task never tuned, in order.
    if (p.rounds == 0) return i;
    candidates.push_back(i);
  }
  if (!any_live) {
    finish_ = SchedulerFinish::kAllTasksDead;
    return -1;
  }
  if (candidates.empty()) return -1;  // everything live is in flight
  return options_.strategy == TaskSchedulerStrategy::kRoundRobin ? PickRoundRobin(candidates)
                                                                 : PickGradient(candidates);
}

int TaskScheduler::PickRoundRobin(const std::vector<int>& candidates) const {
  // The first candidate after the last task tuned, cyclically.
  for (int c : candidates) {
    if (c > last_task_) return c;
  }
  return candidates.front();
}

void TaskScheduler::OnRoundDone(int task, int num_measured, double best_cost_after) {
  if (task < 0 || task >= num_tasks()) return;
  TaskProgress& p = tasks_[task].progress;
  ++p.rounds;
  p.measured += std::max(num_measured, 0);
  total_measured_ += std::max(num_measured, 0);
  if (IsValidCost(best_cost_after) && best_cost_after < p.best_cost) {
    p.best_cost = best_cost_after;
    p.best_round = p.rounds;
  }
  p.history.push_back(p.best_cost);
  if (num_measured <= 0) p.dead = true;  // nothing new left to measure
  CheckPerTaskEarlyStopping(task);
  if (warmup_done_) {
    last_task_ = task;
    AdjustGroup(task);
    UpdateGlobalEarlyStopping();
  } else {
    UpdateWarmup();
  }
}

void TaskScheduler::CheckPerTaskEarlyStopping(int task) {
  TaskProgress& p = tasks_[task].progress;
  if (options_.per_task_early_stopping <= 0) return;
  const int64_t stale_trials =
      static_cast<int64_t>(p.rounds - p.best_round) * options_.measures_per_round;
  if (stale_trials > options_.per_task_early_stopping) p.dead = true;
}

void TaskScheduler::UpdateWarmup() {
  for (const Task& t : tasks_) {
    if (!t.progress.dead && t.progress.rounds == 0) return;
  }
  // As in TVM, the early-stopping reference starts after the warm-up.
  warmup_done_ = true;
  best_score_ = Objective();
  best_score_measured_ = total_measured_;
}

void TaskScheduler::UpdateGlobalEarlyStopping() {
  const double score = Objective();
  if (score < best_score_) {
    best_score_ = score;
    best_score_measured_ = total_measured_;
  } else if (options_.early_stopping > 0 &&
             total_measured_ - best_score_measured_ >= options_.early_stopping &&
             AllTasksValid()) {
    finish_ = SchedulerFinish::kEarlyStopping;
  }
}

void TaskScheduler::RestoreTask(int task, int rounds, double best_cost) {
  TaskProgress p;
  p.rounds = std::max(rounds, 0);
  p.best_cost = IsValidCost(best_cost) ? best_cost : kNoValidCost;
  p.best_round = IsValidCost(best_cost) ? p.rounds : 0;
  p.measured = static_cast<int64_t>(p.rounds) * options_.measures_per_round;
  RestoreTask(task, std::move(p));
}

void TaskScheduler::RestoreTask(int task, TaskProgress progress) {
  if (task < 0 || task >= num_tasks()) return;
  TaskProgress& p = tasks_[task].progress;
  total_measured_ -= p.measured;
  p = std::move(progress);
  p.rounds = std::max(p.rounds, 0);
  if (!IsValidCost(p.best_cost)) {
    p.best_cost = kNoValidCost;
    p.best_round = 0;
  }
  p.best_round = std::clamp(p.best_round, 0, p.rounds);
  p.measured = std::max<int64_t>(p.measured, 0);
  const size_t want = static_cast<size_t>(p.rounds);
  if (p.history.size() > want) {
    p.history.erase(p.history.begin(), p.history.end() - static_cast<std::ptrdiff_t>(want));
  } else if (p.history.size() < want) {
    const double fill = p.history.empty() ? p.best_cost : p.history.front();
    p.history.insert(p.history.begin(), want - p.history.size(), fill);
  }
  total_measured_ += p.measured;
  CheckPerTaskEarlyStopping(task);
  warmup_done_ = false;
  UpdateWarmup();
}

}  // namespace pruner
