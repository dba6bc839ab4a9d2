#include "client/tune_command.h"

#include <atomic>
#include <cctype>
#include <csignal>
#include <cstdio>
#include <iostream>
#include <memory>

#include "absl/strings/str_cat.h"
#include "common/device/device_profile.h"
#include "common/graph/networks.h"
#include "common/graph/tasks.h"
#include "common/ir/ops.h"
#include "common/lower/lower.h"
#include "common/schedule/state.h"
#include "common/schedule/step.h"
#include "common/store/records_store.h"
#include "common/tune/job_tasks.h"
#include "common/measure/measurer.h"
#include "common/tune/tuning_job.h"

namespace pruner {
namespace {

std::atomic<bool> g_stop{false};

void OnSignal(int) { g_stop.store(true); }

int Fail(const absl::Status& status) {
  std::cerr << "error: " << status.message() << "\n";
  return 2;
}

std::string Duration(double s) {
  if (s < 60) return absl::StrCat(static_cast<int>(s), "s");
  if (s < 3600) return absl::StrCat(static_cast<int>(s / 60), "m", static_cast<int>(s) % 60, "s");
  return absl::StrCat(static_cast<int>(s / 3600), "h", static_cast<int>(s / 60) % 60, "m");
}

void PrintTable(const RoundReport& r) {
  std::printf("|  ID | %-44s | weight | trials | latency (ms) | GFLOP/s |\n", "task");
  std::printf("|-----|%s|--------|--------|--------------|---------|\n",
              std::string(46, '-').c_str());
  for (size_t i = 0; i < r.tasks.size(); ++i) {
    const TaskStatus& t = r.tasks[i];
    std::string name = t.name.size() > 44 ? t.name.substr(0, 41) + "..." : t.name;
    if (t.best_cost_s > 0) {
      std::printf("| %3zu | %-44s | %6g | %6lld | %12.4f | %7.1f |\n", i, name.c_str(), t.weight,
                  static_cast<long long>(t.trials), t.best_cost_s * 1e3,
                  t.flops / t.best_cost_s / 1e9);
    } else {
      std::printf("| %3zu | %-44s | %6g | %6lld | %12s | %7s |\n", i, name.c_str(), t.weight,
                  static_cast<long long>(t.trials), "-", "-");
    }
  }
}

void PrintRound(const RoundReport& r, bool table) {
  const TaskStatus& t = r.tasks[r.task];
  std::printf("round %d  task %d %-40.40s  +%d (%d ok)  trials %lld/%lld  best %s  est. total %s%s"
              "  elapsed %s  ETA %s\n",
              r.round, r.task, t.name.c_str(), r.measured, r.ok, static_cast<long long>(r.trials),
              static_cast<long long>(r.trial_budget),
              t.best_cost_s > 0 ? absl::StrCat(t.best_cost_s * 1e3, " ms").c_str() : "-",
              absl::StrCat(r.estimated_latency_s * 1e3, " ms").c_str(),
              r.tasks_without_result > 0
                  ? absl::StrCat(" (", r.tasks_without_result, " tasks without result)").c_str()
                  : "",
              Duration(r.elapsed_s).c_str(), Duration(r.eta_s).c_str());
  std::printf("    time: search %.2fs  train %.2fs  measure %.2fs (build %.2fs, run %.2fs)  db %.3fs\n",
              r.time.search_s, r.time.train_s, r.time.measure_s, r.time.build_s, r.time.run_s,
              r.time.db_s);
  if (!r.errors.empty()) {
    std::printf("    %zu failed, first: %s\n", r.errors.size(), r.errors.front().substr(0, 160).c_str());
  }
  if (table) PrintTable(r);
  std::fflush(stdout);
}

}  // namespace

int RunTune(const TuneCommand& c) {
  auto store = RecordsStore::Open(c.db);
  if (!store.ok()) return Fail(store.status());
  // The measurer's thread starts before any model or OpenMP code runs.
  std::unique_ptr<TuningJob> job;
  std::unique_ptr<Measurer> measurer;
  if (c.resume_job > 0) {
    auto stored = (*store)->GetJob(c.resume_job);
    if (!stored.ok()) return Fail(stored.status());
    auto options = TuningOptionsFromJson(stored->options_json);
    if (!options.ok()) return Fail(options.status());
    auto device = (*store)->GetDevice(stored->device_key);
    if (!device.ok()) return Fail(device.status());
    if (device->IsGpu()) {
      return Fail(absl::FailedPreconditionError(
          "job targets a GPU; in-process tuning measures on the local CPU only"));
    }
    auto local = GetDeviceProfile("cpu");
    if (!local.ok()) return Fail(local.status());
    if (WithStableCpuKey(*local).name != device->name) {
      return Fail(absl::FailedPreconditionError(absl::StrCat(
          "job ", c.resume_job, " was tuned on ", device->name, ", this machine is ",
          WithStableCpuKey(*local).name, ": its records would not compare")));
    }
    measurer = MakeLocalMeasurer(options->measure);
    auto resumed = TuningJob::Resume(store->get(), measurer.get(), c.resume_job);
    if (!resumed.ok()) return Fail(resumed.status());
    job = std::move(*resumed);
    std::printf("resuming job %lld: %lld of %lld trials done\n",
                static_cast<long long>(job->id()), static_cast<long long>(job->trials()),
                static_cast<long long>(job->options().trial_budget));
  } else {
    auto device = GetDeviceProfile(c.device);
    if (!device.ok()) return Fail(device.status());
    if (device->IsGpu()) {
      return Fail(absl::InvalidArgumentError(absl::StrCat(
          "device ", device->name,
          ": in-process tuning measures on the local CPU only (tune for a GPU through the "
          "service: `pruner submit` to a server with a worker on that GPU)")));
    }
    auto tasks = BuildJobTasks(c.ops, c.network);
    if (!tasks.ok()) return Fail(tasks.status());
    measurer = MakeLocalMeasurer(c.options.measure);
    auto created = TuningJob::Create(store->get(), measurer.get(), *std::move(tasks),
                                     WithStableCpuKey(*device), c.options);
    if (!created.ok()) return Fail(created.status());
    job = std::move(*created);
    std::printf("job %lld: %zu tasks on %s, strategy %s, scheduler %s, %lld trials, db %s\n",
                static_cast<long long>(job->id()), job->TaskStatuses().size(),
                WithStableCpuKey(*device).name.c_str(), c.options.strategy.c_str(),
                c.options.scheduler.c_str(), static_cast<long long>(c.options.trial_budget),
                c.db.c_str());
  }
  std::signal(SIGINT, OnSignal);
  std::signal(SIGTERM, OnSignal);
  RunLimits limits;
  limits.stop = &g_stop;
  RoundReport last;
  absl::Status status = job->Run(
      [&](const RoundReport& r) {
        last = r;
        PrintRound(r, !c.quiet && (r.round % 10 == 0));
      },
      limits);
  if (!status.ok()) return Fail(status);
  if (!last.tasks.empty()) PrintTable(last);
  std::printf("%s job %lld: %lld trials, estimated total latency %.4f ms\n",
              g_stop.load() ? "stopped" : "finished", static_cast<long long>(job->id()),
              static_cast<long long>(job->trials()), job->EstimatedLatency() * 1e3);
  if (g_stop.load()) {
    std::printf("continue with: pruner tune --db %s --resume %lld\n", c.db.c_str(),
                static_cast<long long>(job->id()));
  }
  return 0;
}

int RunBest(const std::string& db, const std::string& what, const std::string& device_key,
            bool show_program) {
  auto store = RecordsStore::Open(db);
  if (!store.ok()) return Fail(store.status());
  // A job id lists the best of each of its tasks; otherwise a workload key.
  std::vector<std::pair<std::string, std::string>> wanted;  // (name, workload key)
  std::string device = device_key;
  int64_t job_id = 0;
  if (!what.empty() && std::all_of(what.begin(), what.end(), ::isdigit)) job_id = std::stoll(what);
  if (job_id > 0) {
    auto job = (*store)->GetJob(job_id);
    if (!job.ok()) return Fail(job.status());
    if (device.empty()) device = job->device_key;
    for (const StoredTask& t : job->tasks) wanted.emplace_back(t.name, t.workload_key);
  } else {
    if (device.empty()) return Fail(absl::InvalidArgumentError("--device KEY is needed with a workload key"));
    wanted.emplace_back(what, what);
  }
  int missing = 0;
  for (const auto& [name, key] : wanted) {
    auto best = (*store)->BestRecord(key, device);
    if (!best.ok()) {
      std::printf("%s: no valid record on %s\n", name.c_str(), device.c_str());
      ++missing;
      continue;
    }
    auto dag = (*store)->GetWorkload(key);
    if (!dag.ok()) return Fail(dag.status());
    const double gflops = dag->FlopCount() / best->result.mean_s / 1e9;
    std::printf("%s\n  workload %s  device %s  record %lld\n  %.4f ms  %.1f GFLOP/s  (%zu repeats)\n"
                "  %s\n",
                name.c_str(), key.c_str(), device.c_str(), static_cast<long long>(best->id),
                best->result.mean_s * 1e3, gflops, best->result.repeat_costs_s.size(),
                best->steps.c_str());
    if (show_program) {
      auto shared = std::make_shared<const ComputeDag>(*std::move(dag));
      auto steps = ParseSteps(best->steps);
      if (!steps.ok()) return Fail(steps.status());
      auto state = State::Replay(shared, *steps);
      if (!state.ok()) return Fail(state.status());
      auto profile = (*store)->GetDevice(device);
      if (!profile.ok()) return Fail(profile.status());
      auto program = Lower(*state, *profile);
      if (!program.ok()) return Fail(program.status());
      std::printf("%s\n", program->ToString().c_str());
    }
  }
  return missing == static_cast<int>(wanted.size()) ? 1 : 0;
}

int RunRecords(const std::string& db, const std::string& workload_key, int64_t limit) {
  auto store = RecordsStore::Open(db);
  if (!store.ok()) return Fail(store.status());
  auto records = (*store)->ListRecords(workload_key, "", limit);
  if (!records.ok()) return Fail(records.status());
  for (const StoredRecord& r : *records) {
    if (r.result.ok()) {
      std::printf("%6lld  %-28s  %10.4f ms  %s\n", static_cast<long long>(r.id),
                  r.device_key.c_str(), r.result.mean_s * 1e3, r.steps.c_str());
    } else {
      std::printf("%6lld  %-28s  %s\n", static_cast<long long>(r.id), r.device_key.c_str(),
                  r.result.Describe().substr(0, 200).c_str());
    }
  }
  std::printf("%zu records\n", records->size());
  return 0;
}

int RunJobs(const std::string& db) {
  auto store = RecordsStore::Open(db);
  if (!store.ok()) return Fail(store.status());
  auto jobs = (*store)->ListJobs();
  if (!jobs.ok()) return Fail(jobs.status());
  for (const StoredJob& j : *jobs) {
    auto records = (*store)->JobRecords(j.id);
    std::printf("%4lld  %-8s  %-14s %-12s  %zu tasks  %lld/%lld trials  %s  %s\n",
                static_cast<long long>(j.id), JobStatusName(j.status), j.strategy.c_str(),
                j.scheduler.c_str(), j.tasks.size(),
                static_cast<long long>(records.ok() ? records->size() : 0),
                static_cast<long long>(j.trial_budget), j.device_key.c_str(), j.name.c_str());
  }
  return 0;
}

int RunExport(const std::string& db, const std::string& path, const std::string& workload_key) {
  auto store = RecordsStore::Open(db);
  if (!store.ok()) return Fail(store.status());
  if (absl::Status s = (*store)->ExportJsonLines(path, workload_key); !s.ok()) return Fail(s);
  std::printf("exported to %s\n", path.c_str());
  return 0;
}

int RunImport(const std::string& db, const std::string& path) {
  auto store = RecordsStore::Open(db);
  if (!store.ok()) return Fail(store.status());
  auto added = (*store)->ImportJsonLines(path);
  if (!added.ok()) return Fail(added.status());
  std::printf("imported %lld records\n", static_cast<long long>(*added));
  return 0;
}

}  // namespace pruner
