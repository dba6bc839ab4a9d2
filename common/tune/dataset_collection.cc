#include "common/tune/dataset_collection.h"

#include <map>
#include <set>
#include <utility>

#include "absl/strings/match.h"
#include "absl/strings/str_cat.h"
#include "common/base/status_macros.h"
#include "common/graph/networks.h"
#include "common/tune/job_tasks.h"

namespace pruner {
namespace {

bool IsCnn(const std::string& name) {
  return !absl::StartsWith(name, "bert-");
}

// The dataset jobs already in the store for this device, by name.
absl::StatusOr<std::map<std::string, StoredJob>> DatasetJobs(const RecordsStore& store,
                                                            const std::string& device_key) {
  PRUNER_ASSIGN_OR_RETURN(std::vector<StoredJob> jobs, store.ListJobs());
  std::map<std::string, StoredJob> by_name;
  for (StoredJob& job : jobs) {
    if (job.device_key != device_key || !absl::StartsWith(job.name, kDatasetJobPrefix)) continue;
    by_name.emplace(job.name, std::move(job));  // the first of a name wins
  }
  return by_name;
}

}  // namespace

std::vector<std::string> DefaultDatasetNetworks() {
  // Every network at its defaults first, so that an early stop still spans
  // them all; then the variants, one kind at a time.
  std::vector<std::string> specs = KnownNetworks();
  for (const char* cnn_variant : {":batch=4,image=112", ":image=160", ":image=96"}) {
    for (const std::string& name : KnownNetworks()) {
      if (IsCnn(name)) specs.push_back(name + cnn_variant);
    }
  }
  for (const char* bert_variant : {":seq=64", ":seq=256", ":batch=4", ":seq=32"}) {
    for (const std::string& name : KnownNetworks()) {
      if (!IsCnn(name)) specs.push_back(name + bert_variant);
    }
  }
  return specs;
}

absl::StatusOr<std::vector<DatasetNetworkReport>> CollectDataset(
    RecordsStore* store, Measurer* measurer, const DeviceProfile& device,
    const DatasetCollectOptions& options, const DatasetCollectCallbacks& callbacks,
    const std::atomic<bool>* stop) {
  if (options.per_task < 1 || options.per_round < 1) {
    return absl::InvalidArgumentError("dataset: per-task and per-round must be at least 1");
  }
  // Every spec is checked before anything is measured.
  std::vector<std::string> specs;
  for (const std::string& spec :
       options.networks.empty() ? DefaultDatasetNetworks() : options.networks) {
    PRUNER_ASSIGN_OR_RETURN(std::string canonical, CanonicalNetworkSpec(spec));
    specs.push_back(std::move(canonical));
  }
  std::vector<DatasetNetworkReport> reports;
  for (size_t i = 0; i < specs.size(); ++i) {
    if (stop != nullptr && stop->load()) break;
    DatasetNetworkReport report;
    report.spec = specs[i];
    const std::string job_name = kDatasetJobPrefix + specs[i];
    PRUNER_ASSIGN_OR_RETURN(auto existing, DatasetJobs(*store, device.name));
    PRUNER_ASSIGN_OR_RETURN(std::vector<SearchTask> tasks, BuildJobTasks({}, specs[i]));
    report.tasks = static_cast<int>(tasks.size());

    std::unique_ptr<TuningJob> job;
    auto found = existing.find(job_name);
    if (found != existing.end()) {
      const StoredJob& stored = found->second;
      report.job_id = stored.id;
      report.new_tasks = static_cast<int>(stored.tasks.size());
      report.trial_budget = stored.trial_budget;
      if (stored.status == JobStatus::kDone) {
        report.skipped = true;
        report.trials = stored.trial_budget;
        if (callbacks.on_network) callbacks.on_network(report);
        reports.push_back(report);
        continue;
      }
      PRUNER_ASSIGN_OR_RETURN(job, TuningJob::Resume(store, measurer, stored.id));
    } else {
      std::set<std::string> listed;
      for (const auto& [name, other] : existing) {
        for (const StoredTask& t : other.tasks) listed.insert(t.workload_key);
      }
      std::vector<SearchTask> fresh;
      for (SearchTask& t : tasks) {
        if (!listed.count(t.workload_key)) fresh.push_back(std::move(t));
      }
      report.new_tasks = static_cast<int>(fresh.size());
      if (fresh.empty()) {
        if (callbacks.on_network) callbacks.on_network(report);
        reports.push_back(report);
        continue;
      }
      TuningOptions tuning;
      tuning.name = job_name;
      tuning.strategy = "random";
      tuning.scheduler = "round-robin";
      tuning.trial_budget = int64_t{options.per_task} * static_cast<int64_t>(fresh.size());
      tuning.measures_per_round = options.per_round;
      tuning.seed = options.seed + i;
      tuning.verify_bests = false;  // a dataset wants trials, not re-measured bests
      tuning.measure = options.measure;
      PRUNER_ASSIGN_OR_RETURN(job,
                              TuningJob::Create(store, measurer, std::move(fresh), device, tuning));
      report.job_id = job->id();
      report.trial_budget = tuning.trial_budget;
    }
    report.trials = job->trials();
    if (callbacks.on_network) callbacks.on_network(report);
    RunLimits limits;
    limits.stop = stop;
    PRUNER_RETURN_IF_ERROR(job->Run(
        [&](const RoundReport& round) {
          report.trials = round.trials;
          if (callbacks.on_round) callbacks.on_round(report, round);
        },
        limits));
    report.trials = job->trials();
    reports.push_back(report);
  }
  return reports;
}

}  // namespace pruner
