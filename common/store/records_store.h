// The records database (SQLite): every measurement a team makes, the
// workloads they were made on, the devices, tuning jobs with their tasks and
// tuning curves, and cost-model checkpoints. One file, WAL mode, so many
// readers can query while one writer ingests; the schema carries its version
// and migrations upgrade older files on open.
//
// A record holds the schedule's sentence and references its workload by key;
// the workload's canonical DAG is stored once, so any record can be replayed
// to its program from the database alone (../shared/specs/ansor.md §8.1).
#ifndef PRUNER_COMMON_STORE_RECORDS_STORE_H_
#define PRUNER_COMMON_STORE_RECORDS_STORE_H_

#include <cstdint>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "common/device/device_profile.h"
#include "common/ir/compute_dag.h"
#include "common/measure/measure_types.h"

namespace pruner {

// Whether a second measurement of a record's schedule agreed with it.
enum class Verdict { kUnverified, kVerified, kDisputed };
const char* VerdictName(Verdict verdict);  // "unverified", "verified", "disputed"

// One measurement.
struct StoredRecord {
  int64_t id = 0;            // assigned by the store
  std::string workload_key;  // references a stored workload
  std::string device_key;    // DeviceProfile name, e.g. "cpu-amd-epyc-9b45-2c" or "a100"
  std::string steps;         // StepsToString() sentence
  MeasureResult result;      // error class, phase, message, raw repeat costs, times
  std::string measured_by;   // worker or host name
  int64_t measured_at_unix_ms = 0;  // AddRecords stores 0 as "now"
  int64_t job_id = 0;        // 0: not part of a job (imported, ad hoc)
  int task_index = -1;       // the job's task it was measured for
  // Filled by the store on read (AddVerification sets them):
  Verdict verdict = Verdict::kUnverified;
  int64_t check_record_id = 0;  // the second measurement of this record, if any
  double check_mean_s = 0;      // its mean (0: it failed)
  int64_t verifies_record_id = 0;  // when this record IS a second measurement: of which record
};

// The verdict of a second measurement `check` of `original`'s schedule:
// verified when both are ok and the slower mean is within `tolerance`
// (relative) of the faster; disputed otherwise.
Verdict JudgeVerification(const MeasureResult& original, const MeasureResult& check,
                          double tolerance);

// What a record's schedule is trusted to cost: its mean, or the slower of
// its two measurements once it has a second. A worker that reports a time
// too good to be true thus gets, at best, the other worker's time.
double TrustedCost(const StoredRecord& r);
// May `r` be a best? An ok record that is not itself a second measurement
// and whose second measurement, if any, did not fail.
bool EligibleAsBest(const StoredRecord& r);
// Between two eligible records, is `a` the better best? Verified before
// the rest, then the lower TrustedCost, then the earlier id: a record
// becomes a best only once verified, unless nothing of its task is.
bool BetterBest(const StoredRecord& a, const StoredRecord& b);

// kStopped: interrupted (Ctrl-C, a measurer that could not measure);
// resumable. kCancelled: a user cancelled it; the server does not resume it.
enum class JobStatus { kPending, kRunning, kStopped, kDone, kFailed, kCancelled };
// "pending", "running", "stopped", "done", "failed", "cancelled" (the stored form).
const char* JobStatusName(JobStatus status);
std::optional<JobStatus> ParseJobStatus(std::string_view name);

struct StoredTask {
  int index = 0;  // position within the job
  std::string name;
  std::string workload_key;
  double weight = 1;  // finite, >= 0
};

struct StoredJob {
  int64_t id = 0;  // assigned by the store
  std::string name;
  std::string device_key;
  std::string strategy;  // "random", "evolutionary-xgb", ...
  std::string scheduler; // "gradient" or "round-robin"
  int64_t trial_budget = 0;
  int measures_per_round = 0;
  std::string options_json;  // everything else the job was started with
  JobStatus status = JobStatus::kPending;
  int64_t created_unix_ms = 0;  // CreateJob stores 0 as "now"
  std::vector<StoredTask> tasks;  // tasks[i].index must be i
};

// One point of a job's tuning curve, written after every round.
struct CurvePoint {
  int64_t trials = 0;       // measured programs so far, failures included
  double wall_s = 0;        // job wall time so far (across restarts)
  double estimated_latency_s = 0;  // sum over tasks of weight * best cost
  int task_index = -1;      // the task tuned in this round
  std::vector<double> best_cost_s;  // per task; 0 when none yet
  // Where this round's time went: "search", "train", "build", "run", "db".
  std::string time_breakdown_json;
};

// One RecordsStore may be used from many threads (calls are serialized on
// its connection). Many stores, in this process or others, may open the same
// file: readers proceed while one writer commits (WAL); writers queue for up
// to 5 s (busy timeout) before a call fails with Unavailable.
//
// References are checked like foreign keys, with errors that name what is
// missing: records, jobs and checkpoints need their device, records and
// tasks their workload, records with a job_id their job (and task).
class RecordsStore {
 public:
  // Opens (creating if needed) the database at `path` (":memory:" works for
  // tests), enables WAL, creates or migrates the schema. NotFound when the
  // directory does not exist; FailedPrecondition for a file that is not a
  // SQLite database, another program's database, or a schema version newer
  // than this build knows.
  static absl::StatusOr<std::unique_ptr<RecordsStore>> Open(const std::string& path);
  ~RecordsStore();

  const std::string& path() const;
  int schema_version() const;

  // Workloads: stored once, by key. Re-adding an existing key is a no-op
  // (FailedPrecondition if the stored canonical text differs).
  absl::Status PutWorkload(const ComputeDag& dag, const std::string& description = "");
  // The stored DAG, with the first putter's tensor and axis names when its
  // ToString() parses back (so records replay to the very program measured,
  // names included), else parsed from the canonical text. Either way its
  // WorkloadKey() is `workload_key`. NotFound for an unknown key.
  absl::StatusOr<ComputeDag> GetWorkload(const std::string& workload_key) const;
  // Every stored workload key, sorted.
  absl::StatusOr<std::vector<std::string>> ListWorkloadKeys() const;

  // Devices, stored as DeviceProfile JSON under profile.name. Putting an
  // existing name replaces its profile (a worker may report more fields).
  absl::Status PutDevice(const DeviceProfile& profile);
  absl::StatusOr<DeviceProfile> GetDevice(const std::string& device_key) const;
  // Every stored device key, sorted.
  absl::StatusOr<std::vector<std::string>> ListDeviceKeys() const;

  // Records: the workload and device must exist (NotFound naming the record
  // and the key otherwise), steps must parse, numbers must be finite. Returns
  // the ids, in order. One transaction per call: all or nothing.
  absl::StatusOr<std::vector<int64_t>> AddRecords(const std::vector<StoredRecord>& records);
  // The best record per (workload, device) by BetterBest among the
  // EligibleAsBest ones, or NotFound.
  absl::StatusOr<StoredRecord> BestRecord(const std::string& workload_key,
                                          const std::string& device_key) const;
  // Records of a workload (all devices when device_key is empty), in id order;
  // limit <= 0 means all, otherwise the first `limit`. NotFound for an
  // unknown workload or device.
  absl::StatusOr<std::vector<StoredRecord>> ListRecords(const std::string& workload_key,
                                                        const std::string& device_key = "",
                                                        int64_t limit = 0) const;
  // One record by id, or NotFound.
  absl::StatusOr<StoredRecord> GetRecord(int64_t id) const;
  // Records measured for a job, in id order. NotFound for an unknown job.
  absl::StatusOr<std::vector<StoredRecord>> JobRecords(int64_t job_id) const;
  absl::StatusOr<int64_t> CountRecords() const;

  // Records the second measurement `check` of record `record_id` (same
  // workload, device and steps; stored without job, as it is no trial) and
  // its verdict (JudgeVerification). NotFound for an unknown record;
  // FailedPrecondition if the record is not ok, is itself a check, or
  // `check` measured another schedule; AlreadyExists if it was checked.
  absl::StatusOr<Verdict> AddVerification(int64_t record_id, StoredRecord check,
                                          double tolerance);

  // What removing one worker's records does (or, on a dry run, would do).
  struct PurgeSummary {
    int64_t records = 0;    // records measured_by the worker
    int64_t ok_records = 0;
    int64_t workloads = 0;  // distinct (workload, device) pairs they cover
    // Pairs whose best record is one of them: their best changes (to another
    // worker's record, or to none).
    int64_t bests = 0;
  };
  // Removes every record whose measured_by is `worker_name` (a worker found
  // to report garbage), in one transaction, with the verifications they
  // take part in (a record it checked is unverified again); `dry_run` only
  // counts. An empty name is refused.
  absl::StatusOr<PurgeSummary> PurgeWorkerRecords(const std::string& worker_name, bool dry_run);

  // Jobs.
  absl::StatusOr<int64_t> CreateJob(const StoredJob& job);  // returns the id; tasks included
  absl::StatusOr<StoredJob> GetJob(int64_t job_id) const;
  absl::StatusOr<std::vector<StoredJob>> ListJobs() const;  // in id order
  absl::Status SetJobStatus(int64_t job_id, JobStatus status);
  // Records that belong to no job (imported ones), with ids above
  // `after_record_id`, on the job's device and of one of its tasks'
  // workloads, become the job's (job id and that task's index): how a job
  // recreated from another database gets its records back. Returns how many.
  absl::StatusOr<int64_t> AdoptRecords(int64_t job_id, int64_t after_record_id);
  // The highest record id (0 when there is none): with AdoptRecords, marks
  // where an import begins.
  absl::StatusOr<int64_t> MaxRecordId() const;
  absl::Status AddCurvePoint(int64_t job_id, const CurvePoint& point);
  absl::StatusOr<std::vector<CurvePoint>> GetCurve(int64_t job_id) const;  // in insertion order

  // Workers quarantined for reporting impossible results, by name (a
  // re-registration under the name stays out, across server restarts).
  // Putting a name again replaces its reason.
  absl::Status PutQuarantine(const std::string& worker_name, const std::string& reason);
  absl::Status DeleteQuarantine(const std::string& worker_name);  // absent: OK
  // name -> reason.
  absl::StatusOr<std::vector<std::pair<std::string, std::string>>> ListQuarantined() const;

  // Cost-model checkpoints: opaque blobs by (model name, device key), newest wins.
  absl::Status PutCheckpoint(const std::string& model_name, const std::string& device_key,
                             const std::string& blob, int64_t num_training_records);
  absl::StatusOr<std::string> LatestCheckpoint(const std::string& model_name,
                                               const std::string& device_key) const;

  // JSON lines: one object per record, carrying its workload's canonical and
  // display texts and its device profile so that another database can
  // import it alone (format in json_lines.cc).
  // Job ids are local to a database, so they are not exported; imported
  // records belong to no job. The export is written to "<path>.tmp" and
  // renamed, so a failed export leaves no partial file.
  //
  // Import reads and checks the whole file before writing anything, then
  // adds every new record in one transaction: a malformed line (its number
  // is in the error) imports nothing. Records already present (same
  // workload, device, steps and measured_at) are skipped; the count of added
  // records is returned. Unknown workloads and devices are added; stored
  // device profiles are kept.
  absl::Status ExportJsonLines(const std::string& path, const std::string& workload_key = "") const;
  // The same for a selection: the records of one device (when device_key is
  // set) measured by the given jobs (when job_ids is not empty).
  struct ExportSelection {
    std::string workload_key;
    std::string device_key;
    std::vector<int64_t> job_ids;
  };
  absl::Status ExportJsonLines(const std::string& path, const ExportSelection& selection) const;
  absl::StatusOr<int64_t> ImportJsonLines(const std::string& path);

 private:
  struct Impl;
  explicit RecordsStore(std::unique_ptr<Impl> impl);
  std::unique_ptr<Impl> impl_;
};

}  // namespace pruner

#endif  // PRUNER_COMMON_STORE_RECORDS_STORE_H_
