#include "bench/service/load_report.h"

#include <cstdio>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_format.h"

namespace pruner::bench {

void PrintLevelTables(const std::vector<LevelResult>& levels, double seconds, double warmup_s,
                      double measure_ms) {
  std::printf(
      "\nIngest and dispatch (steady-state window of %.0f s after %.0f s warm-up; "
      "workers simulated, %.1f ms of synthetic 'measurement' per candidate):\n",
      seconds, warmup_s, measure_ms);
  std::printf("%7s %5s %10s %10s %8s %9s %9s %9s %9s %9s %9s %7s %5s %4s %6s %7s\n", "workers",
              "reg", "results/s", "completed/s", "leases", "disp p50", "disp p99", "disp max",
              "rep p50", "rep p99", "q-wait", "queued", "dry%", "dup", "errors", "expired");
  for (const LevelResult& r : levels) {
    std::printf(
        "%7d %5d %10.0f %10.0f %8lld %7.2fms %7.2fms %7.1fms %7.2fms %7.2fms %7.2fms "
        "%7.0f %4.0f%% %4lld %6lld %7lld\n",
        r.workers, r.registered, r.results_per_s, r.completed_per_s,
        static_cast<long long>(r.leases), r.dispatch_p50_ms, r.dispatch_p99_ms, r.dispatch_max_ms,
        r.report_p50_ms, r.report_p99_ms, r.rounds.queue_wait_ms, r.queued_mean,
        100 * r.dry_fraction, static_cast<long long>(r.duplicates),
        static_cast<long long>(r.rpc_errors), static_cast<long long>(r.expired_leases));
  }
  std::printf(
      "\nWhere the job threads' rounds went (means per round over the watched jobs' "
      "rounds that ended in the window) and what the process used:\n");
  std::printf("%7s %7s %9s %10s %8s %8s %8s %8s %9s %8s %15s %9s %9s %8s\n", "workers", "rounds",
              "search", "measure", "db", "cpu", "sys", "sim cpu", "ctxsw/s", "threads", "RSS",
              "VmSize", "register", "others");
  for (const LevelResult& r : levels) {
    std::printf(
        "%7d %7lld %7.1fms %8.1fms %6.1fms %6.2f c %6.2f c %6.2f c %9.0f %8d "
        "%4.0f(%4.0f)MiB %6.1fGiB %7.2fs %4.2f c\n",
        r.workers, static_cast<long long>(r.rounds.rounds), r.rounds.search_ms, r.rounds.measure_ms,
        r.rounds.db_ms, r.cpu_cores, r.system_cores, r.sim_cpu_cores, r.context_switches_per_s,
        r.threads_peak, r.rss_peak_mib, r.rss_before_mib, r.vm_peak_mib / 1024, r.start_s,
        r.others_cores);
  }
  std::printf(
      "\nColumns:\n"
      "  results/s    rows added to the records table per second, between the first and the\n"
      "               last growth seen in the window (counted every 200 ms): a job writes a\n"
      "               round's results at once, and round-robin dispatch makes the jobs'\n"
      "               rounds end together, so the table grows in steps\n"
      "  completed/s  results the dispatcher accepted per second (differs from results/s by\n"
      "               the rounds in flight at the window's ends)\n"
      "  disp         LeaseBatch round trip of the calls that returned work, as the simulated\n"
      "               workers saw it; includes waiting for work when the queue is dry\n"
      "  rep          ReportResults round trip\n"
      "  q-wait       the dispatcher's enqueue-to-lease time, mean per candidate (watched jobs)\n"
      "  queued/dry%%  candidates waiting (100 ms samples): mean, and share of samples with none\n"
      "  dup/errors/expired  over the whole level: duplicate results, failed RPCs, leases the\n"
      "               server expired\n"
      "  rounds       rounds of the watched jobs that ended in the window\n"
      "  search/measure/db  a job round's proposing, submit-to-last-result, records write\n"
      "               (db includes waiting for the store's one connection behind other jobs)\n"
      "  cpu/sys      this whole process (server, jobs, simulated workers) / of which kernel\n"
      "  sim cpu      the simulated workers' own threads (what gRPC does for them on its own\n"
      "               threads is not in it; real workers run elsewhere)\n"
      "  ctxsw/s      the process's context switches\n"
      "  threads      peak: the fleet's (--drivers, or W with --drivers 0) + the server's gRPC\n"
      "               threads (about one per waiting long poll) + ~45 at rest\n"
      "  RSS          peak during the level (before it started)\n"
      "  register     until all W workers registered\n"
      "  others       CPU the machine's other tenants took in the window (/proc/stat busy time\n"
      "               minus this process's); above ~0.3 c the rates are below an idle machine's\n");
  for (const LevelResult& r : levels) {
    if (r.rpc_error_kinds.empty() && r.reregistered == 0 && r.report_unknown == 0 &&
        r.given_up == 0) {
      continue;
    }
    std::printf("W=%d:", r.workers);
    for (const auto& [what, n] : r.rpc_error_kinds) {
      std::printf(" %s=%lld", what.c_str(), static_cast<long long>(n));
    }
    std::printf(" reregistered=%lld report_unknown=%lld requeued=%lld given_up=%lld\n",
                static_cast<long long>(r.reregistered), static_cast<long long>(r.report_unknown),
                static_cast<long long>(r.requeued), static_cast<long long>(r.given_up));
  }
}

std::string ResultLine(const std::vector<LevelResult>& levels, int64_t duplicates, int64_t errors,
                       double rss_peak_mib, double wall_s) {
  std::string line = "RESULT service_load sim=1";
  for (const LevelResult& r : levels) {
    absl::StrAppend(&line, absl::StrFormat(" w%d_results_per_s=%.0f w%d_dispatch_p50_ms=%.2f "
                                           "w%d_dispatch_p99_ms=%.2f",
                                           r.workers, r.results_per_s, r.workers, r.dispatch_p50_ms,
                                           r.workers, r.dispatch_p99_ms));
  }
  absl::StrAppend(&line, absl::StrFormat(" duplicates=%d errors=%d rss_peak_mib=%.0f wall_s=%.1f",
                                         duplicates, errors, rss_peak_mib, wall_s));
  return line;
}

}  // namespace pruner::bench
