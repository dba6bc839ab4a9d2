// A scripted WorkerService for the daemon tests: a real gRPC server on
// 127.0.0.1 that records every call, hands out the leases a test queued,
// answers heartbeats as told (forget the worker, revoke a lease), and checks
// a bearer token when it has one. It keeps no state beyond what the tests
// look at: it is the smallest server that exercises the worker's side of
// the protocol, not a model of the real one.
#ifndef PRUNER_TESTS_WORKER_FAKE_WORKER_SERVICE_H_
#define PRUNER_TESTS_WORKER_FAKE_WORKER_SERVICE_H_

#include <chrono>
#include <condition_variable>
#include <deque>
#include <functional>
#include <memory>
#include <mutex>
#include <set>
#include <string>
#include <vector>

#include "grpcpp/grpcpp.h"
#include "pruner/v1/worker_service.grpc.pb.h"

namespace pruner {

struct FakeServiceConfig {
  std::string token;  // "" accepts every call
  int heartbeat_interval_ms = 100;
  int lease_timeout_ms = 3000;
  std::string id_prefix = "worker-";  // tells two server lifetimes apart
};

class FakeWorkerService final : public v1::WorkerService::Service {
 public:
  explicit FakeWorkerService(FakeServiceConfig config) : config_(std::move(config)) {}

  // Scripting.
  void AddLease(v1::Lease lease);
  // The next heartbeat is answered known=false, and the worker is forgotten.
  void ForgetWorkersAtNextHeartbeat();
  // A heartbeat listing `lease_id` gets it back in revoked_lease_ids.
  void RevokeLease(const std::string& lease_id);
  // Wakes pending long polls so that a shutdown does not wait for them.
  void StopLongPolls();

  // What was received, in order.
  std::vector<v1::RegisterRequest> registers() const;
  std::vector<std::string> issued_worker_ids() const;
  std::vector<v1::HeartbeatRequest> heartbeats() const;
  std::vector<v1::Lease> leases_served() const;
  std::vector<v1::ReportRequest> reports() const;
  int refused_calls() const;  // calls without the right token

  grpc::Status Register(grpc::ServerContext* context, const v1::RegisterRequest* request,
                        v1::RegisterReply* reply) override;
  grpc::Status Heartbeat(grpc::ServerContext* context, const v1::HeartbeatRequest* request,
                         v1::HeartbeatReply* reply) override;
  grpc::Status LeaseBatch(grpc::ServerContext* context, const v1::LeaseRequest* request,
                          v1::Lease* reply) override;
  grpc::Status ReportResults(grpc::ServerContext* context, const v1::ReportRequest* request,
                             v1::ReportReply* reply) override;

 private:
  grpc::Status Authenticate(const grpc::ServerContext& context);

  const FakeServiceConfig config_;
  mutable std::mutex mu_;
  std::condition_variable lease_added_;
  std::deque<v1::Lease> queued_;
  std::set<std::string> known_workers_;
  std::set<std::string> revoked_;
  std::set<std::string> reported_ids_;  // measurement ids, for duplicates
  bool forget_at_next_heartbeat_ = false;
  bool long_polls_stopped_ = false;
  int next_worker_ = 1;
  int refused_ = 0;
  std::vector<v1::RegisterRequest> registers_;
  std::vector<std::string> issued_ids_;
  std::vector<v1::HeartbeatRequest> heartbeats_;
  std::vector<v1::Lease> served_;
  std::vector<v1::ReportRequest> reports_;
};

// The service behind a started grpc::Server.
class FakeServer {
 public:
  // Listens on 127.0.0.1:`port` (0: a free port) with `credentials`
  // (nullptr: plaintext); nullptr if binding failed.
  static std::unique_ptr<FakeServer> Start(
      FakeServiceConfig config, int port = 0,
      std::shared_ptr<grpc::ServerCredentials> credentials = nullptr);
  ~FakeServer();

  FakeWorkerService& service() { return *service_; }
  int port() const { return port_; }
  std::string address() const;
  // Stops serving (pending calls are cancelled); the port is free afterwards.
  void Stop();

 private:
  FakeServer() = default;
  std::unique_ptr<FakeWorkerService> service_;
  std::unique_ptr<grpc::Server> server_;
  int port_ = 0;
};

// Polls `condition` every 10 ms until it holds or `timeout` passes.
bool WaitUntil(const std::function<bool()>& condition, std::chrono::milliseconds timeout);

}  // namespace pruner

#endif  // PRUNER_TESTS_WORKER_FAKE_WORKER_SERVICE_H_
