#include "server/job_info.h"

#include <map>

#include "common/base/status_macros.h"
#include "proto/wire_convert.h"

namespace pruner {
namespace {

void FillSpec(const StoredJob& job, v1::JobInfo* info) {
  v1::JobSpec* spec = info->mutable_spec();
  spec->set_name(job.name);
  spec->set_target(job.device_key);
  spec->set_strategy(job.strategy);
  spec->set_scheduler(job.scheduler);
  spec->set_trial_budget(job.trial_budget);
  spec->set_measures_per_round(job.measures_per_round);
  auto options = TuningOptionsFromJson(job.options_json);
  if (options.ok()) {
    spec->set_seed(options->seed);
    spec->set_early_stopping(options->early_stopping);
    spec->set_overlap_search(options->overlap_search);
    spec->set_pretrained_device(options->pretrained_device);
    spec->set_verify_bests(options->verify_bests);
    spec->set_seed_schedules(options->seed_schedules);
    spec->set_verify_tolerance(options->verify_tolerance);
    *spec->mutable_measure() = MeasureOptionsToWire(options->measure);
  }
}

}  // namespace

absl::StatusOr<v1::JobInfo> JobInfoFromStore(const RecordsStore& store, int64_t job_id) {
  PRUNER_ASSIGN_OR_RETURN(auto job, store.GetJob(job_id));
  PRUNER_ASSIGN_OR_RETURN(auto records, store.JobRecords(job_id));
  PRUNER_ASSIGN_OR_RETURN(auto curve, store.GetCurve(job_id));

  v1::JobInfo info;
  info.set_id(job.id);
  info.set_name(job.name);
  info.set_status(JobStatusName(job.status));
  info.set_target(job.device_key);
  info.set_strategy(job.strategy);
  info.set_trial_budget(job.trial_budget);
  info.set_created_unix_ms(job.created_unix_ms);
  FillSpec(job, &info);
  for (const StoredTask& t : job.tasks) {
    v1::TaskInfo* task = info.add_tasks();
    task->set_index(t.index);
    task->set_name(t.name);
    task->set_workload_key(t.workload_key);
    task->set_weight(t.weight);
    auto dag = store.GetWorkload(t.workload_key);
    if (dag.ok()) task->set_flops(dag->FlopCount());
  }
  auto& errors = *info.mutable_error_counts();
  for (const StoredRecord& r : records) {
    info.set_trials(info.trials() + 1);
    if (r.task_index < 0 || r.task_index >= info.tasks_size()) continue;
    v1::TaskInfo* task = info.mutable_tasks(r.task_index);
    task->set_trials(task->trials() + 1);
    if (r.result.ok()) {
      task->set_ok_trials(task->ok_trials() + 1);
      if (EligibleAsBest(r) &&
          (task->best_cost_s() <= 0 || TrustedCost(r) < task->best_cost_s())) {
        task->set_best_cost_s(TrustedCost(r));
      }
    } else {
      task->set_errors(task->errors() + 1);
      ++errors[std::string(MeasureErrorName(r.result.error))];
    }
  }
  const int per_round = std::max(1, job.measures_per_round);
  double estimate = 0;
  for (v1::TaskInfo& task : *info.mutable_tasks()) {
    task.set_rounds(static_cast<int>((task.trials() + per_round - 1) / per_round));
    if (task.best_cost_s() > 0) estimate += task.weight() * task.best_cost_s();
  }
  info.set_estimated_latency_s(estimate);
  if (!curve.empty()) info.set_elapsed_s(curve.back().wall_s);
  return info;
}

absl::StatusOr<v1::ListJobsReply> ListJobsFromStore(const RecordsStore& store) {
  PRUNER_ASSIGN_OR_RETURN(auto jobs, store.ListJobs());
  v1::ListJobsReply reply;
  for (const StoredJob& job : jobs) {
    PRUNER_ASSIGN_OR_RETURN(v1::JobInfo info, JobInfoFromStore(store, job.id));
    info.clear_tasks();  // the list is a summary; GetJob has the tasks
    *reply.add_jobs() = std::move(info);
  }
  return reply;
}

void ApplyRoundReport(const RoundReport& report, v1::JobInfo* info) {
  info->set_trials(report.trials);
  info->set_trial_budget(report.trial_budget);
  info->set_elapsed_s(report.elapsed_s);
  info->set_eta_s(report.eta_s);
  info->set_estimated_latency_s(report.estimated_latency_s);
  for (size_t i = 0; i < report.tasks.size() && static_cast<int>(i) < info->tasks_size(); ++i) {
    const TaskStatus& t = report.tasks[i];
    v1::TaskInfo* task = info->mutable_tasks(static_cast<int>(i));
    task->set_rounds(t.rounds);
    task->set_trials(t.trials);
    task->set_ok_trials(t.ok_trials);
    task->set_errors(t.trials - t.ok_trials);
    task->set_best_cost_s(t.best_cost_s);
    task->set_flops(t.flops);
  }
}

namespace {

// "run timeout" of "run timeout [run]: killed after 10s".
std::string ErrorClassOf(const std::string& line) {
  const size_t bracket = line.find(" [");
  return bracket == std::string::npos ? line.substr(0, line.find(':')) : line.substr(0, bracket);
}

}  // namespace

v1::ProgressEvent ProgressEventFromRound(const RoundReport& report, v1::JobInfo* info) {
  ApplyRoundReport(report, info);
  auto& counts = *info->mutable_error_counts();
  for (const std::string& e : report.errors) ++counts[ErrorClassOf(e)];
  v1::ProgressEvent event;
  *event.mutable_job() = *info;
  event.set_round(report.round);
  event.set_task(report.task);
  event.set_measured(report.measured);
  event.set_ok(report.ok);
  for (size_t i = 0; i < report.errors.size() && i < 5; ++i) event.add_errors(report.errors[i]);
  event.set_verification(report.verification);
  v1::RoundTime* t = event.mutable_time();
  t->set_search_s(report.time.search_s);
  t->set_train_s(report.time.train_s);
  t->set_measure_s(report.time.measure_s);
  t->set_build_s(report.time.build_s);
  t->set_run_s(report.time.run_s);
  t->set_db_s(report.time.db_s);
  return event;
}

absl::StatusOr<v1::BestRecordsReply> BestRecordsOfJob(const RecordsStore& store, int64_t job_id) {
  PRUNER_ASSIGN_OR_RETURN(auto job, store.GetJob(job_id));
  PRUNER_ASSIGN_OR_RETURN(auto records, store.JobRecords(job_id));
  std::map<int, const StoredRecord*> best;
  for (const StoredRecord& r : records) {
    if (!EligibleAsBest(r) || r.task_index < 0) continue;
    auto it = best.find(r.task_index);
    if (it == best.end() || BetterBest(r, *it->second)) best[r.task_index] = &r;
  }
  v1::BestRecordsReply reply;
  reply.set_job_id(job_id);
  reply.set_target(job.device_key);
  double estimate = 0;
  for (const auto& [index, record] : best) {
    if (index >= static_cast<int>(job.tasks.size())) continue;
    const StoredTask& task = job.tasks[index];
    PRUNER_ASSIGN_OR_RETURN(auto dag, store.GetWorkload(task.workload_key));
    v1::BestRecord* out = reply.add_records();
    out->set_task_index(index);
    out->set_task_name(task.name);
    *out->mutable_workload() = WorkloadToWire(dag, task.name);
    out->set_sentence(record->steps);
    *out->mutable_result() = MeasureResultToWire(record->result);
    out->mutable_result()->set_measured_by(record->measured_by);
    out->mutable_result()->set_measured_at_unix_ms(record->measured_at_unix_ms);
    out->set_gflops(dag.FlopCount() / TrustedCost(*record) / 1e9);
    out->set_weight(task.weight);
    out->set_verdict(VerdictName(record->verdict));
    if (record->check_record_id != 0) {
      PRUNER_ASSIGN_OR_RETURN(StoredRecord check, store.GetRecord(record->check_record_id));
      out->set_verified_by(check.measured_by);
      out->set_check_mean_s(check.result.mean_s);
    }
    estimate += task.weight * TrustedCost(*record);
  }
  reply.set_estimated_latency_s(estimate);
  return reply;
}

}  // namespace pruner
