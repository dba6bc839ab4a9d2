// A finished run's curve as JSON, so that bench_search_efficiency can stop
// and go on (--state-dir): every run that ended is kept in the state
// directory, and a restarted benchmark reads it back instead of tuning it
// again. Everything the report reads is kept: the round points (wall time,
// trials, best-so-far per task, round times, search counters, the
// draft-verify statistics) and every improvement's sentence and time.
#ifndef PRUNER_BENCH_SEARCH_EFFICIENCY_RUN_TRACE_JSON_H_
#define PRUNER_BENCH_SEARCH_EFFICIENCY_RUN_TRACE_JSON_H_

#include <string>

#include "absl/status/statusor.h"
#include "bench/search_efficiency/tuning_run.h"

namespace pruner::bench {

std::string RunTraceToJson(const RunTrace& run);
// InvalidArgument for text that is not a RunTrace written by RunTraceToJson.
absl::StatusOr<RunTrace> RunTraceFromJson(const std::string& text);

// The whole text of a state directory's file ("" when it cannot be read).
std::string ReadStateFile(const std::string& path);

}  // namespace pruner::bench

#endif  // PRUNER_BENCH_SEARCH_EFFICIENCY_RUN_TRACE_JSON_H_
