// RecordsStore: cost-model checkpoints, and quarantined workers.
//
// Checkpoints are kept as BLOBs so that any bytes
// (NUL included) come back unchanged. Every put adds a row, so older
// checkpoints stay available for inspection; "latest" is the highest id,
// which, unlike a timestamp, cannot be confused by clock skew between hosts.
#include "absl/strings/str_cat.h"
#include "common/base/status_macros.h"
#include "common/store/records_store.h"
#include "common/store/records_store_impl.h"
#include "common/base/clock.h"
#include "common/store/store_rows.h"

namespace pruner {

using store_internal::Statement;

absl::Status RecordsStore::PutCheckpoint(const std::string& model_name,
                                         const std::string& device_key, const std::string& blob,
                                         int64_t num_training_records) {
  if (model_name.empty()) return absl::InvalidArgumentError("checkpoint: empty model name");
  if (num_training_records < 0) {
    return absl::InvalidArgumentError(absl::StrCat("checkpoint of '", model_name,
                                                   "': num_training_records ",
                                                   num_training_records, " < 0"));
  }
  std::lock_guard<std::mutex> lock(impl_->mu);
  store_internal::SqliteDb& db = *impl_->db;
  if (absl::Status st = store_internal::CheckDeviceExists(
          db, device_key, absl::StrCat("checkpoint of '", model_name, "'"));
      !st.ok()) {
    return st;
  }
  PRUNER_ASSIGN_OR_RETURN(Statement put,
                          db.Prepare(
      "INSERT INTO checkpoints(model_name, device_key, blob, num_training_records, "
      "created_unix_ms) VALUES (?1, ?2, ?3, ?4, ?5)"));
  return put.BindText(1, model_name)
      .BindText(2, device_key)
      .BindBlob(3, blob)
      .BindInt(4, num_training_records)
      .BindInt(5, NowUnixMs())
      .Run();
}

absl::StatusOr<std::string> RecordsStore::LatestCheckpoint(const std::string& model_name,
                                                           const std::string& device_key) const {
  std::lock_guard<std::mutex> lock(impl_->mu);
  PRUNER_ASSIGN_OR_RETURN(Statement get,
                          impl_->db->Prepare(
      "SELECT blob FROM checkpoints WHERE model_name = ?1 AND device_key = ?2 "
      "ORDER BY id DESC LIMIT 1"));
  PRUNER_ASSIGN_OR_RETURN(bool row, get.BindText(1, model_name).BindText(2, device_key).Step());
  if (!row) {
    return absl::NotFoundError(absl::StrCat("no checkpoint of model '", model_name,
                                            "' for device '", device_key, "' in records store '",
                                            impl_->path, "'"));
  }
  return get.Blob(0);
}

absl::Status RecordsStore::PutQuarantine(const std::string& worker_name,
                                         const std::string& reason) {
  if (worker_name.empty()) return absl::InvalidArgumentError("quarantine: empty worker name");
  std::lock_guard<std::mutex> lock(impl_->mu);
  PRUNER_ASSIGN_OR_RETURN(Statement put, impl_->db->Prepare(
      "INSERT INTO quarantined_workers(name, reason, since_unix_ms) VALUES (?1, ?2, ?3) "
      "ON CONFLICT(name) DO UPDATE SET reason = excluded.reason"));
  return put.BindText(1, worker_name).BindText(2, reason).BindInt(3, NowUnixMs()).Run();
}

absl::Status RecordsStore::DeleteQuarantine(const std::string& worker_name) {
  std::lock_guard<std::mutex> lock(impl_->mu);
  PRUNER_ASSIGN_OR_RETURN(Statement remove, impl_->db->Prepare(
      "DELETE FROM quarantined_workers WHERE name = ?1"));
  return remove.BindText(1, worker_name).Run();
}

absl::StatusOr<std::vector<std::pair<std::string, std::string>>> RecordsStore::ListQuarantined()
    const {
  std::lock_guard<std::mutex> lock(impl_->mu);
  PRUNER_ASSIGN_OR_RETURN(Statement list, impl_->db->Prepare(
      "SELECT name, reason FROM quarantined_workers ORDER BY name"));
  std::vector<std::pair<std::string, std::string>> out;
  while (true) {
    PRUNER_ASSIGN_OR_RETURN(bool row, list.Step());
    if (!row) return out;
    out.emplace_back(list.Text(0), list.Text(1));
  }
}

}  // namespace pruner
