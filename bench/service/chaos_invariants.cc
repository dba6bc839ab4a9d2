#include "bench/service/chaos_invariants.h"

#include <cmath>
#include <map>
#include <set>
#include <utility>

#include "common/base/status_macros.h"
#include "common/store/records_store.h"
#include "common/store/sqlite_db.h"

namespace pruner::chaos {
namespace {

// The same margin as the server's plausibility check
// (server/result_plausibility.h): nothing stored may be faster than twice
// the device's peak.
constexpr double kPeakMargin = 2.0;

absl::StatusOr<std::string> IntegrityCheck(const std::string& db_path) {
  PRUNER_ASSIGN_OR_RETURN(auto db, store_internal::SqliteDb::Open(db_path, 5000));
  PRUNER_ASSIGN_OR_RETURN(auto check, db->Prepare("PRAGMA integrity_check"));
  std::string said;
  while (true) {
    PRUNER_ASSIGN_OR_RETURN(bool row, check.Step());
    if (!row) break;
    if (!said.empty()) said += "; ";
    said += check.Text(0);
  }
  return said;
}

}  // namespace

absl::StatusOr<SoakInvariants> CheckSoakInvariants(const std::string& db_path,
                                                   const std::vector<int64_t>& job_ids,
                                                   double run_timeout_s) {
  SoakInvariants out;
  PRUNER_ASSIGN_OR_RETURN(auto store, RecordsStore::Open(db_path));
  std::map<std::string, double> flops;  // by workload
  for (int64_t id : job_ids) {
    PRUNER_ASSIGN_OR_RETURN(StoredJob job, store->GetJob(id));
    PRUNER_ASSIGN_OR_RETURN(std::vector<StoredRecord> records, store->JobRecords(id));
    PRUNER_ASSIGN_OR_RETURN(DeviceProfile device, store->GetDevice(job.device_key));
    ++out.jobs;
    out.records += static_cast<int64_t>(records.size());
    const int64_t n = static_cast<int64_t>(records.size());
    if (job.status != JobStatus::kDone) {
      ++out.unfinished;
    } else if (n < job.trial_budget) {
      out.records_lost += job.trial_budget - n;
    }
    if (n > job.trial_budget) out.extra_records += n - job.trial_budget;
    std::set<std::pair<int, std::string>> seen;
    for (const StoredRecord& r : records) {
      if (!seen.emplace(r.task_index, r.steps).second) ++out.duplicates;
      if (r.result.phase == "dispatch") ++out.dispatch_failures;
      if (r.check_record_id != 0) ++out.second_measurements;
      if (r.verdict == Verdict::kDisputed) ++out.disputed;
      if (!r.result.ok()) continue;
      auto f = flops.find(r.workload_key);
      if (f == flops.end()) {
        PRUNER_ASSIGN_OR_RETURN(ComputeDag dag, store->GetWorkload(r.workload_key));
        f = flops.emplace(r.workload_key, dag.FlopCount()).first;
      }
      const double t = r.result.mean_s;
      const bool impossible =
          !std::isfinite(t) || t <= 0 || t > run_timeout_s ||
          (device.peak_gflops > 0 && f->second / t / 1e9 > kPeakMargin * device.peak_gflops);
      if (impossible) ++out.implausible_stored;
    }
  }
  PRUNER_ASSIGN_OR_RETURN(out.integrity, IntegrityCheck(db_path));
  return out;
}

}  // namespace pruner::chaos
