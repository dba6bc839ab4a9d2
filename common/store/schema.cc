#include "common/store/schema.h"

#include <cstdlib>

#include "absl/strings/numbers.h"
#include "absl/strings/str_cat.h"
#include "common/base/clock.h"
#include "common/base/status_macros.h"

namespace pruner::store_internal {
namespace {

// Version 1: the first schema.
//
// Notes on the choices:
// - Keys are TEXT: workload keys are hashes, device keys profile names.
// - workloads.display_text is ToString() with the operator's own names, or
//   '' when it would not parse back (see workload_text.h).
// - records.error holds MeasureErrorName() ("none", "run error", ...) so the
//   file reads well in the sqlite3 shell; repeat costs are a JSON array
//   written with shortest round-trip doubles, so they read back bit-exact.
// - records.job_id is NULL for records outside a job (the API's 0).
// - records_best is partial (ok records only), so BestRecord walks the index
//   straight to the lowest mean; records_dedup serves the import's duplicate
//   check; records_by_job serves JobRecords.
// - REFERENCES clauses are enforced (foreign_keys is on), but the store checks
//   first so that errors name the missing workload, device or job.
const char* const kSchemaV1 = R"sql(
CREATE TABLE meta (
  key   TEXT PRIMARY KEY,
  value TEXT NOT NULL
);
CREATE TABLE schema_migrations (
  version         INTEGER PRIMARY KEY,
  description     TEXT NOT NULL,
  applied_unix_ms INTEGER NOT NULL
);
CREATE TABLE workloads (
  key             TEXT PRIMARY KEY,
  canonical_text  TEXT NOT NULL,
  display_text    TEXT NOT NULL,
  flop_count      REAL NOT NULL,
  description     TEXT NOT NULL,
  created_unix_ms INTEGER NOT NULL
);
CREATE TABLE devices (
  key             TEXT PRIMARY KEY,
  kind            TEXT NOT NULL CHECK (kind IN ('cpu', 'gpu')),
  profile_json    TEXT NOT NULL,
  updated_unix_ms INTEGER NOT NULL
);
CREATE TABLE jobs (
  id                 INTEGER PRIMARY KEY AUTOINCREMENT,
  name               TEXT NOT NULL,
  device_key         TEXT NOT NULL REFERENCES devices(key),
  strategy           TEXT NOT NULL,
  scheduler          TEXT NOT NULL,
  trial_budget       INTEGER NOT NULL,
  measures_per_round INTEGER NOT NULL,
  options_json       TEXT NOT NULL,
  status             TEXT NOT NULL,
  created_unix_ms    INTEGER NOT NULL,
  updated_unix_ms    INTEGER NOT NULL
);
CREATE TABLE job_tasks (
  job_id       INTEGER NOT NULL REFERENCES jobs(id),
  task_index   INTEGER NOT NULL,
  name         TEXT NOT NULL,
  workload_key TEXT NOT NULL REFERENCES workloads(key),
  weight       REAL NOT NULL,
  PRIMARY KEY (job_id, task_index)
) WITHOUT ROWID;
CREATE TABLE records (
  id                  INTEGER PRIMARY KEY AUTOINCREMENT,
  workload_key        TEXT NOT NULL REFERENCES workloads(key),
  device_key          TEXT NOT NULL REFERENCES devices(key),
  steps               TEXT NOT NULL,
  error               TEXT NOT NULL,
  phase               TEXT NOT NULL,
  message             TEXT NOT NULL,
  repeat_costs_json   TEXT NOT NULL,
  mean_s              REAL NOT NULL,
  build_s             REAL NOT NULL,
  run_s               REAL NOT NULL,
  binary_bytes        INTEGER NOT NULL,
  measured_by         TEXT NOT NULL,
  measured_at_unix_ms INTEGER NOT NULL,
  job_id              INTEGER REFERENCES jobs(id),
  task_index          INTEGER NOT NULL
);
CREATE INDEX records_best ON records(workload_key, device_key, mean_s) WHERE error = 'none';
CREATE INDEX records_by_workload ON records(workload_key, device_key, id);
CREATE INDEX records_dedup ON records(workload_key, device_key, measured_at_unix_ms);
CREATE INDEX records_by_job ON records(job_id, id);
CREATE TABLE curve_points (
  id                  INTEGER PRIMARY KEY AUTOINCREMENT,
  job_id              INTEGER NOT NULL REFERENCES jobs(id),
  trials              INTEGER NOT NULL,
  wall_s              REAL NOT NULL,
  estimated_latency_s REAL NOT NULL,
  task_index          INTEGER NOT NULL,
  best_cost_json      TEXT NOT NULL,
  time_breakdown_json TEXT NOT NULL
);
CREATE INDEX curve_points_by_job ON curve_points(job_id, id);
CREATE TABLE checkpoints (
  id                   INTEGER PRIMARY KEY AUTOINCREMENT,
  model_name           TEXT NOT NULL,
  device_key           TEXT NOT NULL REFERENCES devices(key),
  blob                 BLOB NOT NULL,
  num_training_records INTEGER NOT NULL,
  created_unix_ms      INTEGER NOT NULL
);
CREATE INDEX checkpoints_latest ON checkpoints(model_name, device_key, id);
)sql";

absl::Status CheckNumbering(const std::vector<Migration>& migrations) {
  if (migrations.empty()) return absl::InternalError("no schema migrations");
  for (size_t i = 0; i < migrations.size(); ++i) {
    if (migrations[i].version != static_cast<int>(i + 1)) {
      return absl::InternalError(absl::StrCat("schema migration #", i, " has version ",
                                              migrations[i].version, ", expected ", i + 1));
    }
  }
  return absl::OkStatus();
}

absl::Status TooNew(const SqliteDb& db, int version, int latest) {
  return absl::FailedPreconditionError(absl::StrCat(
      "records store '", db.path(), "' has schema version ", version,
      ", newer than the newest this build knows (", latest,
      "); open it with a newer pruner build"));
}

}  // namespace

// Version 2: verified bests. A record becomes a best only once a second
// measurement of its schedule (by another worker when the farm has one)
// agrees. The second measurement is a record of its own (no job: it is not
// a trial), linked here to the record it checks, with the verdict. And the
// workers the server quarantined, by name, so a restart keeps them out.
const char* const kSchemaV2 = R"sql(
CREATE TABLE verifications (
  record_id       INTEGER PRIMARY KEY REFERENCES records(id),
  check_record_id INTEGER NOT NULL UNIQUE REFERENCES records(id),
  verdict         TEXT NOT NULL CHECK (verdict IN ('verified', 'disputed')),
  tolerance       REAL NOT NULL,
  created_unix_ms INTEGER NOT NULL
);
CREATE TABLE quarantined_workers (
  name           TEXT PRIMARY KEY,
  reason         TEXT NOT NULL,
  since_unix_ms  INTEGER NOT NULL
);
)sql";

// Version 3: the contention signal of each record (MeasureResult::
// host_busy_cores): CPU cores busy with other work while the kernel ran, so a
// dataset can leave out records measured on a busy machine. -1: not sampled
// (records from before, GPU runs, failures before the run).
const char* const kSchemaV3 = R"sql(
ALTER TABLE records ADD COLUMN host_busy_cores REAL NOT NULL DEFAULT -1;
)sql";

const std::vector<Migration>& SchemaMigrations() {
  static const std::vector<Migration>* migrations = new std::vector<Migration>{
      {1, "initial schema: workloads, devices, records, jobs, tasks, curves, checkpoints",
       kSchemaV1},
      {2, "verified bests (a second measurement per best record, with its verdict); "
          "quarantined workers", kSchemaV2},
      {3, "records keep the host's busy cores while their kernel ran", kSchemaV3},
  };
  return *migrations;
}

int LatestSchemaVersion() { return SchemaMigrations().back().version; }

absl::StatusOr<int> ReadSchemaVersion(SqliteDb& db) {
  PRUNER_ASSIGN_OR_RETURN(Statement tables,
                          db.Prepare(
      "SELECT count(*), coalesce(sum(name = 'meta'), 0) FROM sqlite_master WHERE type = 'table'"));
  absl::StatusOr<bool> row = tables.Step();
  if (!row.ok()) return row.status();
  const int64_t num_tables = tables.Int(0);
  const bool has_meta = tables.Int(1) > 0;
  if (num_tables == 0) return 0;
  if (!has_meta) {
    return absl::FailedPreconditionError(
        absl::StrCat("'", db.path(), "' is a SQLite database but not a Pruner records store ",
                     "(it has ", num_tables, " tables and no 'meta' table)"));
  }
  PRUNER_ASSIGN_OR_RETURN(Statement get,
                          db.Prepare("SELECT value FROM meta WHERE key = 'schema_version'"));
  row = get.Step();
  if (!row.ok()) return row.status();
  int version = 0;
  if (!*row || !absl::SimpleAtoi(get.Text(0), &version) || version < 1) {
    return absl::FailedPreconditionError(absl::StrCat(
        "records store '", db.path(), "' has no valid schema_version in its meta table (",
        *row ? absl::StrCat("'", get.Text(0), "'") : std::string("missing"), ")"));
  }
  return version;
}

absl::StatusOr<int> MigrateSchema(SqliteDb& db, const std::vector<Migration>& migrations) {
  PRUNER_RETURN_IF_ERROR(CheckNumbering(migrations));
  const int latest = migrations.back().version;
  // Most opens find an up-to-date file; checking without the write lock
  // first lets them proceed while another connection is writing.
  absl::StatusOr<int> version = ReadSchemaVersion(db);
  if (!version.ok()) return version.status();
  if (*version > latest) return TooNew(db, *version, latest);
  if (*version == latest) return latest;

  PRUNER_ASSIGN_OR_RETURN(Transaction txn, Transaction::Begin(&db, /*immediate=*/true));
  // Another process may have migrated while we waited for the lock.
  version = ReadSchemaVersion(db);
  if (!version.ok()) return version.status();
  if (*version > latest) return TooNew(db, *version, latest);
  for (const Migration& m : migrations) {
    if (m.version <= *version) continue;
    if (absl::Status st = db.Exec(m.sql); !st.ok()) {
      return absl::Status(st.code(), absl::StrCat("schema migration to version ", m.version,
                                                  " failed: ", st.message()));
    }
    PRUNER_ASSIGN_OR_RETURN(Statement set,
                            db.Prepare(
        "INSERT INTO meta(key, value) VALUES ('schema_version', ?1) "
        "ON CONFLICT(key) DO UPDATE SET value = excluded.value"));
    PRUNER_RETURN_IF_ERROR(set.BindText(1, std::to_string(m.version)).Run());
    PRUNER_ASSIGN_OR_RETURN(Statement log,
                            db.Prepare(
        "INSERT INTO schema_migrations(version, description, applied_unix_ms) "
        "VALUES (?1, ?2, ?3)"));
    absl::Status st =
        log.BindInt(1, m.version).BindText(2, m.description).BindInt(3, NowUnixMs()).Run();
    if (!st.ok()) return st;
  }
  PRUNER_RETURN_IF_ERROR(txn.Commit());
  return latest;
}

}  // namespace pruner::store_internal
