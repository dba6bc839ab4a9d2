// A local farm for end-to-end tests and the chaos soak: the real
// pruner-server and pruner-worker binaries as child processes on 127.0.0.1,
// a token, a temporary database, and gRPC stubs to talk to the server as a
// client or as a hand-driven worker. Processes can be killed, stopped and
// continued with any signal, which is what the fault tests and the chaos
// driver do.
#ifndef PRUNER_BENCH_SERVICE_LOCAL_FARM_H_
#define PRUNER_BENCH_SERVICE_LOCAL_FARM_H_

#include <sys/types.h>

#include <chrono>
#include <functional>
#include <memory>
#include <string>
#include <vector>

#include "grpcpp/grpcpp.h"
#include "pruner/v1/admin_service.grpc.pb.h"
#include "pruner/v1/tuning_service.grpc.pb.h"
#include "pruner/v1/worker_service.grpc.pb.h"

namespace pruner::e2e {

struct Process {
  pid_t pid = -1;
  std::string log_path;
};

struct FarmOptions {
  int lease_timeout_ms = 2000;
  int heartbeat_ms = 200;
  int max_running_jobs = 4;
  int max_pending_jobs = 64;
  int max_attempts = 3;  // leases a candidate may lose before it is given up
  bool token = true;
  // Text of a credentials file (server/access_control.h): when set, the
  // server takes per-role tokens from it instead of the one shared token.
  std::string credentials;
};

class Farm {
 public:
  explicit Farm(FarmOptions options = {});
  ~Farm();  // kills every process it started

  // Starts the server (on `port`, 0: any) and waits until it listens.
  // Returns false (with the log tail in *error) if it did not come up.
  bool StartServer(int port, std::string* error);
  // Starts a worker against the server; extra flags are appended.
  Process StartWorker(const std::string& name, const std::vector<std::string>& extra = {},
                      bool with_token = true);
  // The same with another worker program, or one run through a launcher:
  // `command` is the program and its first arguments (e.g. qemu-aarch64-static,
  // -L, /usr/aarch64-linux-gnu, an Arm build of pruner-worker).
  Process StartWorkerCommand(const std::string& name, const std::vector<std::string>& command,
                             const std::vector<std::string>& extra = {}, bool with_token = true);
  // Sends `signal` and reaps; returns the exit status as waitpid reports it.
  int Kill(Process& process, int signal);
  int KillServer(int signal) { return Kill(server_, signal); }
  // Sends `signal` without waiting (SIGSTOP, SIGCONT: a hung host).
  static void Signal(const Process& process, int signal);
  // Waits for a process to exit by itself (up to `timeout`); -1 if it did not.
  int WaitExit(Process& process, std::chrono::milliseconds timeout);

  int port() const { return port_; }
  std::string address() const;
  const std::string& dir() const { return dir_; }
  std::string db_path() const { return dir_ + "/records.db"; }
  const std::string& token() const { return token_; }
  std::string token_file() const { return dir_ + "/token"; }
  std::string credentials_file() const { return dir_ + "/credentials"; }
  // Writes `token` to <dir>/<name>.token (mode 0600); returns its path.
  std::string WriteTokenFile(const std::string& name, const std::string& token) const;
  std::string Log(const Process& process) const;
  std::string ServerLog() const { return Log(server_); }

  std::unique_ptr<v1::TuningService::Stub> Client() const;
  std::unique_ptr<v1::WorkerService::Stub> WorkerStub() const;
  std::unique_ptr<v1::AdminService::Stub> AdminStub() const;
  // A context with a deadline and (optionally) the bearer token.
  std::unique_ptr<grpc::ClientContext> Context(std::chrono::milliseconds deadline,
                                               bool with_token = true) const;
  // The same with another token (a role's own).
  std::unique_ptr<grpc::ClientContext> ContextWithToken(std::chrono::milliseconds deadline,
                                                        const std::string& token) const;

  // Polls `done` every 50 ms for up to `timeout`.
  static bool WaitFor(const std::function<bool()>& done, std::chrono::milliseconds timeout);

 private:
  Process Spawn(const std::string& binary, const std::vector<std::string>& args,
                const std::string& log_name);

  FarmOptions options_;
  std::string dir_;
  std::string token_;
  int port_ = 0;
  Process server_;
  std::vector<Process> workers_;
};

// A job spec small enough to finish in seconds: `ops` on the farm's CPU.
v1::JobSpec SmallJob(const std::string& target, const std::vector<std::string>& ops,
                     int64_t budget, int per_round, const std::string& strategy = "random");

}  // namespace pruner::e2e

#endif  // PRUNER_BENCH_SERVICE_LOCAL_FARM_H_
