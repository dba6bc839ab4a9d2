// RecordsStore: adding and querying measurement records.
#include <set>
#include <utility>

#include "absl/strings/str_cat.h"
#include "common/base/status_macros.h"
#include "common/store/records_store.h"
#include "common/store/records_store_impl.h"
#include "common/base/clock.h"
#include "common/store/store_rows.h"

namespace pruner {

using store_internal::Statement;
using store_internal::Transaction;

absl::StatusOr<std::vector<int64_t>> RecordsStore::AddRecords(
    const std::vector<StoredRecord>& records) {
  auto where = [&](size_t i) { return absl::StrCat("record ", i, " of ", records.size()); };
  // Parsing every sentence is the slow part of validation; it needs no lock.
  for (size_t i = 0; i < records.size(); ++i) {
    PRUNER_RETURN_IF_ERROR(store_internal::ValidateRecord(records[i], where(i)));
  }
  if (records.empty()) return std::vector<int64_t>();
  const int64_t now = NowUnixMs();

  std::lock_guard<std::mutex> lock(impl_->mu);
  store_internal::SqliteDb& db = *impl_->db;
  PRUNER_ASSIGN_OR_RETURN(Transaction txn, Transaction::Begin(&db, /*immediate=*/true));
  // A batch usually names one workload, one device and one job: check each
  // distinct reference once.
  std::set<std::string> workloads, devices;
  std::set<std::pair<int64_t, int>> tasks;  // (job, task); task -1: the job itself
  std::vector<int64_t> ids;
  ids.reserve(records.size());
  for (size_t i = 0; i < records.size(); ++i) {
    const StoredRecord& r = records[i];
    if (workloads.insert(r.workload_key).second) {
      if (absl::Status st = store_internal::CheckWorkloadExists(db, r.workload_key, where(i));
          !st.ok()) {
        return st;
      }
    }
    if (devices.insert(r.device_key).second) {
      if (absl::Status st = store_internal::CheckDeviceExists(db, r.device_key, where(i));
          !st.ok()) {
        return st;
      }
    }
    if (r.job_id != 0 && tasks.insert({r.job_id, -1}).second) {
      PRUNER_RETURN_IF_ERROR(store_internal::CheckJobExists(db, r.job_id, where(i)));
    }
    if (r.job_id != 0 && r.task_index >= 0 && tasks.insert({r.job_id, r.task_index}).second) {
      if (absl::Status st = store_internal::CheckTaskExists(db, r.job_id, r.task_index, where(i));
          !st.ok()) {
        return st;
      }
    }
    absl::StatusOr<int64_t> id;
    if (r.measured_at_unix_ms == 0) {
      StoredRecord stamped = r;
      stamped.measured_at_unix_ms = now;
      id = store_internal::InsertRecord(db, stamped);
    } else {
      id = store_internal::InsertRecord(db, r);
    }
    if (!id.ok()) return id.status();
    ids.push_back(*id);
  }
  PRUNER_RETURN_IF_ERROR(txn.Commit());
  return ids;
}

absl::StatusOr<StoredRecord> RecordsStore::BestRecord(const std::string& workload_key,
                                                      const std::string& device_key) const {
  std::lock_guard<std::mutex> lock(impl_->mu);
  const store_internal::SqliteDb& db = *impl_->db;
  // The literal error = 'none' lets SQLite use the partial index records_best.
  PRUNER_ASSIGN_OR_RETURN(Statement best,
                          db.Prepare(absl::StrCat(
      "SELECT ", store_internal::kRecordColumns,
      " FROM records WHERE workload_key = ?1 AND device_key = ?2 AND error = 'none' "
      "ORDER BY mean_s, id LIMIT 1")));
  best.BindText(1, workload_key).BindText(2, device_key);
  PRUNER_ASSIGN_OR_RETURN(std::vector<StoredRecord> found, store_internal::ReadRecords(best));
  if (!found.empty()) return std::move(found.front());
  // Say whether the key is wrong or there is simply no successful record yet.
  if (absl::Status st = store_internal::CheckWorkloadExists(db, workload_key, "BestRecord");
      !st.ok()) {
    return st;
  }
  if (absl::Status st = store_internal::CheckDeviceExists(db, device_key, "BestRecord");
      !st.ok()) {
    return st;
  }
  return absl::NotFoundError(absl::StrCat("no successful record of workload '", workload_key,
                                          "' on device '", device_key, "' yet"));
}

absl::StatusOr<std::vector<StoredRecord>> RecordsStore::ListRecords(const std::string& workload_key,
                                                                    const std::string& device_key,
                                                                    int64_t limit) const {
  std::lock_guard<std::mutex> lock(impl_->mu);
  const store_internal::SqliteDb& db = *impl_->db;
  if (absl::Status st = store_internal::CheckWorkloadExists(db, workload_key, "ListRecords");
      !st.ok()) {
    return st;
  }
  if (!device_key.empty()) {
    if (absl::Status st = store_internal::CheckDeviceExists(db, device_key, "ListRecords");
        !st.ok()) {
      return st;
    }
  }
  // LIMIT -1 is SQLite's "no limit".
  PRUNER_ASSIGN_OR_RETURN(Statement list,
                          db.Prepare(absl::StrCat(
      "SELECT ", store_internal::kRecordColumns, " FROM records WHERE workload_key = ?1",
      device_key.empty() ? "" : " AND device_key = ?2", " ORDER BY id LIMIT ?3")));
  list.BindText(1, workload_key).BindInt(3, limit > 0 ? limit : -1);
  if (!device_key.empty()) list.BindText(2, device_key);
  return store_internal::ReadRecords(list);
}

absl::StatusOr<std::vector<StoredRecord>> RecordsStore::JobRecords(int64_t job_id) const {
  std::lock_guard<std::mutex> lock(impl_->mu);
  const store_internal::SqliteDb& db = *impl_->db;
  PRUNER_RETURN_IF_ERROR(store_internal::CheckJobExists(db, job_id, "JobRecords"));
  PRUNER_ASSIGN_OR_RETURN(Statement list,
                          db.Prepare(absl::StrCat(
      "SELECT ", store_internal::kRecordColumns, " FROM records WHERE job_id = ?1 ORDER BY id")));
  list.BindInt(1, job_id);
  return store_internal::ReadRecords(list);
}

absl::StatusOr<int64_t> RecordsStore::CountRecords() const {
  std::lock_guard<std::mutex> lock(impl_->mu);
  PRUNER_ASSIGN_OR_RETURN(Statement count, impl_->db->Prepare("SELECT count(*) FROM records"));
  PRUNER_RETURN_IF_ERROR(count.Step().status());
  return count.Int(0);
}

absl::StatusOr<RecordsStore::PurgeSummary> RecordsStore::PurgeWorkerRecords(
    const std::string& worker_name, bool dry_run) {
  if (worker_name.empty()) return absl::InvalidArgumentError("purge: empty worker name");
  std::lock_guard<std::mutex> lock(impl_->mu);
  store_internal::SqliteDb& db = *impl_->db;
  // Counting and deleting share one write transaction, so the summary is
  // exactly what was removed.
  PRUNER_ASSIGN_OR_RETURN(Transaction txn, Transaction::Begin(&db, /*immediate=*/true));
  PurgeSummary summary;
  PRUNER_ASSIGN_OR_RETURN(Statement count, db.Prepare(
      "SELECT count(*), coalesce(sum(error = 'none'), 0), "
      "count(DISTINCT workload_key || char(10) || device_key) "
      "FROM records WHERE measured_by = ?1"));
  count.BindText(1, worker_name);
  PRUNER_RETURN_IF_ERROR(count.Step().status());
  summary.records = count.Int(0);
  summary.ok_records = count.Int(1);
  summary.workloads = count.Int(2);
  // A pair's best is its lowest ok mean, earliest id on ties (as BestRecord).
  PRUNER_ASSIGN_OR_RETURN(Statement bests, db.Prepare(
      "SELECT count(*) FROM (SELECT DISTINCT workload_key, device_key FROM records "
      "WHERE measured_by = ?1 AND error = 'none') AS pair WHERE ?1 = "
      "(SELECT measured_by FROM records AS r WHERE r.workload_key = pair.workload_key "
      "AND r.device_key = pair.device_key AND r.error = 'none' ORDER BY mean_s, id LIMIT 1)"));
  bests.BindText(1, worker_name);
  PRUNER_RETURN_IF_ERROR(bests.Step().status());
  summary.bests = bests.Int(0);
  if (dry_run || summary.records == 0) return summary;  // the transaction rolls back
  PRUNER_ASSIGN_OR_RETURN(Statement remove,
                          db.Prepare("DELETE FROM records WHERE measured_by = ?1"));
  PRUNER_RETURN_IF_ERROR(remove.BindText(1, worker_name).Run());
  PRUNER_RETURN_IF_ERROR(txn.Commit());
  return summary;
}

}  // namespace pruner
