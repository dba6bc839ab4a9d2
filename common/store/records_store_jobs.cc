// RecordsStore: tuning jobs, their tasks and their tuning curves.
#include <map>
#include <utility>

#include "absl/strings/str_cat.h"
#include "common/base/status_macros.h"
#include "common/store/json_values.h"
#include "common/store/records_store.h"
#include "common/store/records_store_impl.h"
#include "common/base/clock.h"
#include "common/store/store_rows.h"

namespace pruner {

using store_internal::SqliteDb;
using store_internal::Statement;
using store_internal::Transaction;

namespace {

constexpr JobStatus kAllStatuses[] = {JobStatus::kPending, JobStatus::kRunning,
                                      JobStatus::kStopped, JobStatus::kDone, JobStatus::kFailed,
                                      JobStatus::kCancelled};

// Pure checks, before any lock is taken.
absl::Status ValidateJob(const StoredJob& job) {
  if (job.device_key.empty()) return absl::InvalidArgumentError("job: empty device_key");
  if (job.trial_budget < 0 || job.measures_per_round < 0) {
    return absl::InvalidArgumentError(absl::StrCat(
        "job '", job.name, "': trial_budget (", job.trial_budget, ") and measures_per_round (",
        job.measures_per_round, ") must be >= 0"));
  }
  if (absl::Status st = store_internal::CheckJsonOrEmpty(
          job.options_json, absl::StrCat("job '", job.name, "'"), "options_json");
      !st.ok()) {
    return st;
  }
  for (size_t i = 0; i < job.tasks.size(); ++i) {
    const StoredTask& task = job.tasks[i];
    const std::string where = absl::StrCat("job '", job.name, "' task ", i);
    if (task.index != static_cast<int>(i)) {
      return absl::InvalidArgumentError(
          absl::StrCat(where, ": index is ", task.index, "; tasks[i].index must be i"));
    }
    PRUNER_RETURN_IF_ERROR(store_internal::CheckFinite(task.weight, where, "weight"));
    if (task.weight < 0) {
      return absl::InvalidArgumentError(absl::StrCat(where, ": weight ", task.weight, " < 0"));
    }
  }
  return absl::OkStatus();
}

constexpr char kJobColumns[] =
    "id, name, device_key, strategy, scheduler, trial_budget, measures_per_round, options_json, "
    "status, created_unix_ms";

// Reads the jobs a SELECT of kJobColumns returns, then their tasks.
absl::StatusOr<std::vector<StoredJob>> ReadJobs(const SqliteDb& db, Statement& stmt) {
  std::vector<StoredJob> jobs;
  std::map<int64_t, size_t> position;  // job id -> index in jobs
  while (true) {
    PRUNER_ASSIGN_OR_RETURN(bool row, stmt.Step());
    if (!row) break;
    StoredJob job;
    job.id = stmt.Int(0);
    job.name = stmt.Text(1);
    job.device_key = stmt.Text(2);
    job.strategy = stmt.Text(3);
    job.scheduler = stmt.Text(4);
    job.trial_budget = stmt.Int(5);
    job.measures_per_round = static_cast<int>(stmt.Int(6));
    job.options_json = stmt.Text(7);
    const std::string status = stmt.Text(8);
    std::optional<JobStatus> parsed = ParseJobStatus(status);
    if (!parsed.has_value()) {
      return absl::DataLossError(
          absl::StrCat("job ", job.id, ": unknown status '", status, "'"));
    }
    job.status = *parsed;
    job.created_unix_ms = stmt.Int(9);
    position[job.id] = jobs.size();
    jobs.push_back(std::move(job));
  }
  if (jobs.empty()) return jobs;
  // One query for the tasks of every job read (ids are contiguous enough
  // that a range beats one query per job).
  PRUNER_ASSIGN_OR_RETURN(Statement tasks,
                          db.Prepare(
      "SELECT job_id, task_index, name, workload_key, weight FROM job_tasks "
      "WHERE job_id BETWEEN ?1 AND ?2 ORDER BY job_id, task_index"));
  tasks.BindInt(1, position.begin()->first).BindInt(2, position.rbegin()->first);
  while (true) {
    PRUNER_ASSIGN_OR_RETURN(bool row, tasks.Step());
    if (!row) break;
    auto it = position.find(tasks.Int(0));
    if (it == position.end()) continue;
    StoredTask task;
    task.index = static_cast<int>(tasks.Int(1));
    task.name = tasks.Text(2);
    task.workload_key = tasks.Text(3);
    task.weight = tasks.Double(4);
    jobs[it->second].tasks.push_back(std::move(task));
  }
  return jobs;
}

}  // namespace

const char* JobStatusName(JobStatus status) {
  switch (status) {
    case JobStatus::kPending: return "pending";
    case JobStatus::kRunning: return "running";
    case JobStatus::kStopped: return "stopped";
    case JobStatus::kDone: return "done";
    case JobStatus::kFailed: return "failed";
    case JobStatus::kCancelled: return "cancelled";
  }
  return "unknown";
}

std::optional<JobStatus> ParseJobStatus(std::string_view name) {
  for (JobStatus status : kAllStatuses) {
    if (name == JobStatusName(status)) return status;
  }
  return std::nullopt;
}

absl::StatusOr<int64_t> RecordsStore::CreateJob(const StoredJob& job) {
  PRUNER_RETURN_IF_ERROR(ValidateJob(job));
  const int64_t now = NowUnixMs();
  std::lock_guard<std::mutex> lock(impl_->mu);
  SqliteDb& db = *impl_->db;
  PRUNER_ASSIGN_OR_RETURN(Transaction txn, Transaction::Begin(&db, /*immediate=*/true));
  const std::string where = absl::StrCat("job '", job.name, "'");
  PRUNER_RETURN_IF_ERROR(store_internal::CheckDeviceExists(db, job.device_key, where));
  for (const StoredTask& task : job.tasks) {
    if (absl::Status st = store_internal::CheckWorkloadExists(
            db, task.workload_key, absl::StrCat(where, " task ", task.index));
        !st.ok()) {
      return st;
    }
  }
  PRUNER_ASSIGN_OR_RETURN(Statement put,
                          db.Prepare(
      "INSERT INTO jobs(name, device_key, strategy, scheduler, trial_budget, measures_per_round, "
      "options_json, status, created_unix_ms, updated_unix_ms) "
      "VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8, ?9, ?10)"));
  absl::Status st = put.BindText(1, job.name)
                        .BindText(2, job.device_key)
                        .BindText(3, job.strategy)
                        .BindText(4, job.scheduler)
                        .BindInt(5, job.trial_budget)
                        .BindInt(6, job.measures_per_round)
                        .BindText(7, job.options_json)
                        .BindText(8, JobStatusName(job.status))
                        .BindInt(9, job.created_unix_ms != 0 ? job.created_unix_ms : now)
                        .BindInt(10, now)
                        .Run();
  if (!st.ok()) return st;
  const int64_t id = db.LastInsertRowId();
  PRUNER_ASSIGN_OR_RETURN(Statement put_task,
                          db.Prepare(
      "INSERT INTO job_tasks(job_id, task_index, name, workload_key, weight) "
      "VALUES (?1, ?2, ?3, ?4, ?5)"));
  for (const StoredTask& task : job.tasks) {
    put_task.Reset();
    st = put_task.BindInt(1, id)
             .BindInt(2, task.index)
             .BindText(3, task.name)
             .BindText(4, task.workload_key)
             .BindDouble(5, task.weight)
             .Run();
    if (!st.ok()) return st;
  }
  if (st = txn.Commit(); !st.ok()) return st;
  return id;
}

absl::StatusOr<StoredJob> RecordsStore::GetJob(int64_t job_id) const {
  std::lock_guard<std::mutex> lock(impl_->mu);
  const SqliteDb& db = *impl_->db;
  PRUNER_ASSIGN_OR_RETURN(Statement get,
                          db.Prepare(absl::StrCat("SELECT ", kJobColumns, " FROM jobs WHERE id = ?1")));
  get.BindInt(1, job_id);
  PRUNER_ASSIGN_OR_RETURN(std::vector<StoredJob> jobs, ReadJobs(db, get));
  if (jobs.empty()) {
    return absl::NotFoundError(
        absl::StrCat("no job ", job_id, " in records store '", impl_->path, "'"));
  }
  return std::move(jobs.front());
}

absl::StatusOr<std::vector<StoredJob>> RecordsStore::ListJobs() const {
  std::lock_guard<std::mutex> lock(impl_->mu);
  const SqliteDb& db = *impl_->db;
  PRUNER_ASSIGN_OR_RETURN(Statement list,
                          db.Prepare(absl::StrCat("SELECT ", kJobColumns, " FROM jobs ORDER BY id")));
  return ReadJobs(db, list);
}

absl::Status RecordsStore::SetJobStatus(int64_t job_id, JobStatus status) {
  std::lock_guard<std::mutex> lock(impl_->mu);
  SqliteDb& db = *impl_->db;
  PRUNER_ASSIGN_OR_RETURN(Statement set,
                          db.Prepare("UPDATE jobs SET status = ?2, updated_unix_ms = ?3 WHERE id = ?1"));
  absl::Status st = set.BindInt(1, job_id)
                        .BindText(2, JobStatusName(status))
                        .BindInt(3, NowUnixMs())
                        .Run();
  if (!st.ok()) return st;
  if (db.Changes() == 0) return store_internal::CheckJobExists(db, job_id, "SetJobStatus");
  return absl::OkStatus();
}

absl::StatusOr<int64_t> RecordsStore::AdoptRecords(int64_t job_id, int64_t after_record_id) {
  std::lock_guard<std::mutex> lock(impl_->mu);
  SqliteDb& db = *impl_->db;
  PRUNER_RETURN_IF_ERROR(store_internal::CheckJobExists(db, job_id, "AdoptRecords"));
  PRUNER_ASSIGN_OR_RETURN(Transaction txn, Transaction::Begin(&db, /*immediate=*/true));
  PRUNER_ASSIGN_OR_RETURN(Statement adopt, db.Prepare(
      "UPDATE records SET job_id = ?1, task_index = ("
      "  SELECT t.task_index FROM job_tasks AS t"
      "  WHERE t.job_id = ?1 AND t.workload_key = records.workload_key ORDER BY t.task_index"
      "  LIMIT 1) "
      "WHERE job_id IS NULL AND id > ?2"
      "  AND device_key = (SELECT device_key FROM jobs WHERE id = ?1)"
      "  AND workload_key IN (SELECT workload_key FROM job_tasks WHERE job_id = ?1)"));
  PRUNER_RETURN_IF_ERROR(adopt.BindInt(1, job_id).BindInt(2, after_record_id).Run());
  const int64_t adopted = db.Changes();
  PRUNER_RETURN_IF_ERROR(txn.Commit());
  return adopted;
}

absl::StatusOr<int64_t> RecordsStore::MaxRecordId() const {
  std::lock_guard<std::mutex> lock(impl_->mu);
  PRUNER_ASSIGN_OR_RETURN(Statement max,
                          impl_->db->Prepare("SELECT coalesce(max(id), 0) FROM records"));
  PRUNER_ASSIGN_OR_RETURN(bool row, max.Step());
  if (!row) return absl::InternalError("MaxRecordId: no row");
  return max.Int(0);
}

absl::Status RecordsStore::AddCurvePoint(int64_t job_id, const CurvePoint& point) {
  const std::string where = absl::StrCat("curve point of job ", job_id);
  for (auto [value, name] : {std::pair{point.wall_s, "wall_s"},
                             std::pair{point.estimated_latency_s, "estimated_latency_s"}}) {
    PRUNER_RETURN_IF_ERROR(store_internal::CheckFinite(value, where, name));
  }
  if (absl::Status st = store_internal::CheckAllFinite(point.best_cost_s, where, "best_cost_s");
      !st.ok()) {
    return st;
  }
  if (absl::Status st =
          store_internal::CheckJsonOrEmpty(point.time_breakdown_json, where, "time_breakdown_json");
      !st.ok()) {
    return st;
  }
  std::lock_guard<std::mutex> lock(impl_->mu);
  SqliteDb& db = *impl_->db;
  PRUNER_RETURN_IF_ERROR(store_internal::CheckJobExists(db, job_id, "AddCurvePoint"));
  PRUNER_ASSIGN_OR_RETURN(Statement put,
                          db.Prepare(
      "INSERT INTO curve_points(job_id, trials, wall_s, estimated_latency_s, task_index, "
      "best_cost_json, time_breakdown_json) VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7)"));
  return put.BindInt(1, job_id)
      .BindInt(2, point.trials)
      .BindDouble(3, point.wall_s)
      .BindDouble(4, point.estimated_latency_s)
      .BindInt(5, point.task_index)
      .BindText(6, store_internal::DoublesToJson(point.best_cost_s))
      .BindText(7, point.time_breakdown_json)
      .Run();
}

absl::StatusOr<std::vector<CurvePoint>> RecordsStore::GetCurve(int64_t job_id) const {
  std::lock_guard<std::mutex> lock(impl_->mu);
  const SqliteDb& db = *impl_->db;
  PRUNER_RETURN_IF_ERROR(store_internal::CheckJobExists(db, job_id, "GetCurve"));
  PRUNER_ASSIGN_OR_RETURN(Statement get,
                          db.Prepare(
      "SELECT id, trials, wall_s, estimated_latency_s, task_index, best_cost_json, "
      "time_breakdown_json FROM curve_points WHERE job_id = ?1 ORDER BY id"));
  get.BindInt(1, job_id);
  std::vector<CurvePoint> curve;
  while (true) {
    PRUNER_ASSIGN_OR_RETURN(bool row, get.Step());
    if (!row) return curve;
    CurvePoint point;
    point.trials = get.Int(1);
    point.wall_s = get.Double(2);
    point.estimated_latency_s = get.Double(3);
    point.task_index = static_cast<int>(get.Int(4));
    absl::StatusOr<std::vector<double>> best = store_internal::DoublesFromJson(get.Text(5));
    if (!best.ok()) {
      return absl::DataLossError(absl::StrCat("curve point ", get.Int(0), " of job ", job_id,
                                              ": best costs: ", best.status().message()));
    }
    point.best_cost_s = *std::move(best);
    point.time_breakdown_json = get.Text(6);
    curve.push_back(std::move(point));
  }
}

}  // namespace pruner
