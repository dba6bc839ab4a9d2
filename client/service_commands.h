// The `pruner` commands that talk to the tuning service over gRPC: submit,
// watch, status, cancel, jobs, workers, best and export. The command-line
// parsing lives in service_cli.h; these take parsed flags and streams so
// that tests call them against an in-process server and read what they
// print.
//
// Exit codes: 0 success; 1 a watched job ended failed or cancelled; 2 a
// usage error, an unreachable server or a refused call; 130 the user
// stopped watching (Ctrl-C) and the job's outcome is unknown. Errors go to
// `err` as "error: <message>" with a hint when there is one
// (service_connection.h).
#ifndef PRUNER_CLIENT_SERVICE_COMMANDS_H_
#define PRUNER_CLIENT_SERVICE_COMMANDS_H_

#include <atomic>
#include <cstdint>
#include <ostream>
#include <string>

#include "client/job_source.h"
#include "client/service_connection.h"
#include "client/submit_spec.h"

namespace pruner {

inline constexpr int kExitOk = 0;
inline constexpr int kExitJobFailed = 1;
inline constexpr int kExitRefused = 2;
inline constexpr int kExitInterrupted = 130;  // 128 + SIGINT, as shells report it

// Where a command's output goes.
struct CommandStreams {
  std::ostream& out;
  std::ostream& err;
};

// SubmitJob, then "submitted job N (T tasks, target X)"; with flags.watch,
// continues as RunWatch. `stop` (may be null) is RunWatch's.
int RunSubmit(const ServiceFlags& service, const SubmitFlags& flags, CommandStreams io,
              const std::atomic<bool>* stop = nullptr);

// Follows WatchJob until the job ends: one line per round, the task table
// every tenth round and at the end. Exit 0 when the job is done, 1 when it
// failed or was cancelled. When `stop` becomes true (Ctrl-C) the call is
// cancelled and only the watching stops: the job keeps running on the
// server.
int RunWatch(const ServiceFlags& service, int64_t job_id, CommandStreams io,
             const std::atomic<bool>* stop = nullptr);

int RunCancelJob(const ServiceFlags& service, int64_t job_id, CommandStreams io);
int RunListWorkers(const ServiceFlags& service, CommandStreams io);

// AdminService (an admin credential): remove a worker's records on the
// server's database (dry_run: only count them); lift a worker's quarantine.
int RunPurgeWorker(const ServiceFlags& service, const std::string& worker_name, bool dry_run,
                   CommandStreams io);
int RunReleaseWorker(const ServiceFlags& service, const std::string& worker_name,
                     CommandStreams io);

// What a client reads of jobs, from any JobSource (the server or a local
// database, job_source.h), printed alike: as tables, or as one JSON object
// when `json`.
int RunJobStatus(JobSource& source, int64_t job_id, bool json, CommandStreams io);
int RunListJobs(JobSource& source, bool json, CommandStreams io);
int RunBestRecords(JobSource& source, int64_t job_id, bool json, CommandStreams io);
// Writes the exported files under `out_dir` (see export_writer.h).
int RunExportJob(JobSource& source, int64_t job_id, const std::string& out_dir, bool json,
                 CommandStreams io);

// The same against the server at `service`.
int RunJobStatus(const ServiceFlags& service, int64_t job_id, CommandStreams io);
int RunListJobs(const ServiceFlags& service, CommandStreams io);
int RunBestRecords(const ServiceFlags& service, int64_t job_id, CommandStreams io);
int RunExportJob(const ServiceFlags& service, int64_t job_id, const std::string& out_dir,
                 CommandStreams io);

}  // namespace pruner

#endif  // PRUNER_CLIENT_SERVICE_COMMANDS_H_
