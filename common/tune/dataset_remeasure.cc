#include "common/tune/dataset_remeasure.h"

#include <algorithm>
#include <map>
#include <memory>
#include <utility>
#include <vector>

#include "absl/strings/match.h"
#include "absl/strings/str_cat.h"
#include "common/base/status_macros.h"
#include "common/schedule/step.h"
#include "common/tune/dataset_collection.h"
#include "common/tune/tuning_options.h"

namespace pruner {
namespace {

// A schedule to measure again and the record it repeats.
struct PlannedSchedule {
  std::string steps;
  int64_t job_id = 0;
  int task_index = -1;
  bool settled = false;  // some record of it at or under the threshold
  int64_t latest_quiet_id = 0;  // its latest quiet ok record (0: none)
  double latest_quiet_s = 0;    // that record's mean
};

struct WorkloadPlan {
  std::string key;
  std::string name;
  int quiet = 0;  // schedules with a record at or under the threshold
  int busy = 0;   // schedules with busy records only
  std::vector<PlannedSchedule> schedules;  // all of the workload's: settled first
};

bool IsBusy(const StoredRecord& r, double threshold) {
  return r.result.host_busy_cores > threshold;
}

// Every workload of the finished jobs that has a busy schedule, with all of
// its schedules.
absl::StatusOr<std::vector<WorkloadPlan>> PlanWorkloads(const RecordsStore& store,
                                                        const std::vector<StoredJob>& jobs,
                                                        double threshold,
                                                        const std::vector<std::string>& only,
                                                        int fastest) {
  std::map<std::string, WorkloadPlan> plans;
  // Per workload: steps -> index in the plan's schedules.
  std::map<std::string, std::map<std::string, size_t>> index_of;
  for (const StoredJob& job : jobs) {
    PRUNER_ASSIGN_OR_RETURN(std::vector<StoredRecord> records, store.JobRecords(job.id));
    for (const StoredRecord& r : records) {
      WorkloadPlan& plan = plans[r.workload_key];
      if (plan.key.empty()) {
        plan.key = r.workload_key;
        plan.name = r.task_index >= 0 && r.task_index < static_cast<int>(job.tasks.size())
                        ? job.tasks[r.task_index].name
                        : r.workload_key;
      }
      auto [it, added] = index_of[r.workload_key].emplace(r.steps, plan.schedules.size());
      if (added) plan.schedules.push_back({r.steps, r.job_id, r.task_index});
      PlannedSchedule& p = plan.schedules[it->second];
      p.settled |= !IsBusy(r, threshold);
      if (!IsBusy(r, threshold) && r.result.ok() && r.result.mean_s > 0 &&
          r.id > p.latest_quiet_id) {
        p.latest_quiet_id = r.id;
        p.latest_quiet_s = r.result.mean_s;
      }
    }
  }
  std::vector<WorkloadPlan> out;
  for (auto& [key, plan] : plans) {
    if (fastest > 0) {
      std::erase_if(plan.schedules,
                    [](const PlannedSchedule& p) { return p.latest_quiet_id == 0; });
      std::stable_sort(plan.schedules.begin(), plan.schedules.end(),
                       [](const PlannedSchedule& a, const PlannedSchedule& b) {
                         return a.latest_quiet_s < b.latest_quiet_s;
                       });
      if (static_cast<int>(plan.schedules.size()) > fastest) plan.schedules.resize(fastest);
    }
    // Busy schedules last: a run stopped inside the workload leaves one of
    // them busy, so the next run measures the workload whole again.
    const auto first_busy =
        std::stable_partition(plan.schedules.begin(), plan.schedules.end(),
                              [](const PlannedSchedule& p) { return p.settled; });
    plan.quiet = static_cast<int>(first_busy - plan.schedules.begin());
    plan.busy = static_cast<int>(plan.schedules.end() - first_busy);
    const bool named = std::find(only.begin(), only.end(), plan.name) != only.end() ||
                       std::find(only.begin(), only.end(), plan.key) != only.end();
    if (only.empty() ? plan.busy > 0 : named) out.push_back(std::move(plan));
  }
  for (const std::string& name : only) {
    if (std::none_of(out.begin(), out.end(), [&](const WorkloadPlan& p) {
          return p.name == name || p.key == name;
        })) {
      return absl::NotFoundError(
          absl::StrCat("dataset remeasure: no workload '", name, "' in the finished dataset jobs"));
    }
  }
  // The workloads the metrics can use least come first.
  std::stable_sort(out.begin(), out.end(), [](const WorkloadPlan& a, const WorkloadPlan& b) {
    return a.quiet < b.quiet;
  });
  return out;
}

}  // namespace

absl::StatusOr<DatasetRemeasureReport> RemeasureBusyRecords(
    RecordsStore* store, const MeasurerFactory& make_measurer, const DeviceProfile& device,
    const DatasetRemeasureOptions& options,
    const std::function<void(const DatasetRemeasureWorkload&)>& on_workload,
    const std::atomic<bool>* stop) {
  if (!(options.busy_threshold >= 0) || options.batch < 1 || options.fastest < 0 ||
      options.passes < 1) {
    return absl::InvalidArgumentError(
        "dataset remeasure: the busy threshold and the fastest count must be >= 0, the batch "
        "and the passes at least 1");
  }
  if (options.fastest > 0 && options.workloads.empty()) {
    // The busy plan measures whole workloads so one build times them all.
    return absl::InvalidArgumentError(
        "dataset remeasure: the fastest schedules are chosen only of named workloads");
  }
  PRUNER_ASSIGN_OR_RETURN(std::vector<StoredJob> all_jobs, store->ListJobs());
  DatasetRemeasureReport report;
  std::vector<StoredJob> jobs;
  std::map<int64_t, MeasureOptions> measure_of_job;
  bool any = false;
  for (StoredJob& job : all_jobs) {
    if (job.device_key != device.name || !absl::StartsWith(job.name, kDatasetJobPrefix)) continue;
    any = true;
    if (job.status != JobStatus::kDone) {
      ++report.unfinished_jobs;
      continue;
    }
    PRUNER_ASSIGN_OR_RETURN(TuningOptions tuning, TuningOptionsFromJson(job.options_json));
    MeasureOptions m = tuning.measure;
    m.hopeless_factor = 0;  // dataset records get every repeat
    measure_of_job[job.id] = m;
    jobs.push_back(std::move(job));
  }
  if (!any) {
    return absl::NotFoundError(absl::StrCat("no dataset jobs on ", device.name, " in ",
                                            store->path(), " (records of another machine are "
                                            "re-measured on that machine)"));
  }
  PRUNER_ASSIGN_OR_RETURN(std::vector<WorkloadPlan> plans,
                          PlanWorkloads(*store, jobs, options.busy_threshold, options.workloads,
                                        options.fastest));
  report.workloads = static_cast<int>(plans.size());
  for (const WorkloadPlan& p : plans) {
    report.busy += p.busy;
    report.schedules += static_cast<int64_t>(p.schedules.size());
  }
  report.planned = report.schedules * options.passes;

  // One measurer per distinct set of options (usually one for the dataset).
  std::map<std::string, std::unique_ptr<Measurer>> measurers;
  auto measurer_for = [&](int64_t job_id) -> Measurer* {
    TuningOptions key;
    key.measure = measure_of_job.at(job_id);
    std::unique_ptr<Measurer>& m = measurers[TuningOptionsToJson(key)];
    if (m == nullptr) m = make_measurer(key.measure);
    return m.get();
  };

  for (const WorkloadPlan& plan : plans) {
    if (stop != nullptr && stop->load()) break;
    PRUNER_ASSIGN_OR_RETURN(ComputeDag dag, store->GetWorkload(plan.key));
    auto shared = std::make_shared<const ComputeDag>(std::move(dag));
    DatasetRemeasureWorkload progress{plan.name, plan.quiet, plan.busy,
                                      static_cast<int>(plan.schedules.size())};
    for (int pass = 0; pass < options.passes && !(stop != nullptr && stop->load()); ++pass) {
      // Batches share one job's options, so each goes to one measurer.
      size_t next = 0;
      while (next < plan.schedules.size() && !(stop != nullptr && stop->load())) {
        const int64_t job_id = plan.schedules[next].job_id;
        std::vector<const PlannedSchedule*> batch;
        std::vector<MeasureInput> inputs;
        while (next < plan.schedules.size() && static_cast<int>(batch.size()) < options.batch &&
               plan.schedules[next].job_id == job_id) {
          const PlannedSchedule& b = plan.schedules[next++];
          absl::StatusOr<std::vector<Step>> steps = ParseSteps(b.steps);
          if (!steps.ok()) {
            return absl::DataLossError(absl::StrCat("dataset remeasure: a stored schedule of ",
                                                    plan.name, " does not parse: ",
                                                    steps.status().message()));
          }
          batch.push_back(&b);
          inputs.push_back(MeasureInput{shared, *std::move(steps), device});
        }
        Measurer* measurer = measurer_for(job_id);
        PRUNER_ASSIGN_OR_RETURN(std::vector<MeasureResult> results, measurer->Measure(inputs));
        std::vector<StoredRecord> records;
        for (size_t i = 0; i < batch.size() && i < results.size(); ++i) {
          StoredRecord r;
          r.workload_key = plan.key;
          r.device_key = device.name;
          r.steps = batch[i]->steps;
          r.result = std::move(results[i]);
          r.measured_by = measurer->Name();
          r.job_id = batch[i]->job_id;
          r.task_index = batch[i]->task_index;
          ++progress.measured;
          progress.quiet += !IsBusy(r, options.busy_threshold);
          records.push_back(std::move(r));
        }
        PRUNER_RETURN_IF_ERROR(store->AddRecords(records).status());
      }
    }
    report.measured += progress.measured;
    report.quiet += progress.quiet;
    if (on_workload) on_workload(progress);
  }
  report.stopped = stop != nullptr && stop->load() && report.measured < report.planned;
  return report;
}

}  // namespace pruner
