// The gradient strategy of the task scheduler (ansor.md §4.3) and its
// similarity groups.
//
//   grad_i = chain_i * (alpha * backward_i + (1 - alpha) * forward_i)
//   chain_i    = ∂f/∂g_i (w_i for the weighted sum)
//   backward_i = (g_i[t-1] - g_i[t-1-window]) / window, 0 without enough history
//   forward_i  = min(g_i - g_i / t_i, beta * C_i / max_{k in group} C_k / g_k) - g_i
//
// The task with the most negative gradient (the largest expected decrease
// of the objective) is tuned next; ties are broken uniformly at random.
#include <algorithm>
#include <cmath>
#include <map>
#include <string>

#include "common/search/task_scheduler.h"

namespace pruner {
namespace {

// Ansor's similarity buckets: log base 1.618 of the FLOP count.
int FlopBucket(double flops) {
  return static_cast<int>(std::floor(std::log(flops + 1) / std::log(1.618)));
}

}  // namespace

void TaskScheduler::BuildGroups() {
  std::map<std::string, int> group_of_tag;
  const auto& tags = options_.similarity_tags;
  for (int i = 0; i < num_tasks() && i < static_cast<int>(tags.size()); ++i) {
    if (tags[i].empty()) continue;
    const std::string key = tags[i] + "_" + std::to_string(FlopBucket(tasks_[i].flops));
    auto [it, inserted] = group_of_tag.emplace(key, static_cast<int>(groups_.size()));
    if (inserted) groups_.emplace_back();
    groups_[it->second].push_back(i);
    tasks_[i].group = it->second;
  }
}

double TaskScheduler::ChainGradient(int task) const {
  if (!options_.objective) return tasks_[task].weight;
  // TVM's finite difference. For the weighted sum it is computed exactly
  // above: with 1e10 placeholder costs the difference of two ~1e10 sums
  // loses most of its digits.
  constexpr double kDelta = 1e-4;
  std::vector<double> costs = BestCosts();
  const double f = options_.objective(costs);
  costs[task] -= kDelta;
  return (f - options_.objective(costs)) / kDelta;
}

double TaskScheduler::Gradient(int task) const {
  const Task& t = tasks_[task];
  const TaskProgress& p = t.progress;
  if (p.dead || p.rounds == 0) return 0;
  const int window = options_.backward_window;
  double backward = 0;
  const int last = p.rounds - 1;
  if (window > 0 && last < static_cast<int>(p.history.size()) && last - window >= 0) {
    backward = (p.history[last] - p.history[last - window]) / window;
  }
  const double g = p.best_cost;
  const double g_next_1 = g - g / p.rounds;
  double g_next_2 = options_.beta * 1e30;
  if (t.group >= 0 && groups_[t.group].size() > 1) {
    double best_flops = 0;
    for (int k : groups_[t.group]) {
      best_flops = std::max(best_flops, tasks_[k].flops / tasks_[k].progress.best_cost);
    }
    if (best_flops > 0) g_next_2 = options_.beta * t.flops / best_flops;
  }
  const double forward = std::min(g_next_1, g_next_2) - g;
  return ChainGradient(task) *
         (options_.alpha * backward + (1 - options_.alpha) * forward);
}

std::vector<double> TaskScheduler::Gradients() const {
  std::vector<double> grads(tasks_.size());
  for (int i = 0; i < num_tasks(); ++i) grads[i] = Gradient(i);
  return grads;
}

int TaskScheduler::PickGradient(const std::vector<int>& candidates) {
  std::vector<double> grads;
  grads.reserve(candidates.size());
  for (int c : candidates) grads.push_back(Gradient(c));
  const double min_grad = *std::min_element(grads.begin(), grads.end());
  std::vector<int> ties;
  for (size_t i = 0; i < candidates.size(); ++i) {
    if (grads[i] == min_grad) ties.push_back(candidates[i]);
  }
  return ties.size() == 1 ? ties.front() : ties[rng_.Below(ties.size())];
}

void TaskScheduler::AdjustGroup(int task) {
  Task& t = tasks_[task];
  if (t.group < 0) return;
  std::vector<int>& members = groups_[t.group];
  if (members.size() <= 1) return;
  // A task tuned 5 rounds beyond every other member that still runs below
  // 1/beta of the group's best throughput is not really similar: it leaves.
  double best_flops = 0;
  int max_other_rounds = 0;
  for (int k : members) {
    best_flops = std::max(best_flops, tasks_[k].flops / tasks_[k].progress.best_cost);
    if (k != task) max_other_rounds = std::max(max_other_rounds, tasks_[k].progress.rounds);
  }
  const double flops = t.flops / t.progress.best_cost;
  if (flops < best_flops / options_.beta && t.progress.rounds > 5 + max_other_rounds) {
    members.erase(std::find(members.begin(), members.end(), task));
    t.group = -1;
  }
}

}  // namespace pruner
