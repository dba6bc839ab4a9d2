#include "common/store/store_rows.h"

#include <optional>
#include <utility>

#include "absl/strings/str_cat.h"
#include "common/base/status_macros.h"
#include "common/device/device_profile_json.h"
#include "common/base/absl_compat.h"
#include "common/schedule/step.h"
#include "common/store/json_values.h"
#include "common/measure/measure_types.h"
#include "common/base/clock.h"

namespace pruner::store_internal {
namespace {

// Whether "SELECT 1 ... WHERE <column> = ?1" finds a row.
absl::StatusOr<bool> ExistsByText(const SqliteDb& db, const std::string& sql,
                                  const std::string& key) {
  PRUNER_ASSIGN_OR_RETURN(Statement stmt, db.Prepare(sql));
  return stmt.BindText(1, key).Step();
}

// Whether "SELECT 1 ... WHERE <a> = ?1 [AND <b> = ?2]" finds a row.
absl::StatusOr<bool> ExistsByInts(const SqliteDb& db, const std::string& sql, int64_t first,
                                  std::optional<int64_t> second = std::nullopt) {
  PRUNER_ASSIGN_OR_RETURN(Statement stmt, db.Prepare(sql));
  stmt.BindInt(1, first);
  if (second.has_value()) stmt.BindInt(2, *second);
  return stmt.Step();
}

absl::Status Unknown(const SqliteDb& db, std::string_view where, std::string_view what,
                     std::string_view key, std::string_view hint) {
  return absl::NotFoundError(absl::StrCat(ToAbsl(where), ": unknown ", ToAbsl(what), " '",
                                          ToAbsl(key), "' in records store '", db.path(), "'",
                                          ToAbsl(hint)));
}

}  // namespace

absl::Status CheckWorkloadExists(const SqliteDb& db, const std::string& key,
                                 std::string_view where) {
  PRUNER_ASSIGN_OR_RETURN(bool found,
                          ExistsByText(db, "SELECT 1 FROM workloads WHERE key = ?1", key));
  if (!found) return Unknown(db, where, "workload", key, " (PutWorkload it first)");
  return absl::OkStatus();
}

absl::Status CheckDeviceExists(const SqliteDb& db, const std::string& key,
                               std::string_view where) {
  PRUNER_ASSIGN_OR_RETURN(bool found,
                          ExistsByText(db, "SELECT 1 FROM devices WHERE key = ?1", key));
  if (!found) return Unknown(db, where, "device", key, " (PutDevice it first)");
  return absl::OkStatus();
}

absl::Status CheckJobExists(const SqliteDb& db, int64_t job_id, std::string_view where) {
  PRUNER_ASSIGN_OR_RETURN(bool found, ExistsByInts(db, "SELECT 1 FROM jobs WHERE id = ?1", job_id));
  if (!found) return Unknown(db, where, "job", std::to_string(job_id), "");
  return absl::OkStatus();
}

absl::Status CheckTaskExists(const SqliteDb& db, int64_t job_id, int task_index,
                             std::string_view where) {
  PRUNER_ASSIGN_OR_RETURN(bool found,
                          ExistsByInts(db, "SELECT 1 FROM job_tasks WHERE job_id = ?1 AND task_index = ?2", job_id,
                   task_index));
  if (!found) {
    return absl::NotFoundError(absl::StrCat(ToAbsl(where), ": job ", job_id, " has no task ",
                                            task_index, " in records store '", db.path(), "'"));
  }
  return absl::OkStatus();
}

absl::Status InsertWorkload(SqliteDb& db, const std::string& key,
                            const std::string& canonical_text, const std::string& display_text,
                            double flop_count, const std::string& description) {
  PRUNER_ASSIGN_OR_RETURN(Statement get,
                          db.Prepare("SELECT canonical_text FROM workloads WHERE key = ?1"));
  PRUNER_ASSIGN_OR_RETURN(bool row, get.BindText(1, key).Step());
  if (row) {
    if (get.Text(0) == canonical_text) return absl::OkStatus();
    return absl::FailedPreconditionError(absl::StrCat(
        "workload '", key, "' is already stored in records store '", db.path(),
        "' with different canonical text (key collision or changed canonical form)"));
  }
  if (absl::Status st = CheckFinite(flop_count, absl::StrCat("workload '", key, "'"),
                                    "flop_count");
      !st.ok()) {
    return st;
  }
  PRUNER_ASSIGN_OR_RETURN(Statement put,
                          db.Prepare(
      "INSERT INTO workloads(key, canonical_text, display_text, flop_count, description, "
      "created_unix_ms) VALUES (?1, ?2, ?3, ?4, ?5, ?6)"));
  return put.BindText(1, key)
      .BindText(2, canonical_text)
      .BindText(3, display_text)
      .BindDouble(4, flop_count)
      .BindText(5, description)
      .BindInt(6, NowUnixMs())
      .Run();
}

absl::Status InsertDevice(SqliteDb& db, const DeviceProfile& profile, bool replace) {
  if (profile.name.empty()) {
    return absl::InvalidArgumentError("device profile has an empty name; it is the device key");
  }
  absl::StatusOr<Statement> put = db.Prepare(
      replace ? "INSERT INTO devices(key, kind, profile_json, updated_unix_ms) "
                "VALUES (?1, ?2, ?3, ?4) ON CONFLICT(key) DO UPDATE SET kind = excluded.kind, "
                "profile_json = excluded.profile_json, updated_unix_ms = excluded.updated_unix_ms"
              : "INSERT OR IGNORE INTO devices(key, kind, profile_json, updated_unix_ms) "
                "VALUES (?1, ?2, ?3, ?4)");
  if (!put.ok()) return put.status();
  return put->BindText(1, profile.name)
      .BindText(2, DeviceKindName(profile.kind))
      .BindText(3, DeviceProfileToJsonString(profile))
      .BindInt(4, NowUnixMs())
      .Run();
}

absl::Status ValidateRecord(const StoredRecord& r, std::string_view where) {
  if (r.workload_key.empty()) {
    return absl::InvalidArgumentError(absl::StrCat(ToAbsl(where), ": empty workload_key"));
  }
  if (r.device_key.empty()) {
    return absl::InvalidArgumentError(absl::StrCat(ToAbsl(where), ": empty device_key"));
  }
  if (absl::StatusOr<std::vector<Step>> steps = ParseSteps(r.steps); !steps.ok()) {
    return absl::InvalidArgumentError(absl::StrCat(ToAbsl(where), ": steps do not parse: ",
                                                   steps.status().message()));
  }
  if (ParseMeasureErrorName(MeasureErrorName(r.result.error)) != r.result.error) {
    return absl::InvalidArgumentError(absl::StrCat(
        ToAbsl(where), ": error class ", static_cast<int>(r.result.error), " has no name"));
  }
  const MeasureResult& m = r.result;
  for (auto [value, name] : {std::pair{m.mean_s, "mean_s"}, std::pair{m.build_s, "build_s"},
                             std::pair{m.run_s, "run_s"},
                             std::pair{m.host_busy_cores, "host_busy_cores"}}) {
    PRUNER_RETURN_IF_ERROR(CheckFinite(value, where, name));
  }
  return CheckAllFinite(m.repeat_costs_s, where, "repeat_costs_s");
}

absl::StatusOr<int64_t> InsertRecord(SqliteDb& db, const StoredRecord& r) {
  PRUNER_ASSIGN_OR_RETURN(Statement put,
                          db.Prepare(
      "INSERT INTO records(workload_key, device_key, steps, error, phase, message, "
      "repeat_costs_json, mean_s, build_s, run_s, binary_bytes, measured_by, "
      "measured_at_unix_ms, job_id, task_index, host_busy_cores) "
      "VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8, ?9, ?10, ?11, ?12, ?13, ?14, ?15, ?16)"));
  const MeasureResult& m = r.result;
  put.BindText(1, r.workload_key)
      .BindText(2, r.device_key)
      .BindText(3, r.steps)
      .BindText(4, MeasureErrorName(m.error))
      .BindText(5, m.phase)
      .BindText(6, m.message)
      .BindText(7, DoublesToJson(m.repeat_costs_s))
      .BindDouble(8, m.mean_s)
      .BindDouble(9, m.build_s)
      .BindDouble(10, m.run_s)
      .BindInt(11, m.binary_bytes)
      .BindText(12, r.measured_by)
      .BindInt(13, r.measured_at_unix_ms)
      .BindInt(15, r.task_index)
      .BindDouble(16, m.host_busy_cores < 0 ? -1.0 : m.host_busy_cores);
  // Job 0 ("no job") is NULL so that the REFERENCES clause holds.
  if (r.job_id == 0) {
    put.BindNull(14);
  } else {
    put.BindInt(14, r.job_id);
  }
  PRUNER_RETURN_IF_ERROR(put.Run());
  return db.LastInsertRowId();
}

const char kRecordColumns[] =
    "id, workload_key, device_key, steps, error, phase, message, repeat_costs_json, mean_s, "
    "build_s, run_s, binary_bytes, measured_by, measured_at_unix_ms, job_id, task_index, "
    "(SELECT verdict FROM verifications AS v WHERE v.record_id = records.id), "
    "(SELECT check_record_id FROM verifications AS v WHERE v.record_id = records.id), "
    "(SELECT record_id FROM verifications AS v WHERE v.check_record_id = records.id), "
    "(SELECT c.mean_s FROM verifications AS v JOIN records AS c ON c.id = v.check_record_id "
    "WHERE v.record_id = records.id), host_busy_cores";

absl::StatusOr<std::vector<StoredRecord>> ReadRecords(Statement& stmt) {
  std::vector<StoredRecord> records;
  while (true) {
    PRUNER_ASSIGN_OR_RETURN(bool row, stmt.Step());
    if (!row) return records;
    StoredRecord r;
    r.id = stmt.Int(0);
    r.workload_key = stmt.Text(1);
    r.device_key = stmt.Text(2);
    r.steps = stmt.Text(3);
    const std::string error = stmt.Text(4);
    std::optional<MeasureError> parsed = ParseMeasureErrorName(error);
    if (!parsed.has_value()) {
      return absl::DataLossError(
          absl::StrCat("record ", r.id, ": unknown error class '", error, "'"));
    }
    r.result.error = *parsed;
    r.result.phase = stmt.Text(5);
    r.result.message = stmt.Text(6);
    absl::StatusOr<std::vector<double>> costs = DoublesFromJson(stmt.Text(7));
    if (!costs.ok()) {
      return absl::DataLossError(
          absl::StrCat("record ", r.id, ": repeat costs: ", costs.status().message()));
    }
    r.result.repeat_costs_s = *std::move(costs);
    r.result.mean_s = stmt.Double(8);
    r.result.build_s = stmt.Double(9);
    r.result.run_s = stmt.Double(10);
    r.result.binary_bytes = stmt.Int(11);
    r.measured_by = stmt.Text(12);
    r.measured_at_unix_ms = stmt.Int(13);
    r.job_id = stmt.IsNull(14) ? 0 : stmt.Int(14);
    r.task_index = static_cast<int>(stmt.Int(15));
    r.result.host_busy_cores = stmt.Double(20);
    if (!stmt.IsNull(16)) {
      const std::string verdict = stmt.Text(16);
      if (verdict != "verified" && verdict != "disputed") {
        return absl::DataLossError(
            absl::StrCat("record ", r.id, ": unknown verdict '", verdict, "'"));
      }
      r.verdict = verdict == "verified" ? Verdict::kVerified : Verdict::kDisputed;
      r.check_record_id = stmt.Int(17);
      r.check_mean_s = stmt.IsNull(19) ? 0 : stmt.Double(19);
    }
    r.verifies_record_id = stmt.IsNull(18) ? 0 : stmt.Int(18);
    records.push_back(std::move(r));
  }
}

}  // namespace pruner::store_internal
