#include "client/dataset_commands.h"

#include <atomic>
#include <chrono>
#include <cstdio>
#include <iostream>

#include "client/command_exit.h"
#include "absl/strings/str_cat.h"
#include "common/device/device_profile.h"
#include "common/measure/local_measurer.h"
#include "common/store/records_store.h"
#include "common/tune/dataset_shards.h"
#include "common/tune/dataset_stats.h"

namespace pruner {
int RunDatasetCollect(const DatasetCollectCommand& c) {
  auto device = GetDeviceProfile(c.device);
  if (!device.ok()) return FailCommand(device.status());
  if (device->IsGpu()) {
    return FailCommand(absl::InvalidArgumentError(absl::StrCat(
        "device ", device->name,
        ": in-process collection measures on the local CPU only (collect GPU records through "
        "the service: bench/gpu/records.sh)")));
  }
  auto store = RecordsStore::Open(c.db);
  if (!store.ok()) return FailCommand(store.status());
  const DeviceProfile local = WithStableCpuKey(*device);
  std::unique_ptr<Measurer> measurer = MakeLocalMeasurer(c.options.measure);
  const std::atomic<bool>* stop = StopOnSignals();
  std::printf("dataset on %s into %s: %d random schedules per task\n", local.name.c_str(),
              c.db.c_str(), c.options.per_task);
  const auto start = std::chrono::steady_clock::now();
  int64_t measured = 0;
  DatasetCollectCallbacks callbacks;
  callbacks.on_network = [](const DatasetNetworkReport& r) {
    if (r.job_id == 0) {
      std::printf("%-32s %2d tasks, all collected under earlier networks\n", r.spec.c_str(),
                  r.tasks);
    } else if (r.skipped) {
      std::printf("%-32s job %lld done (%lld trials)\n", r.spec.c_str(),
                  static_cast<long long>(r.job_id), static_cast<long long>(r.trials));
    } else {
      std::printf("%-32s job %lld: %d of %d tasks new, %lld/%lld trials\n", r.spec.c_str(),
                  static_cast<long long>(r.job_id), r.new_tasks, r.tasks,
                  static_cast<long long>(r.trials), static_cast<long long>(r.trial_budget));
    }
    std::fflush(stdout);
  };
  callbacks.on_round = [&](const DatasetNetworkReport& n, const RoundReport& r) {
    measured += r.measured;
    const double s =
        std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
    std::printf("  %-30s %lld/%lld  %-40s %2d/%2d ok  %.1f records/s\n", n.spec.c_str(),
                static_cast<long long>(r.trials), static_cast<long long>(r.trial_budget),
                r.task >= 0 && r.task < static_cast<int>(r.tasks.size())
                    ? r.tasks[r.task].name.substr(0, 40).c_str()
                    : "",
                r.ok, r.measured, s > 0 ? measured / s : 0.0);
    std::fflush(stdout);
  };
  auto reports = CollectDataset(store->get(), measurer.get(), local, c.options, callbacks, stop);
  if (!reports.ok()) return FailCommand(reports.status());
  if (stop->load()) {
    std::printf("stopped: run the same command again to continue\n");
    return 0;
  }
  std::printf("collected: %lld records this run; `pruner dataset stats --db %s`\n",
              static_cast<long long>(measured), c.db.c_str());
  return 0;
}

int RunDatasetRemeasure(const DatasetRemeasureCommand& c) {
  auto device = GetDeviceProfile(c.device);
  if (!device.ok()) return FailCommand(device.status());
  if (device->IsGpu()) {
    return FailCommand(absl::InvalidArgumentError(
        absl::StrCat("device ", device->name, ": records are re-measured on the local CPU only")));
  }
  auto store = RecordsStore::Open(c.db);
  if (!store.ok()) return FailCommand(store.status());
  const DeviceProfile local = WithStableCpuKey(*device);
  const std::atomic<bool>* stop = StopOnSignals();
  if (c.options.workloads.empty()) {
    std::printf("re-measuring %s's records measured with more than %.2g busy cores, in %s\n",
                local.name.c_str(), c.options.busy_threshold, c.db.c_str());
  } else if (c.options.fastest > 0) {
    std::printf("re-measuring the %d fastest schedules of %zu named workloads of %s, %d "
                "pass(es), in %s\n",
                c.options.fastest, c.options.workloads.size(), local.name.c_str(),
                c.options.passes, c.db.c_str());
  } else {
    std::printf("re-measuring %zu named workloads of %s whole, busy or not, %d pass(es), in %s\n",
                c.options.workloads.size(), local.name.c_str(), c.options.passes, c.db.c_str());
  }
  std::fflush(stdout);
  const auto start = std::chrono::steady_clock::now();
  auto on_workload = [&](const DatasetRemeasureWorkload& w) {
    const double s =
        std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
    std::printf("  %-44s %3d busy of %3d: %3d of %3d measured again, %3d quiet  %.0f s\n",
                w.name.substr(0, 44).c_str(), w.busy, w.busy + w.quiet_before, w.measured,
                w.schedules * c.options.passes, w.quiet, s);
    std::fflush(stdout);
  };
  auto report = RemeasureBusyRecords(store->get(), &MakeLocalMeasurer, local, c.options,
                                     on_workload, stop);
  if (!report.ok()) return FailCommand(report.status());
  std::printf("%d workloads with %lld busy schedules: %lld of %lld measurements (%lld schedules "
              "x %d passes) made, %lld of them quiet",
              report->workloads, static_cast<long long>(report->busy),
              static_cast<long long>(report->measured), static_cast<long long>(report->planned),
              static_cast<long long>(report->schedules), c.options.passes,
              static_cast<long long>(report->quiet));
  if (report->unfinished_jobs > 0) {
    std::printf("; %lld unfinished dataset jobs left alone (finish them with `pruner dataset "
                "collect`)", static_cast<long long>(report->unfinished_jobs));
  }
  std::printf("\n");
  if (report->stopped) std::printf("stopped: run the same command again to continue\n");
  return 0;
}

int RunDatasetStats(const std::string& db, const std::string& device_key, double busy_threshold) {
  auto store = RecordsStore::Open(db);
  if (!store.ok()) return FailCommand(store.status());
  auto stats = ComputeDatasetStats(**store, device_key, busy_threshold);
  if (!stats.ok()) return FailCommand(stats.status());
  for (const DatasetDeviceStats& s : *stats) {
    std::printf("%s\n", s.device_key.c_str());
    std::printf("  networks   %d (%d done)\n", s.networks, s.networks_done);
    std::printf("  schedules  %lld of %lld planned: %lld ok", static_cast<long long>(s.trials),
                static_cast<long long>(s.trial_budget), static_cast<long long>(s.ok_records));
    for (const auto& [error, n] : s.errors) std::printf(", %lld %s", static_cast<long long>(n), error.c_str());
    if (s.remeasured > 0) {
      std::printf("; %lld re-measurements", static_cast<long long>(s.remeasured));
    }
    std::printf("\n  workloads  %d with an ok record\n", s.workloads);
    std::printf("  host       %lld ok schedules quiet (< %.2g busy cores), %lld busy, %lld not sampled\n",
                static_cast<long long>(s.quiet_records), busy_threshold,
                static_cast<long long>(s.busy_records),
                static_cast<long long>(s.unsampled_records));
    std::printf("  %-14s %9s %12s\n", "family", "workloads", "ok schedules");
    for (const auto& [family, f] : s.families) {
      std::printf("  %-14s %9d %12lld\n", family.c_str(), f.workloads,
                  static_cast<long long>(f.ok_records));
    }
  }
  return 0;
}

int RunDatasetExport(const std::string& db, const std::string& dir, const std::string& device_key) {
  auto store = RecordsStore::Open(db);
  if (!store.ok()) return FailCommand(store.status());
  auto reports = ExportDatasetShards(**store, dir, device_key);
  if (!reports.ok()) return FailCommand(reports.status());
  for (const DatasetShardReport& r : *reports) {
    std::printf("%s: %d networks, %lld records -> %s\n", r.device_key.c_str(), r.jobs,
                static_cast<long long>(r.records), r.records_path.c_str());
  }
  return 0;
}

int RunDatasetImport(const std::string& db, const std::string& dir) {
  auto store = RecordsStore::Open(db);
  if (!store.ok()) return FailCommand(store.status());
  auto reports = ImportDatasetShards(store->get(), dir);
  if (!reports.ok()) return FailCommand(reports.status());
  for (const DatasetShardReport& r : *reports) {
    std::printf("%s: %lld new records, %d networks added (from %s)\n", r.device_key.c_str(),
                static_cast<long long>(r.records), r.jobs, r.records_path.c_str());
  }
  return 0;
}

}  // namespace pruner
