// RecordsStore: adding and querying measurement records.
#include <set>
#include <utility>

#include "absl/strings/str_cat.h"
#include "common/store/records_store.h"
#include "common/store/records_store_impl.h"
#include "common/store/store_clock.h"
#include "common/store/store_rows.h"

namespace pruner {

using store_internal::Statement;
using store_internal::Transaction;

absl::StatusOr<std::vector<int64_t>> RecordsStore::AddRecords(
    const std::vector<StoredRecord>& records) {
  auto where = [&](size_t i) { return absl::StrCat("record ", i, " of ", records.size()); };
  // Parsing every sentence is the slow part of validation; it needs no lock.
  for (size_t i = 0; i < records.size(); ++i) {
    if (absl::Status st = store_internal::ValidateRecord(records[i], where(i)); !st.ok()) return st;
  }
  if (records.empty()) return std::vector<int64_t>();
  const int64_t now = store_internal::NowUnixMs();

  std::lock_guard<std::mutex> lock(impl_->mu);
  store_internal::SqliteDb& db = *impl_->db;
  absl::StatusOr<Transaction> txn = Transaction::Begin(&db, /*immediate=*/true);
  if (!txn.ok()) return txn.status();
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
      if (absl::Status st = store_internal::CheckJobExists(db, r.job_id, where(i)); !st.ok()) {
        return st;
      }
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
  if (absl::Status st = txn->Commit(); !st.ok()) return st;
  return ids;
}

absl::StatusOr<StoredRecord> RecordsStore::BestRecord(const std::string& workload_key,
                                                      const std::string& device_key) const {
  std::lock_guard<std::mutex> lock(impl_->mu);
  const store_internal::SqliteDb& db = *impl_->db;
  // The literal error = 'none' lets SQLite use the partial index records_best.
  absl::StatusOr<Statement> best = db.Prepare(absl::StrCat(
      "SELECT ", store_internal::kRecordColumns,
      " FROM records WHERE workload_key = ?1 AND device_key = ?2 AND error = 'none' "
      "ORDER BY mean_s, id LIMIT 1"));
  if (!best.ok()) return best.status();
  best->BindText(1, workload_key).BindText(2, device_key);
  absl::StatusOr<std::vector<StoredRecord>> found = store_internal::ReadRecords(*best);
  if (!found.ok()) return found.status();
  if (!found->empty()) return std::move(found->front());
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
  absl::StatusOr<Statement> list = db.Prepare(absl::StrCat(
      "SELECT ", store_internal::kRecordColumns, " FROM records WHERE workload_key = ?1",
      device_key.empty() ? "" : " AND device_key = ?2", " ORDER BY id LIMIT ?3"));
  if (!list.ok()) return list.status();
  list->BindText(1, workload_key).BindInt(3, limit > 0 ? limit : -1);
  if (!device_key.empty()) list->BindText(2, device_key);
  return store_internal::ReadRecords(*list);
}

absl::StatusOr<std::vector<StoredRecord>> RecordsStore::JobRecords(int64_t job_id) const {
  std::lock_guard<std::mutex> lock(impl_->mu);
  const store_internal::SqliteDb& db = *impl_->db;
  if (absl::Status st = store_internal::CheckJobExists(db, job_id, "JobRecords"); !st.ok()) {
    return st;
  }
  absl::StatusOr<Statement> list = db.Prepare(absl::StrCat(
      "SELECT ", store_internal::kRecordColumns, " FROM records WHERE job_id = ?1 ORDER BY id"));
  if (!list.ok()) return list.status();
  list->BindInt(1, job_id);
  return store_internal::ReadRecords(*list);
}

absl::StatusOr<int64_t> RecordsStore::CountRecords() const {
  std::lock_guard<std::mutex> lock(impl_->mu);
  absl::StatusOr<Statement> count = impl_->db->Prepare("SELECT count(*) FROM records");
  if (!count.ok()) return count.status();
  absl::StatusOr<bool> row = count->Step();
  if (!row.ok()) return row.status();
  return count->Int(0);
}

}  // namespace pruner
