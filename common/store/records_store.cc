// RecordsStore: opening, workloads and devices. Records, jobs and the
// JSON-lines exchange live in records_store_{records,jobs}.cc and
// json_lines.cc.
#include "common/store/records_store.h"

#include <filesystem>
#include <system_error>
#include <utility>

#include "absl/strings/str_cat.h"
#include "common/base/status_macros.h"
#include "common/device/device_profile_json.h"
#include "common/store/records_store_impl.h"
#include "common/store/schema.h"
#include "common/store/store_rows.h"
#include "common/store/workload_text.h"

namespace pruner {

using store_internal::SqliteDb;
using store_internal::Statement;

namespace {

// Writers wait this long for another writer's transaction before giving up
// with Unavailable; ingesting one batch of records takes milliseconds.
constexpr int kBusyTimeoutMs = 5000;

// SQLite's own message for a missing directory is "unable to open database
// file"; say which directory instead.
absl::Status CheckPath(const std::string& path) {
  if (path.empty()) return absl::InvalidArgumentError("records store path is empty");
  if (path == ":memory:") return absl::OkStatus();
  namespace fs = std::filesystem;
  std::error_code ec;
  const fs::path p(path);
  if (fs::is_directory(p, ec)) {
    return absl::InvalidArgumentError(
        absl::StrCat("cannot open records store '", path, "': it is a directory"));
  }
  const fs::path parent = p.parent_path();
  if (!parent.empty() && !fs::is_directory(parent, ec)) {
    return absl::NotFoundError(absl::StrCat("cannot open records store '", path,
                                            "': directory '", parent.string(),
                                            "' does not exist"));
  }
  return absl::OkStatus();
}

absl::Status Configure(SqliteDb& db) {
  // SQLite reads the header lazily: this first read is where a file that is
  // not a database shows itself.
  absl::StatusOr<Statement> probe = db.Prepare("SELECT count(*) FROM sqlite_master");
  absl::Status st = probe.ok() ? probe->Run() : probe.status();
  if (st.code() == absl::StatusCode::kFailedPrecondition) {  // SQLITE_NOTADB
    return absl::FailedPreconditionError(absl::StrCat(
        "cannot open records store '", db.path(), "': the file is not a SQLite database"));
  }
  if (!st.ok()) return st;
  if (st = db.Exec("PRAGMA foreign_keys = ON"); !st.ok()) return st;
  // WAL lets readers run while one writer commits. In-memory databases
  // answer "memory"; a filesystem without shared memory keeps its rollback
  // journal, which is still correct, only less concurrent.
  if (st = db.Exec("PRAGMA journal_mode = WAL"); !st.ok()) return st;
  // In WAL mode NORMAL syncs only at checkpoints: a power loss may drop the
  // last commits but never corrupts the file, and ingest stays fast.
  return db.Exec("PRAGMA synchronous = NORMAL");
}

}  // namespace

RecordsStore::RecordsStore(std::unique_ptr<Impl> impl) : impl_(std::move(impl)) {}
RecordsStore::~RecordsStore() = default;

absl::StatusOr<std::unique_ptr<RecordsStore>> RecordsStore::Open(const std::string& path) {
  PRUNER_RETURN_IF_ERROR(CheckPath(path));
  absl::StatusOr<std::unique_ptr<SqliteDb>> db = SqliteDb::Open(path, kBusyTimeoutMs);
  if (!db.ok()) return db.status();
  PRUNER_RETURN_IF_ERROR(Configure(**db));
  PRUNER_ASSIGN_OR_RETURN(int version,
                          store_internal::MigrateSchema(**db, store_internal::SchemaMigrations()));
  auto impl = std::make_unique<Impl>();
  impl->path = path;
  impl->schema_version = version;
  impl->db = *std::move(db);
  return std::unique_ptr<RecordsStore>(new RecordsStore(std::move(impl)));
}

const std::string& RecordsStore::path() const { return impl_->path; }
int RecordsStore::schema_version() const { return impl_->schema_version; }

// ---- Workloads ---------------------------------------------------------------

absl::Status RecordsStore::PutWorkload(const ComputeDag& dag, const std::string& description) {
  // Computed before taking the lock: hashing and FLOP counting need no database.
  const std::string key = dag.WorkloadKey();
  const std::string text = dag.CanonicalText();
  const std::string display = store_internal::ReplayableDisplayText(dag, key);
  const double flops = dag.FlopCount();
  std::lock_guard<std::mutex> lock(impl_->mu);
  return store_internal::InsertWorkload(*impl_->db, key, text, display, flops, description);
}

absl::StatusOr<ComputeDag> RecordsStore::GetWorkload(const std::string& workload_key) const {
  std::string text, display;
  {
    std::lock_guard<std::mutex> lock(impl_->mu);
    PRUNER_ASSIGN_OR_RETURN(Statement get,
                            impl_->db->Prepare("SELECT canonical_text, display_text FROM workloads WHERE key = ?1"));
    PRUNER_ASSIGN_OR_RETURN(bool row, get.BindText(1, workload_key).Step());
    if (!row) {
      return absl::NotFoundError(absl::StrCat("no workload '", workload_key,
                                              "' in records store '", impl_->path, "'"));
    }
    text = get.Text(0);
    display = get.Text(1);
  }
  // Parsed outside the lock: it needs no database.
  return store_internal::DagFromStoredText(workload_key, text, display);
}

namespace {
absl::StatusOr<std::vector<std::string>> ListKeys(const SqliteDb& db, const std::string& sql) {
  PRUNER_ASSIGN_OR_RETURN(Statement list, db.Prepare(sql));
  std::vector<std::string> keys;
  while (true) {
    PRUNER_ASSIGN_OR_RETURN(bool row, list.Step());
    if (!row) return keys;
    keys.push_back(list.Text(0));
  }
}
}  // namespace

absl::StatusOr<std::vector<std::string>> RecordsStore::ListWorkloadKeys() const {
  std::lock_guard<std::mutex> lock(impl_->mu);
  return ListKeys(*impl_->db, "SELECT key FROM workloads ORDER BY key");
}

// ---- Devices -----------------------------------------------------------------

absl::Status RecordsStore::PutDevice(const DeviceProfile& profile) {
  std::lock_guard<std::mutex> lock(impl_->mu);
  return store_internal::InsertDevice(*impl_->db, profile, /*replace=*/true);
}

absl::StatusOr<DeviceProfile> RecordsStore::GetDevice(const std::string& device_key) const {
  std::string json;
  {
    std::lock_guard<std::mutex> lock(impl_->mu);
    PRUNER_ASSIGN_OR_RETURN(Statement get,
                            impl_->db->Prepare("SELECT profile_json FROM devices WHERE key = ?1"));
    PRUNER_ASSIGN_OR_RETURN(bool row, get.BindText(1, device_key).Step());
    if (!row) {
      return absl::NotFoundError(absl::StrCat("no device '", device_key, "' in records store '",
                                              impl_->path, "'"));
    }
    json = get.Text(0);
  }
  absl::StatusOr<DeviceProfile> profile = DeviceProfileFromJsonString(json);
  if (!profile.ok()) {
    return absl::DataLossError(absl::StrCat("device '", device_key,
                                            "': stored profile does not parse: ",
                                            profile.status().message()));
  }
  return profile;
}

absl::StatusOr<std::vector<std::string>> RecordsStore::ListDeviceKeys() const {
  std::lock_guard<std::mutex> lock(impl_->mu);
  return ListKeys(*impl_->db, "SELECT key FROM devices ORDER BY key");
}

}  // namespace pruner
