// Everything a WorkerDaemon needs to know besides its device. worker_main.cc
// fills it from flags and environment; the tests fill it directly, with
// shorter timeouts.
#ifndef PRUNER_WORKER_WORKER_OPTIONS_H_
#define PRUNER_WORKER_WORKER_OPTIONS_H_

#include <chrono>
#include <string>

#include "absl/status/status.h"
#include "common/codegen/cpu_compiler.h"
#include "proto/rpc_credentials.h"
#include "worker/backoff.h"

namespace pruner {

// Sent with Register, so that the server can tell workers of different
// builds apart.
inline constexpr char kWorkerVersion[] = "pruner-worker/1";

struct WorkerOptions {
  std::string server_address = "127.0.0.1:7070";
  ClientSecurity security;
  // Unique per worker process; "" means DefaultWorkerName(host, device key).
  std::string name;
  // "" means this machine's host name.
  std::string host;
  // Leases held at once; each slot is one thread running the lease loop.
  int slots = 1;
  int max_candidates = 8;  // per lease
  int wait_ms = 5000;      // long poll of LeaseBatch
  int build_jobs = 2;      // compilers per slot at once
  // CPU kernels: backend, and for g++ builds the compiler and -march
  // (--cpu-backend, --cxx, --march).
  CpuBuildOptions cpu_build;
  // Where kernels are built; slot i uses <work_dir>/slot-<i>. "" gives each
  // batch a fresh directory under $TMPDIR, removed after the batch.
  std::string work_dir;
  std::string version = kWorkerVersion;

  BackoffPolicy backoff;
  // Deadline of Register and Heartbeat; LeaseBatch gets wait_ms on top.
  std::chrono::milliseconds rpc_timeout{5000};
  std::chrono::milliseconds report_timeout{10000};
  // Finished results the server has not answered for are re-sent until it
  // does, or until they are this old (the server has long re-queued them).
  std::chrono::milliseconds result_retention{std::chrono::minutes(10)};
  // After Stop(): the budget of the last reports (a partial batch, results
  // still waiting), so that stopping never hangs on a dead server.
  std::chrono::milliseconds stop_report_timeout{2000};
};

// InvalidArgument naming the flag for out-of-range values.
absl::Status ValidateWorkerOptions(const WorkerOptions& options);

// "<host>/<device key>/<pid>": unique per process, readable in
// `pruner workers`.
std::string DefaultWorkerName(const std::string& host, const std::string& device_key);

// gethostname(), or "localhost" if that fails.
std::string LocalHostName();

}  // namespace pruner

#endif  // PRUNER_WORKER_WORKER_OPTIONS_H_
