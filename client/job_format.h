// Text views of the tuning service's replies, as `pruner watch`, `status`,
// `jobs`, `workers` and `best` print them. Pure functions from a message to
// a string, so the layout is tested without a server. The look follows the
// in-process `pruner tune` (tune_command.cc): one line per round, a task
// table every tenth round and at the end.
//
// Replies come from another process, possibly another version: a task index
// that points nowhere or a zero cost prints as "?" or "-", never crashes.
#ifndef PRUNER_CLIENT_JOB_FORMAT_H_
#define PRUNER_CLIENT_JOB_FORMAT_H_

#include <cstdint>
#include <string>

#include "absl/time/time.h"
#include "google/protobuf/map.h"
#include "pruner/v1/admin_service.pb.h"
#include "pruner/v1/tuning_service.pb.h"

namespace pruner {

// "42s", "3m07s", "2h05m"; "-" for a negative or non-finite duration (the
// server has no estimate yet).
std::string FormatDuration(double seconds);

// "0.1234 ms"; "-" when there is no valid measurement (cost <= 0).
std::string FormatLatency(double cost_s);

// GFLOP/s of the task's best program: flops / best_cost_s / 1e9; 0 when the
// task has no result.
double TaskGflops(const v1::TaskInfo& task);

// "build error 3, run timeout 1", ordered by name (proto maps have no
// order); "" when there are none.
std::string FormatErrorCounts(const google::protobuf::Map<std::string, int64_t>& counts);

// "submitted job 7 (8 tasks, target cpu-...)".
std::string FormatSubmitted(const v1::JobInfo& job);

// A few lines: name, status, target, strategy, trials of budget, estimated
// latency, elapsed, ETA, candidates in flight, errors and the server's
// message. Ends with a newline.
std::string FormatJobSummary(const v1::JobInfo& job);

// One row per task: index, name, weight, trials, best latency, GFLOP/s,
// errors. Tasks without a result show "-".
std::string FormatTaskTable(const v1::JobInfo& job);

// The line(s) for one WatchJob event: the starting snapshot (round 0) as a
// one-line summary; a round as "round R  task T NAME  +M (K ok)  trials
// x/budget  best ...  est. total ...  elapsed ...  ETA ...  errors ...",
// then where the round's time went (when the event says) and the round's
// first failure when there was one. Ends with a newline. `pruner tune`
// prints its rounds through this too.
std::string FormatProgressEvent(const v1::ProgressEvent& event);

// `pruner jobs`: id, name, status, target, strategy, trials/budget,
// estimated latency, creation time in `zone`.
std::string FormatJobList(const v1::ListJobsReply& reply, absl::TimeZone zone);

// `pruner workers`: name, device key, description, slots, active leases,
// measured candidates and the age of the last heartbeat at `now_unix_ms`.
std::string FormatWorkerTable(const v1::ListWorkersReply& reply, int64_t now_unix_ms);

// `pruner best JOB`: per task its best latency, GFLOP/s and sentence.
std::string FormatBestRecords(const v1::BestRecordsReply& reply);

// What purging a worker's records removed, or on a dry run would remove:
// "worker 'w': 12 records (10 ok) over 3 workloads; 2 bests change".
std::string FormatPurge(const std::string& worker_name, const v1::PurgeWorkerRecordsReply& reply);

}  // namespace pruner

#endif  // PRUNER_CLIENT_JOB_FORMAT_H_
