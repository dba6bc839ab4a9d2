// One load level of the service benchmark: W simulated workers against the
// running server, a warm-up, a steady-state window, a clean stop. Everything
// rate-like is counted inside the window only, so the fleet's start (a
// thousand registrations) and stop (the last long polls running out) do not
// dilute it; what must never happen (duplicates, errors, expired leases) is
// counted over the whole level.
#ifndef PRUNER_BENCH_SERVICE_LOAD_LEVEL_H_
#define PRUNER_BENCH_SERVICE_LOAD_LEVEL_H_

#include <cstdint>
#include <map>
#include <string>
#include <vector>

#include "bench/service/job_watcher.h"
#include "bench/service/sim_fleet.h"
#include "common/store/records_store.h"
#include "server/pruner_server.h"

namespace pruner::bench {

struct LevelSettings {
  FleetSettings fleet;
  double warmup_s = 1;
  double seconds = 10;
  // The window ends early when the process's RSS passes this (0: no cap).
  // The jobs keep ~10 KiB per measured candidate, and at thousands of
  // results a second a long window would outgrow the shared machine.
  double max_rss_mib = 0;
};

struct LevelResult {
  int workers = 0;
  int registered = 0;
  double start_s = 0;          // fleet start until every worker registered
  double register_p50_ms = 0;  // one Register call
  double register_max_ms = 0;
  double window_s = 0;
  // Ingest, in the window.
  int64_t db_records = 0;    // new rows in the records table
  double results_per_s = 0;  // growth of the table (StepwiseRate)
  int64_t completed = 0;     // dispatcher: first results accepted
  double completed_per_s = 0;
  // Dispatch, in the window: non-empty LeaseBatch calls as the workers saw them.
  int64_t leases = 0;
  double dispatch_p50_ms = 0;
  double dispatch_p99_ms = 0;
  double dispatch_max_ms = 0;
  double report_p50_ms = 0;  // ReportResults round trips in the window
  double report_p99_ms = 0;
  int64_t empty_polls = 0;  // whole level
  RoundStats rounds;        // the jobs' rounds that ended in the window
  double queued_mean = 0;   // candidates waiting, sampled every 100 ms
  double dry_fraction = 0;  // share of samples with nothing queued
  // Whole level.
  int64_t duplicates = 0;         // dispatcher counter delta
  int64_t report_duplicates = 0;  // as ReportReply said
  int64_t report_unknown = 0;
  int64_t expired_leases = 0;
  int64_t requeued = 0;
  int64_t given_up = 0;
  int64_t heartbeats = 0;
  int64_t reregistered = 0;
  int64_t rpc_errors = 0;
  std::map<std::string, int64_t> rpc_error_kinds;
  // This process in the window (server, jobs and simulated workers together).
  double cpu_cores = 0;      // CPU seconds / window seconds
  double system_cores = 0;   // of which in the kernel
  double sim_cpu_cores = 0;  // of which the simulated workers' own threads
  double context_switches_per_s = 0;
  int threads_peak = 0;
  double rss_before_mib = 0;  // before the fleet started (jobs' state grows too)
  double rss_peak_mib = 0;
  double vm_peak_mib = 0;
  double others_cores = 0;   // the rest of the machine's busy time: other tenants
  double stop_s = 0;         // asking the fleet to stop until every thread ended
  bool over_memory = false;  // the window was cut short by max_rss_mib
};

// `reader` is a second store on the server's database (counting records);
// `watcher` follows the jobs that feed the queue.
LevelResult RunLevel(PrunerServer& server, const RecordsStore& reader, const JobWatcher& watcher,
                     const LevelSettings& settings);

}  // namespace pruner::bench

#endif  // PRUNER_BENCH_SERVICE_LOAD_LEVEL_H_
