#include "common/tune/dataset_shards.h"

#include <unistd.h>

#include <algorithm>
#include <filesystem>
#include <fstream>
#include <map>
#include <set>

#include <nlohmann/json.hpp>

#include "absl/strings/match.h"
#include "absl/strings/str_cat.h"
#include "common/ir/compute_dag.h"
#include "common/base/status_macros.h"
#include "common/store/xz_file.h"
#include "common/tune/dataset_collection.h"

namespace pruner {
namespace {

using nlohmann::json;
namespace fs = std::filesystem;

constexpr char kJobsSuffix[] = ".jobs.json";
constexpr char kRecordsSuffix[] = ".jsonl.xz";

// Tasks carry their workload's canonical text: a stopped job's later tasks
// may have no record yet, and so no line that would bring the workload.
absl::StatusOr<json> JobToJson(const RecordsStore& store, const StoredJob& job) {
  json tasks = json::array();
  for (const StoredTask& t : job.tasks) {
    PRUNER_ASSIGN_OR_RETURN(ComputeDag dag, store.GetWorkload(t.workload_key));
    tasks.push_back({{"name", t.name},
                     {"workload_key", t.workload_key},
                     {"workload_text", dag.CanonicalText()},
                     {"weight", t.weight}});
  }
  return json{{"name", job.name},
          {"strategy", job.strategy},
          {"scheduler", job.scheduler},
          {"trial_budget", job.trial_budget},
          {"measures_per_round", job.measures_per_round},
          {"options_json", job.options_json},
          {"status", JobStatusName(job.status)},
          {"tasks", tasks}};
}

// Also puts the tasks' workloads that the store lacks.
absl::StatusOr<StoredJob> JobFromJson(const json& j, const std::string& device_key,
                                      const std::string& where, RecordsStore* store) {
  auto bad = [&](const std::string& why) {
    return absl::InvalidArgumentError(absl::StrCat(where, ": ", why));
  };
  try {
    StoredJob job;
    job.name = j.at("name").get<std::string>();
    if (!absl::StartsWith(job.name, kDatasetJobPrefix)) {
      return bad(absl::StrCat("job '", job.name, "' is not a dataset job"));
    }
    job.device_key = device_key;
    job.strategy = j.at("strategy").get<std::string>();
    job.scheduler = j.at("scheduler").get<std::string>();
    job.trial_budget = j.at("trial_budget").get<int64_t>();
    job.measures_per_round = j.at("measures_per_round").get<int>();
    job.options_json = j.at("options_json").get<std::string>();
    std::optional<JobStatus> status = ParseJobStatus(j.at("status").get<std::string>());
    if (!status) return bad(absl::StrCat("job '", job.name, "': unknown status"));
    // A job that was running when exported continues as a stopped one.
    job.status = *status == JobStatus::kDone ? JobStatus::kDone : JobStatus::kStopped;
    int index = 0;
    for (const json& t : j.at("tasks")) {
      const std::string key = t.at("workload_key").get<std::string>();
      absl::StatusOr<ComputeDag> dag = ComputeDag::ParseCanonical(t.at("workload_text").get<std::string>());
      if (!dag.ok() || dag->WorkloadKey() != key) {
        return bad(absl::StrCat("task ", index, ": its workload text does not hash to ", key));
      }
      PRUNER_RETURN_IF_ERROR(store->PutWorkload(*dag));
      job.tasks.push_back({index++, t.at("name").get<std::string>(), key,
                           t.at("weight").get<double>()});
    }
    return job;
  } catch (const json::exception& e) {
    return bad(absl::StrCat("malformed job: ", e.what()));
  }
}

// A device key as a file name: it is a profile name ("cpu-amd-epyc-...");
// anything unexpected becomes '_'.
std::string FileStem(const std::string& device_key) {
  std::string stem = device_key;
  for (char& c : stem) {
    if (!std::isalnum(static_cast<unsigned char>(c)) && c != '-' && c != '_' && c != '.') c = '_';
  }
  return stem;
}

std::string TempPath(const std::string& dir, const std::string& name) {
  return (fs::path(dir) / absl::StrCat(".", name, ".", getpid(), ".tmp")).string();
}

}  // namespace

absl::StatusOr<std::vector<DatasetShardReport>> ExportDatasetShards(const RecordsStore& store,
                                                                    const std::string& dir,
                                                                    const std::string& device_key) {
  PRUNER_ASSIGN_OR_RETURN(std::vector<StoredJob> jobs, store.ListJobs());
  std::map<std::string, std::vector<StoredJob>> by_device;
  for (StoredJob& job : jobs) {
    if (!absl::StartsWith(job.name, kDatasetJobPrefix)) continue;
    if (!device_key.empty() && job.device_key != device_key) continue;
    by_device[job.device_key].push_back(std::move(job));
  }
  if (by_device.empty()) {
    return absl::NotFoundError(absl::StrCat("no dataset jobs", device_key.empty() ? "" : " on ",
                                            device_key, " in ", store.path(),
                                            " (collect with `pruner dataset collect`)"));
  }
  std::error_code ec;
  fs::create_directories(dir, ec);
  if (ec) return absl::PermissionDeniedError(absl::StrCat("cannot create '", dir, "'"));
  std::vector<DatasetShardReport> reports;
  for (const auto& [device, device_jobs] : by_device) {
    DatasetShardReport report;
    report.device_key = device;
    const std::string stem = (fs::path(dir) / FileStem(device)).string();
    report.records_path = stem + kRecordsSuffix;
    RecordsStore::ExportSelection selection;
    selection.device_key = device;
    json manifest = json::array();
    for (const StoredJob& job : device_jobs) {
      selection.job_ids.push_back(job.id);
      PRUNER_ASSIGN_OR_RETURN(json entry, JobToJson(store, job));
      manifest.push_back(std::move(entry));
      PRUNER_ASSIGN_OR_RETURN(std::vector<StoredRecord> records, store.JobRecords(job.id));
      report.records += static_cast<int64_t>(records.size());
    }
    report.jobs = static_cast<int>(device_jobs.size());
    const std::string plain = TempPath(dir, FileStem(device) + ".jsonl");
    absl::Status st = store.ExportJsonLines(plain, selection);
    if (st.ok()) st = CompressFileXz(plain, report.records_path);
    fs::remove(plain, ec);
    PRUNER_RETURN_IF_ERROR(st);
    const std::string jobs_path = stem + kJobsSuffix;
    std::ofstream out(jobs_path, std::ios::trunc);
    out << manifest.dump(1) << '\n';
    out.close();
    if (!out) return absl::PermissionDeniedError(absl::StrCat("cannot write '", jobs_path, "'"));
    reports.push_back(std::move(report));
  }
  return reports;
}

absl::StatusOr<std::vector<DatasetShardReport>> ImportDatasetShards(RecordsStore* store,
                                                                    const std::string& dir) {
  std::error_code ec;
  std::vector<std::string> manifests;
  for (const fs::directory_entry& e : fs::directory_iterator(dir, ec)) {
    const std::string name = e.path().filename().string();
    if (absl::EndsWith(name, kJobsSuffix)) manifests.push_back(e.path().string());
  }
  if (ec) return absl::NotFoundError(absl::StrCat("cannot read directory '", dir, "'"));
  if (manifests.empty()) {
    return absl::NotFoundError(absl::StrCat("no dataset shards (*", kJobsSuffix, ") in '", dir, "'"));
  }
  std::sort(manifests.begin(), manifests.end());
  std::vector<DatasetShardReport> reports;
  for (const std::string& jobs_path : manifests) {
    const std::string stem = jobs_path.substr(0, jobs_path.size() - std::strlen(kJobsSuffix));
    DatasetShardReport report;
    report.records_path = stem + kRecordsSuffix;
    std::ifstream in(jobs_path);
    json manifest = json::parse(in, nullptr, /*allow_exceptions=*/false);
    if (manifest.is_discarded() || !manifest.is_array()) {
      return absl::InvalidArgumentError(absl::StrCat(jobs_path, ": not a JSON array of jobs"));
    }
    // The records first: they bring the workloads and the device the jobs
    // reference.
    const std::string plain = TempPath(dir, fs::path(stem).filename().string() + ".jsonl");
    PRUNER_ASSIGN_OR_RETURN(const int64_t before, store->MaxRecordId());
    absl::Status st = DecompressFileXz(report.records_path, plain);
    absl::StatusOr<int64_t> added = st.ok() ? store->ImportJsonLines(plain) : st;
    fs::remove(plain, ec);
    if (!added.ok()) return added.status();
    report.records = *added;
    // The device: the one the records name (every line carries it).
    PRUNER_ASSIGN_OR_RETURN(std::vector<std::string> devices, store->ListDeviceKeys());
    std::set<std::string> names;
    PRUNER_ASSIGN_OR_RETURN(std::vector<StoredJob> existing, store->ListJobs());
    for (const StoredJob& job : existing) names.insert(job.device_key + "\n" + job.name);
    const std::string stem_name = fs::path(stem).filename().string();
    for (const std::string& d : devices) {
      if (FileStem(d) == stem_name) report.device_key = d;
    }
    if (report.device_key.empty()) {
      return absl::InvalidArgumentError(absl::StrCat(
          report.records_path, ": no records of the device '", stem_name, "' its name promises"));
    }
    for (size_t i = 0; i < manifest.size(); ++i) {
      PRUNER_ASSIGN_OR_RETURN(
          StoredJob job,
          JobFromJson(manifest[i], report.device_key, absl::StrCat(jobs_path, " job ", i + 1),
                      store));
      if (names.count(report.device_key + "\n" + job.name)) continue;
      PRUNER_ASSIGN_OR_RETURN(int64_t id, store->CreateJob(job));
      PRUNER_RETURN_IF_ERROR(store->AdoptRecords(id, before).status());
      ++report.jobs;
    }
    reports.push_back(std::move(report));
  }
  return reports;
}

}  // namespace pruner
