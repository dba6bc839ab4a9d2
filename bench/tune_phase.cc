#include "bench/tune_phase.h"

#include <algorithm>
#include <cstdio>
#include <memory>
#include <set>

#include "absl/strings/str_cat.h"
#include "bench/measure_baselines.h"
#include "common/ir/ops.h"
#include "common/search/search_policy.h"
#include "common/store/records_store.h"
#include "common/measure/measurer.h"

namespace pruner::bench {
namespace {

// One line of the tuning curve: where the round's time went, and the best
// so far as the tuner measured it.
void PrintCurveLine(const std::string& name, const RoundReport& r) {
  const TaskStatus& t = r.tasks.at(r.task);
  const RoundTime& x = r.time;
  const double build_wall = std::max(0.0, x.measure_s - x.run_s);
  std::printf("  %-6s round %3d  trials %5lld/%lld  +%-3d ok %-3d  best %7.1f GFLOP/s "
              "(%8.3f ms) | round %5.1f s: search %5.1f  train %5.1f  build %5.1f "
              "(compilers %5.1f)  run %5.1f  db %5.2f\n",
              name.c_str(), r.round, static_cast<long long>(r.trials),
              static_cast<long long>(r.trial_budget), r.measured, r.ok,
              t.best_cost_s > 0 ? t.flops / t.best_cost_s / 1e9 : 0.0, t.best_cost_s * 1e3,
              x.search_s + x.train_s + x.measure_s + x.db_s, x.search_s, x.train_s, build_wall,
              x.build_s, x.run_s, x.db_s);
  if (!r.errors.empty()) {
    std::printf("         %zu failed, first: %s\n", r.errors.size(),
                r.errors.front().substr(0, 200).c_str());
  }
}

// The job's `n` best ok records with distinct sentences, lowest mean first.
std::vector<Finalist> BestRecords(const RecordsStore& store, int64_t job_id, int n,
                                  std::string* error) {
  absl::StatusOr<std::vector<StoredRecord>> records = store.JobRecords(job_id);
  if (!records.ok()) {
    *error = std::string(records.status().message());
    return {};
  }
  std::vector<const StoredRecord*> ok;
  for (const StoredRecord& r : *records) {
    if (r.result.ok() && r.result.mean_s > 0) ok.push_back(&r);
  }
  std::stable_sort(ok.begin(), ok.end(), [](const StoredRecord* a, const StoredRecord* b) {
    return a->result.mean_s < b->result.mean_s;
  });
  std::vector<Finalist> out;
  std::set<std::string> seen;
  for (const StoredRecord* r : ok) {
    if (static_cast<int>(out.size()) >= n) break;
    if (seen.insert(r->steps).second) out.push_back({r->steps, r->result.mean_s});
  }
  if (out.empty()) *error = "no valid record";
  return out;
}

TuneOutcome TuneOne(RecordsStore* store, Measurer* measurer, const TuneRequest& request,
                    const DeviceProfile& device, const TuningOptions& options, int finalists,
                    const std::atomic<bool>* stop) {
  TuneOutcome out;
  out.name = request.name;
  absl::StatusOr<ComputeDag> dag = BuildOperator(request.spec);
  if (!dag.ok()) {
    out.error = std::string(dag.status().message());
    return out;
  }
  SearchTask task;
  task.name = request.spec;
  task.dag = std::make_shared<const ComputeDag>(*std::move(dag));
  task.workload_key = task.dag->WorkloadKey();
  TuningOptions named = options;
  named.name = absl::StrCat("bench_tune ", request.name);
  auto job = TuningJob::Create(store, measurer, {task}, device, named);
  if (!job.ok()) {
    out.error = std::string(job.status().message());
    return out;
  }
  RunLimits limits;
  limits.stop = stop;
  auto t0 = Clock::now();
  absl::Status status = (*job)->Run(
      [&](const RoundReport& r) {
        out.time += r.time;
        out.rounds = r.round;
        const TaskStatus& t = r.tasks.at(r.task);
        if (t.best_cost_s > 0) out.best_gflops = t.flops / t.best_cost_s / 1e9;
        PrintCurveLine(request.name, r);
      },
      limits);
  out.wall_s = Since(t0);
  out.trials = (*job)->trials();
  if (!status.ok()) {
    out.error = std::string(status.message());
    return out;
  }
  out.finalists = BestRecords(*store, (*job)->id(), finalists, &out.error);
  out.ok = !out.finalists.empty();
  return out;
}

}  // namespace

TuningOptions MakeTuningOptions(const TuneSettings& settings) {
  TuningOptions o;
  o.strategy = settings.strategy;
  o.trial_budget = settings.trials;
  o.measures_per_round = settings.per_round;
  o.population = settings.population;
  o.measure.build.backend = settings.backend;
  o.measure.hopeless_factor = settings.hopeless_factor;
  return o;
}

std::vector<TuneOutcome> TuneAll(const std::vector<TuneRequest>& requests,
                                 const DeviceProfile& device, const TuneSettings& settings,
                                 const std::string& db_path, int finalists,
                                 const std::atomic<bool>* stop) {
  std::vector<TuneOutcome> outcomes;
  auto fail_all = [&](const std::string& why) {
    for (const TuneRequest& r : requests) {
      TuneOutcome o;
      o.name = r.name;
      o.error = why;
      outcomes.push_back(o);
    }
    std::fprintf(stderr, "bench_tune: %s\n", why.c_str());
    return outcomes;
  };
  const TuningOptions options = MakeTuningOptions(settings);
  if (absl::Status st = ValidateTuningOptions(options); !st.ok()) {
    return fail_all(std::string(st.message()));
  }
  auto store = RecordsStore::Open(db_path);
  if (!store.ok()) return fail_all(absl::StrCat(db_path, ": ", store.status().message()));
  // Started before any model code runs OpenMP in this thread: the
  // measurer's thread is the only one that forks.
  std::unique_ptr<Measurer> measurer = MakeLocalMeasurer(options.measure);
  for (const TuneRequest& r : requests) {
    if (stop != nullptr && stop->load()) {
      TuneOutcome skipped;
      skipped.name = r.name;
      skipped.interrupted = true;
      skipped.error = "skipped after an interrupt";
      outcomes.push_back(skipped);
      continue;
    }
    std::printf("tuning %s (%s)\n", r.name.c_str(), r.spec.c_str());
    outcomes.push_back(TuneOne(store->get(), measurer.get(), r, device, options, finalists, stop));
    TuneOutcome& o = outcomes.back();
    o.interrupted = stop != nullptr && stop->load();
    if (!o.error.empty()) std::printf("  %s: %s\n", r.name.c_str(), o.error.c_str());
    if (o.interrupted) std::printf("  %s: interrupted\n", r.name.c_str());
    const double rate = o.wall_s > 0 ? o.trials / o.wall_s : 0.0;
    std::printf("  %s: %lld trials in %.0f s (%.2f trials/s; 1000 trials at this rate: %.0f min), "
                "tuner's own best %.1f GFLOP/s\n\n",
                r.name.c_str(), static_cast<long long>(o.trials), o.wall_s, rate,
                rate > 0 ? 1000 / rate / 60 : 0.0, o.best_gflops);
  }
  return outcomes;
}

double TimeTotals::BuildWall() const { return std::max(0.0, time.measure_s - time.run_s); }

double TimeTotals::Other() const {
  return std::max(0.0, wall_s - time.search_s - time.train_s - time.measure_s - time.db_s);
}

TimeTotals PrintTimeBreakdown(const std::vector<TuneOutcome>& outcomes) {
  std::vector<TimeTotals> cols;
  TimeTotals total;
  for (const TuneOutcome& o : outcomes) {
    TimeTotals t;
    t.wall_s = o.wall_s;
    t.time = o.time;
    cols.push_back(t);
    total.wall_s += o.wall_s;
    total.time += o.time;
  }
  cols.push_back(total);
  std::printf("where the tuning wall time went (the Pruner paper's Table 1):\n");
  std::printf("  %-44s", "");
  for (const TuneOutcome& o : outcomes) std::printf(" %17s", o.name.c_str());
  std::printf(" %17s\n", "total");
  auto row = [&](const char* what, double (*get)(const TimeTotals&)) {
    std::printf("  %-44s", what);
    for (const TimeTotals& t : cols) {
      std::printf(" %9.1f s %5.1f%%", get(t), 100 * t.Frac(get(t)));
    }
    std::printf("\n");
  };
  row("search (sampling, evolution, model scoring)", [](const TimeTotals& t) { return t.time.search_s; });
  row("train (cost-model updates)", [](const TimeTotals& t) { return t.time.train_s; });
  row("build (measure wall - run: lower, compile)", [](const TimeTotals& t) { return t.BuildWall(); });
  row("run (sandboxed runs, one at a time)", [](const TimeTotals& t) { return t.time.run_s; });
  row("db (records store writes)", [](const TimeTotals& t) { return t.time.db_s; });
  row("other (curve points, scheduler, prints)", [](const TimeTotals& t) { return t.Other(); });
  row("wall", [](const TimeTotals& t) { return t.wall_s; });
  std::printf("  %-44s", "(sum of compiler times, 2 in parallel)");
  for (const TimeTotals& t : cols) std::printf(" %9.1f s %6s", t.time.build_s, "");
  std::printf("\n");
  return total;
}

}  // namespace pruner::bench
