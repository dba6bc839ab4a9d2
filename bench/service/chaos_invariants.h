// What must hold after a chaos soak, read from the records database alone:
// every job finished with exactly its budget of records, no schedule of a
// task recorded twice, no lost lease recorded as the program's failure
// (phase "dispatch"), no impossible time stored, and SQLite's own
// integrity check passes.
#ifndef PRUNER_BENCH_SERVICE_CHAOS_INVARIANTS_H_
#define PRUNER_BENCH_SERVICE_CHAOS_INVARIANTS_H_

#include <cstdint>
#include <string>
#include <vector>

#include "absl/status/statusor.h"

namespace pruner::chaos {

struct SoakInvariants {
  int64_t jobs = 0;
  int64_t unfinished = 0;          // not "done"
  int64_t records = 0;             // of the jobs (trials)
  int64_t records_lost = 0;        // budget minus records, over finished jobs
  int64_t extra_records = 0;       // records beyond a job's budget
  int64_t duplicates = 0;          // (task, schedule) recorded twice in a job
  int64_t dispatch_failures = 0;   // candidates given up as run errors after lost leases
  int64_t implausible_stored = 0;  // ok records with an impossible time
  int64_t second_measurements = 0;
  int64_t disputed = 0;
  std::string integrity;           // "ok", or what PRAGMA integrity_check said

  bool Hold() const {
    return unfinished == 0 && records_lost == 0 && extra_records == 0 && duplicates == 0 &&
           dispatch_failures == 0 && implausible_stored == 0 && integrity == "ok";
  }
};

// `run_timeout_s`: no ok time may exceed it.
absl::StatusOr<SoakInvariants> CheckSoakInvariants(const std::string& db_path,
                                                   const std::vector<int64_t>& job_ids,
                                                   double run_timeout_s);

}  // namespace pruner::chaos

#endif  // PRUNER_BENCH_SERVICE_CHAOS_INVARIANTS_H_
