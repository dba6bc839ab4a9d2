// The benchmark's output: the two per-level tables with their legend, and
// the RESULT line scripts read. Every figure comes from simulated workers,
// and the text says so.
#ifndef PRUNER_BENCH_SERVICE_LOAD_REPORT_H_
#define PRUNER_BENCH_SERVICE_LOAD_REPORT_H_

#include <cstdint>
#include <string>
#include <vector>

#include "bench/service/load_level.h"

namespace pruner::bench {

// Ingest and dispatch; the job rounds and the process; the legend; then
// the kinds of errors of any level that had some.
void PrintLevelTables(const std::vector<LevelResult>& levels, double seconds, double warmup_s,
                      double measure_ms);

// "RESULT service_load sim=1 w10_results_per_s=... w10_dispatch_p50_ms=...
// w10_dispatch_p99_ms=... (each level) duplicates=... errors=...
// rss_peak_mib=... wall_s=...". sim=1 marks every number as coming from
// simulated workers.
std::string ResultLine(const std::vector<LevelResult>& levels, int64_t duplicates, int64_t errors,
                       double rss_peak_mib, double wall_s);

}  // namespace pruner::bench

#endif  // PRUNER_BENCH_SERVICE_LOAD_REPORT_H_
