#include "tests/worker/fake_worker_service.h"

#include <thread>
#include <utility>

#include "absl/strings/str_cat.h"
#include "server/access_control.h"

namespace pruner {

void FakeWorkerService::AddLease(v1::Lease lease) {
  {
    std::lock_guard<std::mutex> lock(mu_);
    queued_.push_back(std::move(lease));
  }
  lease_added_.notify_all();
}

void FakeWorkerService::ForgetWorkersAtNextHeartbeat() {
  std::lock_guard<std::mutex> lock(mu_);
  forget_at_next_heartbeat_ = true;
}

void FakeWorkerService::RevokeLease(const std::string& lease_id) {
  std::lock_guard<std::mutex> lock(mu_);
  revoked_.insert(lease_id);
}

void FakeWorkerService::StopLongPolls() {
  {
    std::lock_guard<std::mutex> lock(mu_);
    long_polls_stopped_ = true;
  }
  lease_added_.notify_all();
}

std::vector<v1::RegisterRequest> FakeWorkerService::registers() const {
  std::lock_guard<std::mutex> lock(mu_);
  return registers_;
}

std::vector<std::string> FakeWorkerService::issued_worker_ids() const {
  std::lock_guard<std::mutex> lock(mu_);
  return issued_ids_;
}

std::vector<v1::HeartbeatRequest> FakeWorkerService::heartbeats() const {
  std::lock_guard<std::mutex> lock(mu_);
  return heartbeats_;
}

std::vector<v1::Lease> FakeWorkerService::leases_served() const {
  std::lock_guard<std::mutex> lock(mu_);
  return served_;
}

std::vector<v1::ReportRequest> FakeWorkerService::reports() const {
  std::lock_guard<std::mutex> lock(mu_);
  return reports_;
}

int FakeWorkerService::refused_calls() const {
  std::lock_guard<std::mutex> lock(mu_);
  return refused_;
}

grpc::Status FakeWorkerService::Authenticate(const grpc::ServerContext& context) {
  // The server's own check, in its one-shared-token mode.
  grpc::Status status =
      AccessControl::SharedToken(config_.token)->Authorize(context, Role::kWorker, "fake", nullptr);
  if (!status.ok()) {
    std::lock_guard<std::mutex> lock(mu_);
    ++refused_;
  }
  return status;
}

grpc::Status FakeWorkerService::Register(grpc::ServerContext* context,
                                         const v1::RegisterRequest* request,
                                         v1::RegisterReply* reply) {
  if (grpc::Status s = Authenticate(*context); !s.ok()) return s;
  std::lock_guard<std::mutex> lock(mu_);
  registers_.push_back(*request);
  const std::string id = absl::StrCat(config_.id_prefix, next_worker_++);
  known_workers_.insert(id);
  issued_ids_.push_back(id);
  reply->set_worker_id(id);
  reply->set_heartbeat_interval_ms(config_.heartbeat_interval_ms);
  reply->set_lease_timeout_ms(config_.lease_timeout_ms);
  return grpc::Status::OK;
}

grpc::Status FakeWorkerService::Heartbeat(grpc::ServerContext* context,
                                          const v1::HeartbeatRequest* request,
                                          v1::HeartbeatReply* reply) {
  if (grpc::Status s = Authenticate(*context); !s.ok()) return s;
  std::lock_guard<std::mutex> lock(mu_);
  heartbeats_.push_back(*request);
  if (forget_at_next_heartbeat_) {
    forget_at_next_heartbeat_ = false;
    known_workers_.clear();
  }
  reply->set_known(known_workers_.count(request->worker_id()) > 0);
  for (const std::string& lease_id : request->lease_ids()) {
    if (revoked_.count(lease_id) > 0) reply->add_revoked_lease_ids(lease_id);
  }
  return grpc::Status::OK;
}

grpc::Status FakeWorkerService::LeaseBatch(grpc::ServerContext* context,
                                           const v1::LeaseRequest* request, v1::Lease* reply) {
  if (grpc::Status s = Authenticate(*context); !s.ok()) return s;
  std::unique_lock<std::mutex> lock(mu_);
  if (known_workers_.count(request->worker_id()) == 0) {
    return grpc::Status(grpc::StatusCode::NOT_FOUND, "unknown worker");
  }
  const auto deadline =
      std::chrono::steady_clock::now() + std::chrono::milliseconds(request->wait_ms());
  // Short steps, so that a cancelled call is noticed.
  while (queued_.empty() && !long_polls_stopped_ && !context->IsCancelled() &&
         std::chrono::steady_clock::now() < deadline) {
    lease_added_.wait_for(lock, std::chrono::milliseconds(20));
  }
  if (queued_.empty() || context->IsCancelled()) return grpc::Status::OK;  // no work
  *reply = std::move(queued_.front());
  queued_.pop_front();
  served_.push_back(*reply);
  return grpc::Status::OK;
}

grpc::Status FakeWorkerService::ReportResults(grpc::ServerContext* context,
                                              const v1::ReportRequest* request,
                                              v1::ReportReply* reply) {
  if (grpc::Status s = Authenticate(*context); !s.ok()) return s;
  std::lock_guard<std::mutex> lock(mu_);
  reports_.push_back(*request);
  for (const v1::CandidateResult& result : request->results()) {
    if (reported_ids_.insert(result.measurement_id()).second) {
      reply->set_accepted(reply->accepted() + 1);
    } else {
      reply->set_duplicates(reply->duplicates() + 1);
    }
  }
  return grpc::Status::OK;
}

std::unique_ptr<FakeServer> FakeServer::Start(
    FakeServiceConfig config, int port, std::shared_ptr<grpc::ServerCredentials> credentials) {
  std::unique_ptr<FakeServer> server(new FakeServer);
  server->service_ = std::make_unique<FakeWorkerService>(std::move(config));
  grpc::ServerBuilder builder;
  builder.AddListeningPort(absl::StrCat("127.0.0.1:", port),
                           credentials != nullptr ? credentials : grpc::InsecureServerCredentials(),
                           &server->port_);
  builder.RegisterService(server->service_.get());
  server->server_ = builder.BuildAndStart();
  if (server->server_ == nullptr || server->port_ == 0) return nullptr;
  return server;
}

FakeServer::~FakeServer() { Stop(); }

std::string FakeServer::address() const { return absl::StrCat("127.0.0.1:", port_); }

void FakeServer::Stop() {
  if (server_ == nullptr) return;
  service_->StopLongPolls();
  server_->Shutdown(std::chrono::system_clock::now() + std::chrono::milliseconds(500));
  server_->Wait();
  server_.reset();
}

bool WaitUntil(const std::function<bool()>& condition, std::chrono::milliseconds timeout) {
  const auto deadline = std::chrono::steady_clock::now() + timeout;
  while (!condition()) {
    if (std::chrono::steady_clock::now() >= deadline) return false;
    std::this_thread::sleep_for(std::chrono::milliseconds(10));
  }
  return true;
}

}  // namespace pruner
