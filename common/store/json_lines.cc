// RecordsStore: JSON-lines export and import, the exchange format between
// records databases (and a readable dump of one).
//
// One line per record, self-contained:
//   {"format":"pruner-record","version":1,
//    "workload_key":"…","workload_text":"T0 = placeholder …",
//    "workload_display_text":"A = placeholder …","workload_description":"…",
//    "device":{…DeviceProfileToJson…},
//    "steps":"SP 2 0 64 [2,1,4]; …","error":"none","phase":"","message":"",
//    "repeat_costs_s":[…],"mean_s":…,"build_s":…,"run_s":…,"binary_bytes":…,
//    "measured_by":"…","measured_at_unix_ms":…[,"host_busy_cores":…]}
// "host_busy_cores" (MeasureResult::host_busy_cores) is left out when it was
// not sampled; lines without it (older exports) import as not sampled.
// Doubles print as the shortest text that parses back to the same value.
// "workload_display_text" may be "" (see workload_text.h).
#include <cerrno>
#include <cstdio>
#include <cstring>
#include <fstream>
#include <map>
#include <utility>

#include <nlohmann/json.hpp>

#include "absl/strings/str_cat.h"
#include "common/base/absl_compat.h"
#include "common/base/status_macros.h"
#include "common/device/device_profile_json.h"
#include "common/measure/measure_types.h"
#include "common/store/records_store.h"
#include "common/store/records_store_impl.h"
#include "common/store/store_rows.h"
#include "common/store/workload_text.h"

namespace pruner {

using nlohmann::json;
using store_internal::SqliteDb;
using store_internal::Statement;
using store_internal::Transaction;

namespace {

constexpr char kFormat[] = "pruner-record";
constexpr int kFormatVersion = 1;
// Records per export query; the lock is released between pages so that a
// long export does not stall the other users of this store.
constexpr int64_t kExportPage = 1000;

absl::Status FileError(const std::string& what, const std::string& path) {
  const int err = errno;
  const std::string message = absl::StrCat(what, " '", path, "': ", std::strerror(err));
  if (err == ENOENT) return absl::NotFoundError(message);
  if (err == EACCES || err == EPERM) return absl::PermissionDeniedError(message);
  return absl::InternalError(message);
}

struct WorkloadText {
  std::string text;
  std::string display_text;
  std::string description;
};

// Fetches what export needs about the records' workloads and devices
// (caller holds the lock), once per key.
absl::Status FetchReferences(const SqliteDb& db, const std::vector<StoredRecord>& records,
                             std::map<std::string, WorkloadText>* workloads,
                             std::map<std::string, json>* devices) {
  for (const StoredRecord& r : records) {
    if (!workloads->count(r.workload_key)) {
      PRUNER_ASSIGN_OR_RETURN(Statement get,
                              db.Prepare("SELECT canonical_text, display_text, description FROM workloads "
                     "WHERE key = ?1"));
      PRUNER_ASSIGN_OR_RETURN(bool row, get.BindText(1, r.workload_key).Step());
      if (!row) return absl::DataLossError(absl::StrCat("record ", r.id, ": workload missing"));
      (*workloads)[r.workload_key] = {get.Text(0), get.Text(1), get.Text(2)};
    }
    if (!devices->count(r.device_key)) {
      PRUNER_ASSIGN_OR_RETURN(Statement get,
                              db.Prepare("SELECT profile_json FROM devices WHERE key = ?1"));
      PRUNER_ASSIGN_OR_RETURN(bool row, get.BindText(1, r.device_key).Step());
      if (!row) return absl::DataLossError(absl::StrCat("record ", r.id, ": device missing"));
      json profile = json::parse(get.Text(0), nullptr, /*allow_exceptions=*/false);
      if (profile.is_discarded()) {
        return absl::DataLossError(
            absl::StrCat("device '", r.device_key, "': stored profile is not JSON"));
      }
      (*devices)[r.device_key] = std::move(profile);
    }
  }
  return absl::OkStatus();
}

json RecordLine(const StoredRecord& r, const WorkloadText& workload, const json& device) {
  const MeasureResult& m = r.result;
  json line{{"format", kFormat},
              {"version", kFormatVersion},
              {"workload_key", r.workload_key},
              {"workload_text", workload.text},
              {"workload_display_text", workload.display_text},
              {"workload_description", workload.description},
              {"device", device},
              {"steps", r.steps},
              {"error", std::string(MeasureErrorName(m.error))},
              {"phase", m.phase},
              {"message", m.message},
              {"repeat_costs_s", m.repeat_costs_s},
              {"mean_s", m.mean_s},
              {"build_s", m.build_s},
              {"run_s", m.run_s},
              {"binary_bytes", m.binary_bytes},
              {"measured_by", r.measured_by},
              {"measured_at_unix_ms", r.measured_at_unix_ms}};
  if (m.host_busy_cores >= 0) line["host_busy_cores"] = m.host_busy_cores;
  return line;
}

// ---- Import -------------------------------------------------------------------

// Typed access to one line's fields; every error names the line.
class LineFields {
 public:
  LineFields(const json& obj, std::string where) : obj_(obj), where_(std::move(where)) {}

  const std::string& where() const { return where_; }

  absl::Status Error(std::string_view problem) const {
    return absl::InvalidArgumentError(absl::StrCat(where_, ": ", ToAbsl(problem)));
  }

  absl::StatusOr<const json*> Field(const char* key) const {
    auto it = obj_.find(key);
    if (it == obj_.end()) return Error(absl::StrCat("missing field '", key, "'"));
    return &*it;
  }
  absl::StatusOr<std::string> String(const char* key) const {
    PRUNER_ASSIGN_OR_RETURN(const json* v, Field(key));
    if (!v->is_string()) return Error(absl::StrCat("'", key, "' must be a string"));
    return v->get<std::string>();
  }
  absl::StatusOr<int64_t> Int(const char* key) const {
    PRUNER_ASSIGN_OR_RETURN(const json* v, Field(key));
    if (!v->is_number_integer()) return Error(absl::StrCat("'", key, "' must be an integer"));
    return v->get<int64_t>();
  }
  absl::StatusOr<double> Double(const char* key) const {
    PRUNER_ASSIGN_OR_RETURN(const json* v, Field(key));
    if (!v->is_number()) return Error(absl::StrCat("'", key, "' must be a number"));
    return v->get<double>();
  }

 private:
  const json& obj_;
  std::string where_;
};

struct ImportedWorkload {
  std::string key;
  std::string text;
  std::string display_text;
  std::string description;
  double flops = 0;
};

struct ImportBatch {
  std::vector<StoredRecord> records;
  std::map<std::string, ImportedWorkload> workloads;  // by key
  std::map<std::string, DeviceProfile> devices;       // by name; the first line's wins
  std::map<std::string, std::string> key_of_text;     // canonical text -> key, parsed once
};

absl::Status ParseLine(const std::string& line, const std::string& where, ImportBatch* batch) {
  json obj;
  try {
    obj = json::parse(line);
  } catch (const json::exception& e) {
    // Not parse_error alone: a number too large for a double is out_of_range
    // (found by tests/fuzz/json_lines_fuzz.cc; it ended `pruner records import`).
    return absl::InvalidArgumentError(absl::StrCat(where, ": not valid JSON: ", e.what()));
  }
  if (!obj.is_object()) {
    return absl::InvalidArgumentError(absl::StrCat(where, ": not a JSON object"));
  }
  LineFields f(obj, where);

  std::string format;
  int64_t version = 0;
  PRUNER_ASSIGN_OR_RETURN(format, f.String("format"));
  PRUNER_ASSIGN_OR_RETURN(version, f.Int("version"));
  if (format != kFormat) {
    return f.Error(absl::StrCat("format is '", format, "', not '", kFormat, "'"));
  }
  if (version < 1 || version > kFormatVersion) {
    return f.Error(absl::StrCat("record format version ", version,
                                " is not one this build reads (1..", kFormatVersion, ")"));
  }

  // The workload: its key must be what its text hashes to, or the records
  // would be filed under a DAG they were not measured on.
  ImportedWorkload workload;
  PRUNER_ASSIGN_OR_RETURN(workload.key, f.String("workload_key"));
  PRUNER_ASSIGN_OR_RETURN(workload.text, f.String("workload_text"));
  PRUNER_ASSIGN_OR_RETURN(workload.display_text, f.String("workload_display_text"));
  PRUNER_ASSIGN_OR_RETURN(workload.description, f.String("workload_description"));
  auto known = batch->key_of_text.find(workload.text);
  if (known == batch->key_of_text.end()) {
    absl::StatusOr<ComputeDag> dag = ComputeDag::ParseCanonical(workload.text);
    if (!dag.ok()) {
      return f.Error(absl::StrCat("workload_text does not parse: ", dag.status().message()));
    }
    workload.flops = dag->FlopCount();
    known = batch->key_of_text.emplace(workload.text, dag->WorkloadKey()).first;
    if (!workload.display_text.empty()) {
      absl::StatusOr<ComputeDag> shown = store_internal::DagFromStoredText(
          known->second, workload.text, workload.display_text);
      if (!shown.ok()) {
        return f.Error(absl::StrCat("workload_display_text: ", shown.status().message()));
      }
    }
    batch->workloads.emplace(known->second, workload);
  }
  if (known->second != workload.key) {
    return f.Error(absl::StrCat("workload_key '", workload.key,
                                "' does not match workload_text, which hashes to '",
                                known->second, "'"));
  }

  absl::StatusOr<const json*> device_json = f.Field("device");
  if (!device_json.ok()) return device_json.status();
  absl::StatusOr<DeviceProfile> device = DeviceProfileFromJson(**device_json);
  if (!device.ok()) return f.Error(absl::StrCat("device: ", device.status().message()));
  if (device->name.empty()) return f.Error("device has an empty name");
  batch->devices.emplace(device->name, *device);

  StoredRecord r;
  r.workload_key = workload.key;
  r.device_key = device->name;
  PRUNER_ASSIGN_OR_RETURN(r.steps, f.String("steps"));
  std::string error;
  PRUNER_ASSIGN_OR_RETURN(error, f.String("error"));
  std::optional<MeasureError> parsed_error = ParseMeasureErrorName(error);
  if (!parsed_error.has_value()) return f.Error(absl::StrCat("unknown error class '", error, "'"));
  r.result.error = *parsed_error;
  PRUNER_ASSIGN_OR_RETURN(r.result.phase, f.String("phase"));
  PRUNER_ASSIGN_OR_RETURN(r.result.message, f.String("message"));
  absl::StatusOr<const json*> costs = f.Field("repeat_costs_s");
  if (!costs.ok()) return costs.status();
  if (!(*costs)->is_array()) return f.Error("'repeat_costs_s' must be an array of numbers");
  for (const json& c : **costs) {
    if (!c.is_number()) return f.Error("'repeat_costs_s' must be an array of numbers");
    r.result.repeat_costs_s.push_back(c.get<double>());
  }
  PRUNER_ASSIGN_OR_RETURN(r.result.mean_s, f.Double("mean_s"));
  PRUNER_ASSIGN_OR_RETURN(r.result.build_s, f.Double("build_s"));
  PRUNER_ASSIGN_OR_RETURN(r.result.run_s, f.Double("run_s"));
  PRUNER_ASSIGN_OR_RETURN(r.result.binary_bytes, f.Int("binary_bytes"));
  PRUNER_ASSIGN_OR_RETURN(r.measured_by, f.String("measured_by"));
  PRUNER_ASSIGN_OR_RETURN(r.measured_at_unix_ms, f.Int("measured_at_unix_ms"));
  if (obj.contains("host_busy_cores")) {
    PRUNER_ASSIGN_OR_RETURN(r.result.host_busy_cores, f.Double("host_busy_cores"));
  }
  PRUNER_RETURN_IF_ERROR(store_internal::ValidateRecord(r, where));
  batch->records.push_back(std::move(r));
  return absl::OkStatus();
}


bool IsBlank(const std::string& line) {
  return line.find_first_not_of(" \t\r\n") == std::string::npos;
}

}  // namespace

absl::Status RecordsStore::ExportJsonLines(const std::string& path,
                                           const std::string& workload_key) const {
  ExportSelection selection;
  selection.workload_key = workload_key;
  return ExportJsonLines(path, selection);
}

absl::Status RecordsStore::ExportJsonLines(const std::string& path,
                                           const ExportSelection& selection) const {
  const std::string& workload_key = selection.workload_key;
  std::string where;
  if (!selection.device_key.empty()) where += " AND device_key = ?4";
  if (!selection.job_ids.empty()) {
    where += " AND job_id IN (";
    for (size_t i = 0; i < selection.job_ids.size(); ++i) {
      absl::StrAppend(&where, i ? ", " : "", selection.job_ids[i]);  // integers: no injection
    }
    where += ")";
  }
  if (!workload_key.empty()) {
    std::lock_guard<std::mutex> lock(impl_->mu);
    if (absl::Status st =
            store_internal::CheckWorkloadExists(*impl_->db, workload_key, "ExportJsonLines");
        !st.ok()) {
      return st;
    }
  }
  const std::string tmp = path + ".tmp";
  std::ofstream out(tmp, std::ios::binary | std::ios::trunc);
  if (!out) return FileError("cannot write", tmp);
  std::map<std::string, WorkloadText> workloads;
  std::map<std::string, json> devices;
  int64_t last_id = 0;
  while (true) {
    std::vector<StoredRecord> page;
    {
      std::lock_guard<std::mutex> lock(impl_->mu);
      PRUNER_ASSIGN_OR_RETURN(Statement list,
                              impl_->db->Prepare(absl::StrCat(
          "SELECT ", store_internal::kRecordColumns, " FROM records WHERE id > ?1",
          workload_key.empty() ? "" : " AND workload_key = ?2", where, " ORDER BY id LIMIT ?3")));
      list.BindInt(1, last_id).BindInt(3, kExportPage);
      if (!workload_key.empty()) list.BindText(2, workload_key);
      if (!selection.device_key.empty()) list.BindText(4, selection.device_key);
      PRUNER_ASSIGN_OR_RETURN(std::vector<StoredRecord> records, store_internal::ReadRecords(list));
      page = std::move(records);
      PRUNER_RETURN_IF_ERROR(FetchReferences(*impl_->db, page, &workloads, &devices));
    }
    if (page.empty()) break;
    for (const StoredRecord& r : page) {
      out << RecordLine(r, workloads[r.workload_key], devices[r.device_key]).dump() << '\n';
    }
    last_id = page.back().id;
  }
  out.close();
  if (!out) {
    std::remove(tmp.c_str());
    return FileError("cannot write", tmp);
  }
  if (std::rename(tmp.c_str(), path.c_str()) != 0) {
    absl::Status st = FileError(absl::StrCat("cannot rename '", tmp, "' to"), path);
    std::remove(tmp.c_str());
    return st;
  }
  return absl::OkStatus();
}

absl::StatusOr<int64_t> RecordsStore::ImportJsonLines(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  if (!in) return FileError("cannot read", path);
  // Everything is parsed and checked before the write lock is taken.
  ImportBatch batch;
  std::string line;
  for (int64_t line_no = 1; std::getline(in, line); ++line_no) {
    if (IsBlank(line)) continue;
    if (absl::Status st = ParseLine(line, absl::StrCat("'", path, "' line ", line_no), &batch);
        !st.ok()) {
      return st;
    }
  }
  if (in.bad()) return FileError("cannot read", path);

  std::lock_guard<std::mutex> lock(impl_->mu);
  SqliteDb& db = *impl_->db;
  PRUNER_ASSIGN_OR_RETURN(Transaction txn, Transaction::Begin(&db, /*immediate=*/true));
  for (const auto& [key, w] : batch.workloads) {
    if (absl::Status st =
            store_internal::InsertWorkload(db, key, w.text, w.display_text, w.flops, w.description);
        !st.ok()) {
      return absl::Status(st.code(), absl::StrCat("importing '", path, "': ", st.message()));
    }
  }
  for (const auto& [name, profile] : batch.devices) {
    PRUNER_RETURN_IF_ERROR(store_internal::InsertDevice(db, profile, /*replace=*/false));
  }
  PRUNER_ASSIGN_OR_RETURN(Statement exists,
                          db.Prepare(
      "SELECT 1 FROM records WHERE workload_key = ?1 AND device_key = ?2 "
      "AND measured_at_unix_ms = ?3 AND steps = ?4 LIMIT 1"));
  int64_t added = 0;
  for (const StoredRecord& r : batch.records) {
    exists.Reset();
    PRUNER_ASSIGN_OR_RETURN(bool duplicate,
                            exists.BindText(1, r.workload_key)
                                         .BindText(2, r.device_key)
                                         .BindInt(3, r.measured_at_unix_ms)
                                         .BindText(4, r.steps)
                                         .Step());
    if (duplicate) continue;
    PRUNER_RETURN_IF_ERROR(store_internal::InsertRecord(db, r).status());
    ++added;
  }
  PRUNER_RETURN_IF_ERROR(txn.Commit());
  return added;
}

}  // namespace pruner
