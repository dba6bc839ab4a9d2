#include "worker/worker_rpc_client.h"
#include "common/base/status_macros.h"

#include <utility>

namespace pruner {

absl::StatusOr<std::unique_ptr<WorkerRpcClient>> WorkerRpcClient::Connect(
    const std::string& address, const ClientSecurity& security) {
  PRUNER_ASSIGN_OR_RETURN(auto channel, MakeChannel(address, security));
  return std::unique_ptr<WorkerRpcClient>(new WorkerRpcClient(std::move(channel), security));
}

WorkerRpcClient::WorkerRpcClient(std::shared_ptr<grpc::Channel> channel, ClientSecurity security)
    : channel_(std::move(channel)),
      stub_(v1::WorkerService::NewStub(channel_)),
      security_(std::move(security)) {}

template <typename Call>
grpc::Status WorkerRpcClient::Invoke(std::chrono::milliseconds timeout, bool long_poll,
                                     Call&& call) {
  grpc::ClientContext context;
  context.set_deadline(std::chrono::system_clock::now() + timeout);
  AttachToken(&context, security_);
  {
    std::lock_guard<std::mutex> lock(mu_);
    if (long_poll && shut_down_) {
      return grpc::Status(grpc::StatusCode::CANCELLED, "the worker is stopping");
    }
    in_flight_.insert(&context);
  }
  grpc::Status status = call(&context);
  std::lock_guard<std::mutex> lock(mu_);
  in_flight_.erase(&context);
  return status;
}

grpc::Status WorkerRpcClient::Register(const v1::RegisterRequest& request,
                                       v1::RegisterReply* reply,
                                       std::chrono::milliseconds timeout) {
  return Invoke(timeout, false,
                [&](grpc::ClientContext* c) { return stub_->Register(c, request, reply); });
}

grpc::Status WorkerRpcClient::Heartbeat(const v1::HeartbeatRequest& request,
                                        v1::HeartbeatReply* reply,
                                        std::chrono::milliseconds timeout) {
  return Invoke(timeout, false,
                [&](grpc::ClientContext* c) { return stub_->Heartbeat(c, request, reply); });
}

grpc::Status WorkerRpcClient::LeaseBatch(const v1::LeaseRequest& request, v1::Lease* reply,
                                         std::chrono::milliseconds margin) {
  return Invoke(std::chrono::milliseconds(request.wait_ms()) + margin, true,
                [&](grpc::ClientContext* c) { return stub_->LeaseBatch(c, request, reply); });
}

grpc::Status WorkerRpcClient::ReportResults(const v1::ReportRequest& request,
                                            v1::ReportReply* reply,
                                            std::chrono::milliseconds timeout) {
  return Invoke(timeout, false,
                [&](grpc::ClientContext* c) { return stub_->ReportResults(c, request, reply); });
}

void WorkerRpcClient::Shutdown() {
  std::lock_guard<std::mutex> lock(mu_);
  shut_down_ = true;
  for (grpc::ClientContext* context : in_flight_) context->TryCancel();
}

bool WorkerRpcClient::Connected() const {
  return channel_->GetState(/*try_to_connect=*/false) == GRPC_CHANNEL_READY;
}

void WorkerRpcClient::ResetConnectBackoff() {
  grpc::experimental::ChannelResetConnectionBackoff(channel_.get());
}

bool WorkerRpcClient::WaitForConnected(std::chrono::milliseconds timeout) {
  return channel_->WaitForConnected(std::chrono::system_clock::now() + timeout);
}

}  // namespace pruner
