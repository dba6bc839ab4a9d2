#include "bench/search_efficiency/efficiency_report.h"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <limits>

namespace pruner::bench {
namespace {

constexpr double kInf = std::numeric_limits<double>::infinity();

// Re-measured best-so-far of task `t` at point `p` of run `r`: the fastest
// re-measured (ok) schedule among the kept improvements found by then.
double RemeasuredBest(const RunTrace& run, const std::vector<std::vector<bool>>& kept,
                      const RemeasuredTimes& times, size_t t, size_t p) {
  const int last = run.points[p].best[t];
  double best = kInf;
  for (int i = 0; i <= last; ++i) {
    if (!kept[t][i]) continue;
    auto it = times[t].find(run.improvements[t][i].sentence);
    if (it != times[t].end() && it->second.ok) best = std::min(best, it->second.median_s);
  }
  return best;
}

struct Curve {
  std::vector<double> self_obj;  // Σ w × self-reported best (inf until every task has one)
  std::vector<double> obj;       // Σ w × re-measured best
  std::vector<std::vector<double>> per_task;  // [p][t] re-measured
};

Curve MakeCurve(const std::vector<SearchTask>& tasks, const RunTrace& run,
                const std::vector<std::vector<bool>>& kept, const RemeasuredTimes& times) {
  Curve c;
  for (size_t p = 0; p < run.points.size(); ++p) {
    double self = 0, obj = 0;
    std::vector<double> row;
    for (size_t t = 0; t < tasks.size(); ++t) {
      const int b = run.points[p].best[t];
      self += b < 0 ? kInf : tasks[t].weight * run.improvements[t][b].self_s;
      const double r = b < 0 ? kInf : RemeasuredBest(run, kept, times, t, p);
      row.push_back(r);
      obj += tasks[t].weight * r;
    }
    c.self_obj.push_back(self);
    c.obj.push_back(obj);
    c.per_task.push_back(std::move(row));
  }
  return c;
}

// First point whose value is <= target; -1 when none.
int FirstReaching(const std::vector<double>& values, double target) {
  for (size_t p = 0; p < values.size(); ++p) {
    if (values[p] <= target) return static_cast<int>(p);
  }
  return -1;
}

std::string Ms(double s) {
  if (!std::isfinite(s)) return "-";
  char buf[32];
  std::snprintf(buf, sizeof(buf), "%.4f", s * 1e3);
  return buf;
}

void PrintCurve(const RunTrace& run, const Curve& c) {
  std::printf("  %s seed %llu: %lld trials, %.1f s\n", run.strategy.c_str(),
              static_cast<unsigned long long>(run.seed), static_cast<long long>(run.trials),
              run.wall_s);
  std::printf("    %5s %6s %8s %14s %14s\n", "round", "trials", "wall s", "self-rep ms",
              "re-measured ms");
  for (size_t p = 0; p < run.points.size(); ++p) {
    std::printf("    %5zu %6lld %8.1f %14s %14s\n", p + 1,
                static_cast<long long>(run.points[p].trials), run.points[p].wall_s,
                Ms(c.self_obj[p]).c_str(), Ms(c.obj[p]).c_str());
  }
}

Overheads SumOverheads(const std::string& strategy, const std::vector<RunTrace>& runs) {
  Overheads o;
  o.strategy = strategy;
  for (const RunTrace& run : runs) {
    if (run.strategy != strategy || !run.ok) continue;
    for (const RoundPoint& p : run.points) {
      ++o.rounds;
      o.search_s += p.time.search_s;
      o.measure_s += p.time.measure_s;
      o.train_s += p.time.train_s;
      o.build_s += p.time.build_s;
      o.run_s += p.time.run_s;
      o.predict_s += p.search.predict_s;
      if (p.draft_verify.has_value()) {
        o.draft_s += p.draft_verify->draft_s;
        o.verify_s += p.draft_verify->verify_s;
        o.drafter_scored += static_cast<double>(p.draft_verify->drafter_scored);
        o.learned_scored += static_cast<double>(p.draft_verify->verifier_scored);
      } else {
        o.learned_scored += static_cast<double>(p.search.predicted_states);
      }
    }
  }
  if (o.rounds > 0) {
    for (double* x : {&o.search_s, &o.draft_s, &o.verify_s, &o.predict_s, &o.measure_s,
                      &o.train_s, &o.build_s, &o.run_s, &o.learned_scored, &o.drafter_scored}) {
      *x /= o.rounds;
    }
  }
  return o;
}

}  // namespace

KeptImprovements ChooseImprovements(const std::vector<SearchTask>& tasks,
                                    const std::vector<RunTrace>& runs, int per_run,
                                    const std::string& baseline) {
  // The largest final self-reported objective among the baseline runs.
  double bound = 0;
  for (const RunTrace& run : runs) {
    if (run.strategy != baseline || !run.ok || run.points.empty()) continue;
    double obj = 0;
    for (size_t t = 0; t < tasks.size(); ++t) {
      const int b = run.points.back().best[t];
      obj += b < 0 ? kInf : tasks[t].weight * run.improvements[t][b].self_s;
    }
    bound = std::max(bound, obj);
  }
  if (bound <= 0) bound = kInf;  // no baseline: keep the last per_run of each
  KeptImprovements kept;
  for (const RunTrace& run : runs) {
    std::vector<std::vector<bool>> per_task;
    for (size_t t = 0; t < run.improvements.size(); ++t) {
      const auto& imps = run.improvements[t];
      std::vector<bool> flags(imps.size(), false);
      int n = 0;
      const int last = static_cast<int>(imps.size()) - 1;
      for (int i = last; i >= 0 && n < per_run; --i) {
        // The final best is always kept, so that every run has a final
        // re-measured objective (for the ratio of a run that never reached).
        if (i != last && tasks[t].weight * imps[i].self_s > kRelevanceFactor * bound) break;
        flags[i] = true;
        ++n;
      }
      per_task.push_back(std::move(flags));
    }
    kept.push_back(std::move(per_task));
  }
  return kept;
}

std::vector<std::vector<std::string>> SentencesToRemeasure(const std::vector<RunTrace>& runs,
                                                           const KeptImprovements& kept,
                                                           size_t num_tasks) {
  std::vector<std::vector<std::string>> out(num_tasks);
  for (size_t r = 0; r < runs.size(); ++r) {
    for (size_t t = 0; t < num_tasks && t < runs[r].improvements.size(); ++t) {
      for (size_t i = 0; i < runs[r].improvements[t].size(); ++i) {
        if (kept[r][t][i]) out[t].push_back(runs[r].improvements[t][i].sentence);
      }
    }
  }
  return out;
}

EfficiencySummary ReportEfficiency(const std::vector<SearchTask>& tasks,
                                   const std::vector<RunTrace>& runs,
                                   const KeptImprovements& kept, const RemeasuredTimes& times,
                                   const std::string& baseline) {
  EfficiencySummary summary;
  std::vector<Curve> curves;
  for (size_t r = 0; r < runs.size(); ++r) {
    // A failed run has no best-so-far schedules: an empty curve, never used.
    curves.push_back(runs[r].ok ? MakeCurve(tasks, runs[r], kept[r], times) : Curve{});
  }

  std::printf("\ntuning curves: objective = sum over workloads of the best-so-far schedule's "
              "time; self-reported = the tuner's own sandboxed mean, re-measured = interleaved "
              "median; '-' = some workload's best-so-far was not re-measured: slower by its own "
              "timing than %.0fx the slowest %s final objective, or older than the last kept)\n",
              kRelevanceFactor, baseline.c_str());
  for (size_t i = 0; i < runs.size(); ++i) {
    if (runs[i].ok) PrintCurve(runs[i], curves[i]);
  }

  std::printf("\ntime to reach the %s run's final re-measured best (same seed):\n",
              baseline.c_str());
  std::printf("  (floor/ans: the run's time when every workload first had a measured "
              "schedule / the %s run's time; no run reaches the target sooner)\n",
              baseline.c_str());
  std::printf("  %-14s %4s %12s %9s %7s %9s %9s %9s %12s %12s\n", "strategy", "seed",
              "target ms", "time s", "trials", "time/ans", "trial/ans", "floor/ans", "final ms",
              "final/target");
  for (size_t b = 0; b < runs.size(); ++b) {
    if (runs[b].strategy != baseline || !runs[b].ok || runs[b].points.empty()) continue;
    const double target = curves[b].obj.back();
    const int base_p = FirstReaching(curves[b].obj, target);
    const double base_time = base_p >= 0 ? runs[b].points[base_p].wall_s : 0;
    const int64_t base_trials = base_p >= 0 ? runs[b].points[base_p].trials : 0;
    for (size_t i = 0; i < runs.size(); ++i) {
      const RunTrace& run = runs[i];
      if (run.seed != runs[b].seed || !run.ok || run.points.empty()) continue;
      ReachResult r;
      r.strategy = run.strategy;
      r.seed = run.seed;
      const int p = FirstReaching(curves[i].obj, target);
      r.reached = p >= 0 && std::isfinite(target);
      if (r.reached) {
        r.time_s = run.points[p].wall_s;
        r.trials = run.points[p].trials;
        r.time_ratio = base_time > 0 ? r.time_s / base_time : 0;
        r.trials_ratio = base_trials > 0 ? static_cast<double>(r.trials) / base_trials : 0;
      }
      r.final_ratio = curves[i].obj.back() / target;
      // The first point whose self-reported objective is finite.
      const int warm = FirstReaching(curves[i].self_obj, std::numeric_limits<double>::max());
      if (warm >= 0 && base_time > 0) r.floor_ratio = run.points[warm].wall_s / base_time;
      if (r.reached) {
        std::printf("  %-14s %4llu %12s %9.1f %7lld %9.3f %9.3f %9.3f %12s %12.3f\n",
                    r.strategy.c_str(), static_cast<unsigned long long>(r.seed),
                    Ms(target).c_str(), r.time_s, static_cast<long long>(r.trials), r.time_ratio,
                    r.trials_ratio, r.floor_ratio, Ms(curves[i].obj.back()).c_str(),
                    r.final_ratio);
      } else {
        std::printf("  %-14s %4llu %12s %9s %7s %9s %9s %9.3f %12s %12.3f  (never reached: "
                    "final ratio reported instead)\n",
                    r.strategy.c_str(), static_cast<unsigned long long>(r.seed),
                    Ms(target).c_str(), "-", "-", "never", "never", r.floor_ratio,
                    Ms(curves[i].obj.back()).c_str(), r.final_ratio);
      }
      summary.reach.push_back(r);
    }
    // Per workload, the same question for each task alone.
    for (size_t t = 0; t < tasks.size(); ++t) {
      const double task_target = curves[b].per_task.back()[t];
      std::printf("    %-40.40s target %10s ms:", tasks[t].name.c_str(), Ms(task_target).c_str());
      for (size_t i = 0; i < runs.size(); ++i) {
        if (runs[i].seed != runs[b].seed || !runs[i].ok || runs[i].points.empty()) continue;
        int p = -1;
        for (size_t q = 0; q < curves[i].per_task.size(); ++q) {
          if (curves[i].per_task[q][t] <= task_target) {
            p = static_cast<int>(q);
            break;
          }
        }
        if (p >= 0) {
          std::printf("  %s %.0f s/%lld", runs[i].strategy.c_str(), runs[i].points[p].wall_s,
                      static_cast<long long>(runs[i].points[p].trials));
        } else {
          std::printf("  %s never (final %.3fx)", runs[i].strategy.c_str(),
                      curves[i].per_task.back()[t] / task_target);
        }
      }
      std::printf("\n");
    }
  }

  std::vector<std::string> strategies;
  for (const RunTrace& run : runs) {
    if (std::find(strategies.begin(), strategies.end(), run.strategy) == strategies.end()) {
      strategies.push_back(run.strategy);
    }
  }
  std::printf("\nper-round search overheads (means over every round of every seed; "
              "learned = states the learned cost model scored, LSE = states the symbol "
              "analyzer scored):\n");
  std::printf("  %-14s %6s %9s %9s %9s %9s %9s %9s %9s %9s %10s %9s\n", "strategy", "rounds",
              "search s", "draft s", "verify s", "predict s", "measure s", "(build sum", "run s)",
              "train s", "learned", "LSE");
  for (const std::string& s : strategies) {
    Overheads o = SumOverheads(s, runs);
    std::printf("  %-14s %6d %9.2f %9.2f %9.2f %9.2f %9.2f %9.2f %9.2f %9.2f %10.0f %9.0f\n",
                s.c_str(), o.rounds, o.search_s, o.draft_s, o.verify_s, o.predict_s, o.measure_s,
                o.build_s, o.run_s, o.train_s, o.learned_scored, o.drafter_scored);
    summary.overheads.push_back(o);
  }
  return summary;
}

RatioMeans GeoMeanRatios(const EfficiencySummary& s, const std::string& strategy) {
  RatioMeans m;
  double log_time = 0, log_trials = 0, log_final = 0, log_floor = 0;
  int floors = 0;
  for (const ReachResult& r : s.reach) {
    if (r.strategy != strategy) continue;
    ++m.runs;
    // A run without any re-measured schedule has an infinite objective.
    log_final += std::log(std::isfinite(r.final_ratio) && r.final_ratio > 0 ? r.final_ratio : 1e9);
    if (r.floor_ratio > 0) {
      ++floors;
      log_floor += std::log(r.floor_ratio);
    }
    if (r.reached && r.time_ratio > 0 && r.trials_ratio > 0) {
      ++m.reached;
      log_time += std::log(r.time_ratio);
      log_trials += std::log(r.trials_ratio);
    }
  }
  if (m.runs > 0) m.final_ratio = std::exp(log_final / m.runs);
  if (floors > 0) m.floor_ratio = std::exp(log_floor / floors);
  if (m.reached > 0) {
    m.time_ratio = std::exp(log_time / m.reached);
    m.trials_ratio = std::exp(log_trials / m.reached);
  }
  return m;
}

}  // namespace pruner::bench
