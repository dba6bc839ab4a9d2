#include "common/tune/dataset_stats.h"

#include <map>
#include <set>
#include <utility>

#include "absl/strings/match.h"
#include "absl/strings/str_cat.h"
#include "common/base/status_macros.h"
#include "common/tune/dataset_collection.h"

namespace pruner {

std::string OperatorFamily(const std::string& task_name) {
  // Longest prefixes first: "depthwise_conv2d" before "conv2d".
  static const std::pair<const char*, const char*> kPrefixes[] = {
      {"depthwise_conv2d", "depthwise"}, {"group_conv2d", "conv2d"},  // ResNeXt's 3x3
      {"conv2d", "conv2d"},
      {"batch_matmul", "batch-matmul"},  {"dense", "dense"},
      {"matmul", "dense"},               {"global_avg_pool", "pooling"},
      {"avg_pool", "pooling"},           {"max_pool", "pooling"},
      {"softmax", "softmax"},            {"layer_norm", "layer-norm"}};
  for (const auto& [prefix, family] : kPrefixes) {
    if (absl::StartsWith(task_name, prefix)) return family;
  }
  return "other";
}

absl::StatusOr<std::vector<DatasetDeviceStats>> ComputeDatasetStats(const RecordsStore& store,
                                                                    const std::string& device_key,
                                                                    double busy_threshold) {
  PRUNER_ASSIGN_OR_RETURN(std::vector<StoredJob> jobs, store.ListJobs());
  std::map<std::string, DatasetDeviceStats> by_device;
  std::map<std::string, std::set<std::string>> ok_workloads;  // device -> keys
  std::map<std::string, std::map<std::string, std::set<std::string>>> family_workloads;
  for (const StoredJob& job : jobs) {
    if (!absl::StartsWith(job.name, kDatasetJobPrefix)) continue;
    if (!device_key.empty() && job.device_key != device_key) continue;
    DatasetDeviceStats& s = by_device[job.device_key];
    s.device_key = job.device_key;
    ++s.networks;
    s.networks_done += job.status == JobStatus::kDone;
    s.trial_budget += job.trial_budget;
    PRUNER_ASSIGN_OR_RETURN(std::vector<StoredRecord> records, store.JobRecords(job.id));
    // A schedule measured again (`pruner dataset remeasure`) counts once:
    // ok when any of its records is, quiet when any ok one is.
    std::map<std::pair<std::string, std::string>, std::vector<const StoredRecord*>> schedules;
    for (const StoredRecord& r : records) schedules[{r.workload_key, r.steps}].push_back(&r);
    s.trials += static_cast<int64_t>(schedules.size());
    s.remeasured += static_cast<int64_t>(records.size() - schedules.size());
    for (const auto& [key, measurements] : schedules) {
      const StoredRecord* ok = nullptr;
      bool quiet = false, busy = false;
      for (const StoredRecord* r : measurements) {
        if (!r->result.ok()) continue;
        if (ok == nullptr) ok = r;
        const double cores = r->result.host_busy_cores;
        if (cores >= 0) (cores < busy_threshold ? quiet : busy) = true;
      }
      if (ok == nullptr) {
        ++s.errors[std::string(MeasureErrorName(measurements.front()->result.error))];
        continue;
      }
      ++s.ok_records;
      (quiet ? s.quiet_records : busy ? s.busy_records : s.unsampled_records)++;
      const std::string family =
          ok->task_index >= 0 && ok->task_index < static_cast<int>(job.tasks.size())
              ? OperatorFamily(job.tasks[ok->task_index].name)
              : "other";
      ++s.families[family].ok_records;
      ok_workloads[job.device_key].insert(ok->workload_key);
      family_workloads[job.device_key][family].insert(ok->workload_key);
    }
  }
  if (by_device.empty()) {
    return absl::NotFoundError(absl::StrCat("no dataset jobs", device_key.empty() ? "" : " on ",
                                            device_key, " in ", store.path()));
  }
  std::vector<DatasetDeviceStats> out;
  for (auto& [device, s] : by_device) {
    s.workloads = static_cast<int>(ok_workloads[device].size());
    for (auto& [family, keys] : family_workloads[device]) {
      s.families[family].workloads = static_cast<int>(keys.size());
    }
    out.push_back(std::move(s));
  }
  return out;
}

}  // namespace pruner
