// One scheduler server: the records database, the dispatcher, the jobs and
// the three gRPC services on one port, with reflection on so that standard
// gRPC tools (grpcurl, grpc_cli) can list and call it. The binary
// (server_main.cc) and the end-to-end tests both start it through here.
#ifndef PRUNER_SERVER_PRUNER_SERVER_H_
#define PRUNER_SERVER_PRUNER_SERVER_H_

#include <memory>
#include <string>

#include "absl/status/statusor.h"
#include "proto/rpc_credentials.h"
#include "server/dispatcher.h"
#include "server/job_manager.h"

namespace pruner {

struct ServerOptions {
  std::string listen = "127.0.0.1:7070";  // port 0: pick a free one
  std::string db = "pruner.db";
  ServerSecurity security;
  DispatcherOptions dispatcher;
  JobManagerOptions jobs;
};

class PrunerServer {
 public:
  // Opens the database, resumes unfinished jobs and starts serving.
  static absl::StatusOr<std::unique_ptr<PrunerServer>> Start(const ServerOptions& options);
  ~PrunerServer();  // Shutdown()

  int port() const;
  // "127.0.0.1:<port>" (the listen host with the selected port).
  std::string address() const;
  int resumed_jobs() const;
  // Who may call: "no token", "shared token required", or the credentials
  // file with its counts per role.
  std::string access_description() const;

  // Blocks until Shutdown() is called (from another thread).
  void Wait();
  // Stops the jobs (they stay pending in the database), ends open streams
  // and stops serving. Idempotent.
  void Shutdown();

  JobManager& jobs();
  Dispatcher& dispatcher();

 private:
  struct Impl;
  explicit PrunerServer(std::unique_ptr<Impl> impl);
  std::unique_ptr<Impl> impl_;
};

}  // namespace pruner

#endif  // PRUNER_SERVER_PRUNER_SERVER_H_
