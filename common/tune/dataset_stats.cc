#include "common/tune/dataset_stats.h"

#include <set>

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
    s.trials += static_cast<int64_t>(records.size());
    for (const StoredRecord& r : records) {
      if (!r.result.ok()) {
        ++s.errors[std::string(MeasureErrorName(r.result.error))];
        continue;
      }
      ++s.ok_records;
      const double busy = r.result.host_busy_cores;
      (busy < 0 ? s.unsampled_records : busy < busy_threshold ? s.quiet_records : s.busy_records)++;
      const std::string family =
          r.task_index >= 0 && r.task_index < static_cast<int>(job.tasks.size())
              ? OperatorFamily(job.tasks[r.task_index].name)
              : "other";
      ++s.families[family].ok_records;
      ok_workloads[job.device_key].insert(r.workload_key);
      family_workloads[job.device_key][family].insert(r.workload_key);
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
