// The four WorkerService calls, each with a deadline and the bearer token.
//
// Two things the daemon needs beyond a plain stub:
// - Stopping must not wait out a 5-second long poll: Shutdown cancels every
//   call in flight and refuses later long polls at once. Other calls still
//   run afterwards, so a stopping worker can send its last reports.
// - gRPC's channel has its own reconnect backoff that grows to two minutes;
//   a worker whose server was down for a while would keep failing fast long
//   after the server came back. Between its own retries the daemon restarts
//   that backoff (ResetConnectBackoff) and waits for the channel to connect
//   (WaitForConnected) instead of sleeping blindly.
#ifndef PRUNER_WORKER_WORKER_RPC_CLIENT_H_
#define PRUNER_WORKER_WORKER_RPC_CLIENT_H_

#include <chrono>
#include <memory>
#include <mutex>
#include <set>
#include <string>

#include "absl/status/statusor.h"
#include "grpcpp/grpcpp.h"
#include "proto/rpc_credentials.h"
#include "pruner/v1/worker_service.grpc.pb.h"

namespace pruner {

class WorkerRpcClient {
 public:
  // Fails only on unusable settings (an unreadable CA file); the server
  // need not be up.
  static absl::StatusOr<std::unique_ptr<WorkerRpcClient>> Connect(const std::string& address,
                                                                  const ClientSecurity& security);

  grpc::Status Register(const v1::RegisterRequest& request, v1::RegisterReply* reply,
                        std::chrono::milliseconds timeout);
  grpc::Status Heartbeat(const v1::HeartbeatRequest& request, v1::HeartbeatReply* reply,
                         std::chrono::milliseconds timeout);
  // The deadline is the long poll (request.wait_ms) plus `margin`.
  grpc::Status LeaseBatch(const v1::LeaseRequest& request, v1::Lease* reply,
                          std::chrono::milliseconds margin);
  grpc::Status ReportResults(const v1::ReportRequest& request, v1::ReportReply* reply,
                             std::chrono::milliseconds timeout);

  void Shutdown();
  // Whether the channel holds a live connection now.
  bool Connected() const;
  // Makes the channel try to connect at once (its own backoff restarts).
  void ResetConnectBackoff();
  // Waits up to `timeout` for a connection; true when connected.
  bool WaitForConnected(std::chrono::milliseconds timeout);

 private:
  WorkerRpcClient(std::shared_ptr<grpc::Channel> channel, ClientSecurity security);

  // Runs `call` on a fresh context with the deadline and token, tracked for
  // Shutdown while it runs. A long poll after Shutdown is CANCELLED at once.
  template <typename Call>
  grpc::Status Invoke(std::chrono::milliseconds timeout, bool long_poll, Call&& call);

  std::shared_ptr<grpc::Channel> channel_;
  std::unique_ptr<v1::WorkerService::Stub> stub_;
  const ClientSecurity security_;
  std::mutex mu_;
  std::set<grpc::ClientContext*> in_flight_;
  bool shut_down_ = false;
};

}  // namespace pruner

#endif  // PRUNER_WORKER_WORKER_RPC_CLIENT_H_
