// RecordsStore: adding and querying measurement records.
#include <algorithm>
#include <cmath>
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

namespace {

// EligibleAsBest and BetterBest in SQL, over a FROM of `records` (not
// aliased). The literal error = 'none' lets SQLite use the partial index
// records_best.
constexpr char kEligibleAsBest[] =
    "error = 'none' "
    "AND NOT EXISTS (SELECT 1 FROM verifications AS v WHERE v.check_record_id = records.id) "
    "AND NOT EXISTS (SELECT 1 FROM verifications AS v JOIN records AS c "
    "ON c.id = v.check_record_id WHERE v.record_id = records.id AND c.error != 'none')";
constexpr char kBestOrder[] =
    "EXISTS (SELECT 1 FROM verifications AS v WHERE v.record_id = records.id "
    "AND v.verdict = 'verified') DESC, "
    "max(mean_s, coalesce((SELECT c.mean_s FROM verifications AS v JOIN records AS c "
    "ON c.id = v.check_record_id WHERE v.record_id = records.id), 0)), id";

}  // namespace

const char* VerdictName(Verdict verdict) {
  switch (verdict) {
    case Verdict::kUnverified: return "unverified";
    case Verdict::kVerified: return "verified";
    case Verdict::kDisputed: return "disputed";
  }
  return "?";
}

Verdict JudgeVerification(const MeasureResult& original, const MeasureResult& check,
                          double tolerance) {
  if (!original.ok() || !check.ok() || original.mean_s <= 0 || check.mean_s <= 0) {
    return Verdict::kDisputed;
  }
  const double slower = std::max(original.mean_s, check.mean_s);
  const double faster = std::min(original.mean_s, check.mean_s);
  return slower <= faster * (1 + tolerance) ? Verdict::kVerified : Verdict::kDisputed;
}

double TrustedCost(const StoredRecord& r) {
  return r.check_record_id != 0 ? std::max(r.result.mean_s, r.check_mean_s) : r.result.mean_s;
}

bool EligibleAsBest(const StoredRecord& r) {
  return r.result.ok() && r.verifies_record_id == 0 &&
         (r.check_record_id == 0 || r.check_mean_s > 0);
}

bool BetterBest(const StoredRecord& a, const StoredRecord& b) {
  const bool a_verified = a.verdict == Verdict::kVerified;
  const bool b_verified = b.verdict == Verdict::kVerified;
  if (a_verified != b_verified) return a_verified;
  if (TrustedCost(a) != TrustedCost(b)) return TrustedCost(a) < TrustedCost(b);
  return a.id < b.id;
}

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
  PRUNER_ASSIGN_OR_RETURN(Statement best,
                          db.Prepare(absl::StrCat(
      "SELECT ", store_internal::kRecordColumns,
      " FROM records WHERE workload_key = ?1 AND device_key = ?2 AND ", kEligibleAsBest,
      " ORDER BY ", kBestOrder, " LIMIT 1")));
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

absl::StatusOr<StoredRecord> RecordsStore::GetRecord(int64_t id) const {
  std::lock_guard<std::mutex> lock(impl_->mu);
  PRUNER_ASSIGN_OR_RETURN(Statement get, impl_->db->Prepare(absl::StrCat(
      "SELECT ", store_internal::kRecordColumns, " FROM records WHERE id = ?1")));
  get.BindInt(1, id);
  PRUNER_ASSIGN_OR_RETURN(std::vector<StoredRecord> found, store_internal::ReadRecords(get));
  if (found.empty()) return absl::NotFoundError(absl::StrCat("no record ", id));
  return std::move(found.front());
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

absl::StatusOr<Verdict> RecordsStore::AddVerification(int64_t record_id, StoredRecord check,
                                                      double tolerance) {
  if (!(tolerance >= 0) || !std::isfinite(tolerance)) {
    return absl::InvalidArgumentError("verification tolerance must be finite and >= 0");
  }
  check.job_id = 0;  // a second measurement is no trial of any job
  check.task_index = -1;
  const std::string where = absl::StrCat("verification of record ", record_id);
  PRUNER_RETURN_IF_ERROR(store_internal::ValidateRecord(check, where));
  if (check.measured_at_unix_ms == 0) check.measured_at_unix_ms = NowUnixMs();

  std::lock_guard<std::mutex> lock(impl_->mu);
  store_internal::SqliteDb& db = *impl_->db;
  PRUNER_ASSIGN_OR_RETURN(Transaction txn, Transaction::Begin(&db, /*immediate=*/true));
  PRUNER_ASSIGN_OR_RETURN(Statement get, db.Prepare(absl::StrCat(
      "SELECT ", store_internal::kRecordColumns, " FROM records WHERE id = ?1")));
  get.BindInt(1, record_id);
  PRUNER_ASSIGN_OR_RETURN(std::vector<StoredRecord> found, store_internal::ReadRecords(get));
  if (found.empty()) return absl::NotFoundError(absl::StrCat(where, ": no such record"));
  const StoredRecord& original = found.front();
  if (!original.result.ok()) {
    return absl::FailedPreconditionError(absl::StrCat(where, ": it is not an ok record"));
  }
  if (original.verifies_record_id != 0) {
    return absl::FailedPreconditionError(
        absl::StrCat(where, ": it is itself the check of record ", original.verifies_record_id));
  }
  if (original.verdict != Verdict::kUnverified) {
    return absl::AlreadyExistsError(
        absl::StrCat(where, ": already ", VerdictName(original.verdict)));
  }
  if (check.workload_key != original.workload_key || check.device_key != original.device_key ||
      check.steps != original.steps) {
    return absl::FailedPreconditionError(
        absl::StrCat(where, ": the check measured another workload, device or schedule"));
  }
  PRUNER_ASSIGN_OR_RETURN(int64_t check_id, store_internal::InsertRecord(db, check));
  const Verdict verdict = JudgeVerification(original.result, check.result, tolerance);
  PRUNER_ASSIGN_OR_RETURN(Statement link, db.Prepare(
      "INSERT INTO verifications(record_id, check_record_id, verdict, tolerance, created_unix_ms) "
      "VALUES (?1, ?2, ?3, ?4, ?5)"));
  link.BindInt(1, record_id)
      .BindInt(2, check_id)
      .BindText(3, VerdictName(verdict))
      .BindDouble(4, tolerance)
      .BindInt(5, NowUnixMs());
  PRUNER_RETURN_IF_ERROR(link.Run());
  PRUNER_RETURN_IF_ERROR(txn.Commit());
  return verdict;
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
  // Pairs whose best (as BestRecord picks it) is the worker's.
  PRUNER_ASSIGN_OR_RETURN(Statement bests, db.Prepare(absl::StrCat(
      "SELECT count(*) FROM (SELECT DISTINCT workload_key AS wk, device_key AS dk FROM records "
      "WHERE measured_by = ?1 AND error = 'none') AS pair WHERE ?1 = "
      "(SELECT measured_by FROM records WHERE records.workload_key = pair.wk "
      "AND records.device_key = pair.dk AND ", kEligibleAsBest, " ORDER BY ", kBestOrder,
      " LIMIT 1)")));
  bests.BindText(1, worker_name);
  PRUNER_RETURN_IF_ERROR(bests.Step().status());
  summary.bests = bests.Int(0);
  if (dry_run || summary.records == 0) return summary;  // the transaction rolls back
  // Verifications first (they reference the records): of its records, and
  // by its records (what it checked is unverified again).
  PRUNER_ASSIGN_OR_RETURN(Statement unlink, db.Prepare(
      "DELETE FROM verifications WHERE record_id IN (SELECT id FROM records WHERE measured_by = ?1) "
      "OR check_record_id IN (SELECT id FROM records WHERE measured_by = ?1)"));
  PRUNER_RETURN_IF_ERROR(unlink.BindText(1, worker_name).Run());
  PRUNER_ASSIGN_OR_RETURN(Statement remove,
                          db.Prepare("DELETE FROM records WHERE measured_by = ?1"));
  PRUNER_RETURN_IF_ERROR(remove.BindText(1, worker_name).Run());
  PRUNER_RETURN_IF_ERROR(txn.Commit());
  return summary;
}

}  // namespace pruner
