#include "bench/search_efficiency/tuning_run.h"

#include <cstdio>

#include "absl/strings/str_cat.h"
#include "common/base/status_macros.h"

namespace pruner::bench {
namespace {

// Walks the job's records (id order = the order rounds measured them) and
// fills each point's best-so-far schedule per task. A later record only
// replaces the best when strictly faster, as TuningJob's own TaskStatus does.
absl::Status AttachBestSchedules(const RecordsStore& store, int64_t job_id, size_t num_tasks,
                                 RunTrace* trace) {
  PRUNER_ASSIGN_OR_RETURN(auto records, store.JobRecords(job_id));
  trace->improvements.assign(num_tasks, {});
  std::vector<int> best(num_tasks, -1);
  std::vector<double> best_s(num_tasks, 0);
  size_t next = 0;
  for (size_t p = 0; p < trace->points.size(); ++p) {
    RoundPoint& point = trace->points[p];
    for (int i = 0; i < point.measured; ++i, ++next) {
      if (next >= records.size()) return absl::DataLossError("fewer records than rounds measured");
      const StoredRecord& r = records[next];
      if (r.task_index != point.task) {
        return absl::DataLossError(absl::StrCat("record ", r.id, " is of task ", r.task_index,
                                                ", round ", p, " tuned task ", point.task));
      }
      if (!r.result.ok() || r.result.mean_s <= 0) continue;
      const size_t t = static_cast<size_t>(r.task_index);
      if (best[t] >= 0 && r.result.mean_s >= best_s[t]) continue;
      trace->improvements[t].push_back({r.steps, r.result.mean_s, static_cast<int>(p)});
      best[t] = static_cast<int>(trace->improvements[t].size()) - 1;
      best_s[t] = r.result.mean_s;
    }
    point.best = best;
  }
  return absl::OkStatus();
}

}  // namespace

TuningOptions MakeRunOptions(const RunSettings& settings, const std::string& strategy,
                             uint64_t seed, const std::string& pretrained_device) {
  TuningOptions o;
  o.name = absl::StrCat("bench_search_efficiency ", strategy, " seed ", seed);
  o.strategy = strategy;
  o.seed = seed;
  o.trial_budget = settings.trials;
  o.measures_per_round = settings.per_round;
  o.population = settings.population;
  o.pretrained_device = pretrained_device;
  o.seed_schedules = settings.seed_schedules;
  // As bench_tune: one warm-up call, then 3 repeats of at least 20 ms. The
  // winners are re-measured at length afterwards; this only has to rank.
  o.measure.number = 1;
  o.measure.repeat = 3;
  o.measure.min_repeat_ms = 20;
  o.measure.num_threads = settings.threads;
  return o;
}

RunTrace RunStrategy(RecordsStore* store, Measurer* measurer, const std::vector<SearchTask>& tasks,
                     const DeviceProfile& device, const TuningOptions& options,
                     const std::atomic<bool>* stop, bool verbose) {
  RunTrace trace;
  trace.strategy = options.strategy;
  trace.seed = options.seed;
  auto job = TuningJob::Create(store, measurer, tasks, device, options);
  if (!job.ok()) {
    trace.error = std::string(job.status().message());
    return trace;
  }
  RunLimits limits;
  limits.stop = stop;
  const std::string tag = absl::StrCat(options.strategy, "/", options.seed);
  if (verbose) {
    const DeviceProfile& searched = (*job)->SearchDevice();
    std::printf("  %-16s searches for %d of %d hardware threads (%.0f of %.0f GFLOP/s)\n",
                tag.c_str(), searched.num_cores, device.num_cores, searched.peak_gflops,
                device.peak_gflops);
  }
  absl::Status status = (*job)->Run(
      [&](const RoundReport& r) {
        RoundPoint p;
        p.task = r.task;
        p.measured = r.measured;
        p.trials = r.trials;
        p.wall_s = r.elapsed_s;
        p.time = r.time;
        p.search = r.search;
        p.draft_verify = r.draft_verify;
        trace.points.push_back(std::move(p));
        trace.wall_s = r.elapsed_s;
        if (verbose) {
          const TaskStatus& t = r.tasks.at(r.task);
          std::printf("  %-16s round %3d task %d trials %4lld  ok %2d/%-2d  best %9.4f ms  "
                      "est %9.4f ms  %6.1f s (search %.1f, measure %.1f, train %.1f)\n",
                      tag.c_str(), r.round, r.task, static_cast<long long>(r.trials), r.ok,
                      r.measured, t.best_cost_s * 1e3, r.estimated_latency_s * 1e3, r.elapsed_s,
                      r.time.search_s, r.time.measure_s, r.time.train_s);
        }
      },
      limits);
  trace.trials = (*job)->trials();
  if (!status.ok()) {
    trace.error = std::string(status.message());
    return trace;
  }
  if (absl::Status st = AttachBestSchedules(*store, (*job)->id(), tasks.size(), &trace); !st.ok()) {
    trace.error = std::string(st.message());
    return trace;
  }
  trace.ok = true;
  return trace;
}

}  // namespace pruner::bench
