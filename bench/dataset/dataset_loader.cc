#include "bench/dataset/dataset_loader.h"

#include <algorithm>
#include <map>
#include <set>
#include <utility>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "common/base/status_macros.h"
#include "nlohmann/json.hpp"

namespace pruner::dataset {
namespace {

constexpr char kNoJobGroup[] = "(no job)";

struct Selected {
  std::string key, name, group;
  double weight = 1;
};

std::string GroupName(const StoredJob& job) {
  return job.name.empty() ? absl::StrCat("job ", job.id) : job.name;
}

// Devices that have at least one record of any stored workload.
absl::StatusOr<std::vector<std::string>> DevicesWithRecords(const RecordsStore& store) {
  PRUNER_ASSIGN_OR_RETURN(auto devices, store.ListDeviceKeys());
  PRUNER_ASSIGN_OR_RETURN(auto workloads, store.ListWorkloadKeys());
  std::vector<std::string> out;
  for (const std::string& device : devices) {
    for (const std::string& w : workloads) {
      PRUNER_ASSIGN_OR_RETURN(auto one, store.ListRecords(w, device, 1));
      if (!one.empty()) {
        out.push_back(device);
        break;
      }
    }
  }
  return out;
}

absl::StatusOr<std::string> ResolveDevice(const RecordsStore& store, const DatasetQuery& query,
                                          const std::vector<StoredJob>& jobs) {
  if (!query.device_key.empty()) return query.device_key;
  if (!query.job_ids.empty()) return jobs.front().device_key;
  auto devices = DevicesWithRecords(store);
  if (!devices.ok()) return devices.status();
  if (devices->size() == 1) return devices->front();
  if (devices->empty()) return absl::NotFoundError("the database has no records");
  return absl::InvalidArgumentError(absl::StrCat(
      "records of several devices; pick one with --device: ", absl::StrJoin(*devices, ", ")));
}

// measure.num_threads of a job's stored TuningOptions; -1 when unreadable.
int KernelThreads(const StoredJob& job) {
  const nlohmann::json options = nlohmann::json::parse(job.options_json, nullptr, false);
  if (options.is_discarded() || !options.contains("measure")) return -1;
  const nlohmann::json& measure = options["measure"];
  if (!measure.contains("num_threads") || !measure["num_threads"].is_number_integer()) return -1;
  return measure["num_threads"].get<int>();
}

// One thread count shared by every job that contributed a workload, else 0.
int SharedKernelThreads(const std::vector<StoredJob>& jobs, const std::set<std::string>& groups,
                        bool any_without_job) {
  if (any_without_job) return 0;
  int shared = -2;  // none seen yet
  for (const StoredJob& job : jobs) {
    if (!groups.count(GroupName(job))) continue;
    const int t = KernelThreads(job);
    if (t < 0 || (shared != -2 && shared != t)) return 0;
    shared = t;
  }
  return shared < 0 ? 0 : shared;
}

}  // namespace

int64_t Dataset::NumSchedules() const {
  int64_t n = 0;
  for (const DatasetWorkload& w : workloads) n += static_cast<int64_t>(w.schedules.size());
  return n;
}

absl::StatusOr<Dataset> LoadDataset(const RecordsStore& store, const DatasetQuery& query) {
  std::vector<StoredJob> jobs;
  if (!query.job_ids.empty()) {
    for (int64_t id : query.job_ids) {
      PRUNER_ASSIGN_OR_RETURN(auto job, store.GetJob(id));
      jobs.push_back(std::move(job));
    }
    std::sort(jobs.begin(), jobs.end(),
              [](const StoredJob& a, const StoredJob& b) { return a.id < b.id; });
  }
  PRUNER_ASSIGN_OR_RETURN(auto device_key, ResolveDevice(store, query, jobs));
  for (const StoredJob& job : jobs) {
    if (job.device_key != device_key) {
      return absl::InvalidArgumentError(absl::StrCat("job ", job.id, " ran on ", job.device_key,
                                                     ", not on ", device_key));
    }
  }
  Dataset data;
  auto device = store.GetDevice(device_key);
  if (!device.ok()) return device.status();
  data.device = *std::move(device);

  const bool restrict_to_jobs = !query.job_ids.empty();
  if (!restrict_to_jobs) {
    PRUNER_ASSIGN_OR_RETURN(auto all, store.ListJobs());
    for (StoredJob& job : all) {
      if (job.device_key == device_key) jobs.push_back(std::move(job));
    }
  }
  std::vector<Selected> selected;
  std::map<std::string, size_t> index_of_key;
  for (const StoredJob& job : jobs) {
    for (const StoredTask& task : job.tasks) {
      if (index_of_key.count(task.workload_key)) continue;
      index_of_key[task.workload_key] = selected.size();
      selected.push_back({task.workload_key, task.name, GroupName(job), task.weight});
    }
  }
  if (!restrict_to_jobs) {
    PRUNER_ASSIGN_OR_RETURN(auto keys, store.ListWorkloadKeys());
    for (const std::string& key : keys) {
      if (index_of_key.count(key)) continue;
      index_of_key[key] = selected.size();
      selected.push_back({key, key.substr(0, 24), kNoJobGroup, 1.0});
    }
  }
  std::set<int64_t> job_ids(query.job_ids.begin(), query.job_ids.end());

  for (const Selected& s : selected) {
    PRUNER_ASSIGN_OR_RETURN(auto records, store.ListRecords(s.key, device_key));
    DatasetWorkload w;
    w.key = s.key;
    w.name = s.name;
    w.group = s.group;
    w.weight = s.weight;
    std::map<std::string, size_t> index_of_steps;
    std::map<size_t, std::vector<double>> pooled;  // schedule -> means since the query's time
    for (const StoredRecord& r : records) {
      if (restrict_to_jobs && !job_ids.count(r.job_id)) continue;
      if (!r.result.ok() || !(r.result.mean_s > 0)) {
        ++data.failed_records;
        continue;
      }
      if (query.max_host_busy_cores >= 0 && r.result.host_busy_cores > query.max_host_busy_cores) {
        ++data.busy_records;
        continue;
      }
      ++data.ok_records;
      auto [it, added] = index_of_steps.emplace(r.steps, w.schedules.size());
      if (query.median_since_unix_ms > 0 && r.measured_at_unix_ms >= query.median_since_unix_ms) {
        pooled[it->second].push_back(r.result.mean_s);
      }
      if (added) {
        w.schedules.push_back({r.steps, r.result.mean_s, 1});
        continue;
      }
      DatasetSchedule& seen = w.schedules[it->second];  // records come in id order
      seen.latency_s = r.result.mean_s;
      ++seen.measurements;
      ++data.merged_repeats;
    }
    for (auto& [index, means] : pooled) {
      std::sort(means.begin(), means.end());
      const size_t half = means.size() / 2;
      w.schedules[index].latency_s =
          means.size() % 2 == 1 ? means[half] : (means[half - 1] + means[half]) / 2;
      data.pooled_repeats += static_cast<int64_t>(means.size()) - 1;
    }
    if (w.schedules.empty()) {
      ++data.empty_workloads;
      continue;
    }
    auto dag = store.GetWorkload(s.key);
    if (!dag.ok()) return dag.status();
    w.dag = std::make_shared<const ComputeDag>(*std::move(dag));
    data.workloads.push_back(std::move(w));
  }
  std::set<std::string> groups;
  bool any_without_job = false;
  for (const DatasetWorkload& w : data.workloads) {
    groups.insert(w.group);
    any_without_job = any_without_job || w.group == kNoJobGroup;
  }
  data.kernel_threads = SharedKernelThreads(jobs, groups, any_without_job);
  return data;
}

}  // namespace pruner::dataset
