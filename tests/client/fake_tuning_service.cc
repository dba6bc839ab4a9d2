#include "tests/client/fake_tuning_service.h"

#include <netinet/in.h>
#include <sys/socket.h>
#include <unistd.h>

#include <chrono>
#include <thread>

#include "absl/strings/str_cat.h"
#include "proto/rpc_credentials.h"
#include "server/access_control.h"

namespace pruner {
namespace {

grpc::Status NotFound(int64_t job_id) {
  return grpc::Status(grpc::StatusCode::NOT_FOUND, absl::StrCat("job ", job_id, " not found"));
}

}  // namespace

v1::JobSpec FakeTuningService::last_spec() const {
  std::lock_guard<std::mutex> lock(mu_);
  return last_spec_;
}

std::string FakeTuningService::last_authorization() const {
  std::lock_guard<std::mutex> lock(mu_);
  return last_authorization_;
}

v1::JobInfo FakeTuningService::SampleJob(const std::string& status) {
  v1::JobInfo job;
  job.set_id(kJobId);
  job.set_name("bert-tiny");
  job.set_status(status);
  job.set_target("cpu-test");
  job.set_strategy("ansor-xgb");
  job.set_trials(40);
  job.set_trial_budget(200);
  job.set_elapsed_s(75);
  job.set_eta_s(300);
  job.set_estimated_latency_s(2 * 0.5e-3);
  job.set_created_unix_ms(1700000000000);
  v1::TaskInfo* dense = job.add_tasks();
  dense->set_index(0);
  dense->set_name("dense_512x512x512");
  dense->set_weight(2);
  dense->set_flops(2.0 * 512 * 512 * 512);
  dense->set_trials(30);
  dense->set_best_cost_s(0.5e-3);
  dense->set_errors(1);
  v1::TaskInfo* softmax = job.add_tasks();
  softmax->set_index(1);
  softmax->set_name("softmax_16x100");
  softmax->set_weight(1);
  softmax->set_flops(1e5);
  softmax->set_trials(10);
  softmax->set_errors(3);
  (*job.mutable_error_counts())["build error"] = 3;
  (*job.mutable_error_counts())["run timeout"] = 1;
  return job;
}

grpc::Status FakeTuningService::Admit(const grpc::ServerContext& context) {
  {
    std::lock_guard<std::mutex> lock(mu_);
    auto it = context.client_metadata().find("authorization");
    last_authorization_ = it == context.client_metadata().end()
                              ? std::string()
                              : std::string(it->second.data(), it->second.size());
  }
  // The server's own check, in its one-shared-token mode.
  return AccessControl::SharedToken(token)->Authorize(context, Role::kClient, "fake", nullptr);
}

grpc::Status FakeTuningService::SubmitJob(grpc::ServerContext* context,
                                          const v1::SubmitJobRequest* request,
                                          v1::JobInfo* reply) {
  if (grpc::Status s = Admit(*context); !s.ok()) return s;
  ++submit_calls_;
  {
    std::lock_guard<std::mutex> lock(mu_);
    last_spec_ = request->spec();
  }
  if (request->spec().target() == "tpu") {
    return grpc::Status(grpc::StatusCode::INVALID_ARGUMENT, "unknown target 'tpu'");
  }
  reply->set_id(kJobId);
  reply->set_status("pending");
  reply->set_target(request->spec().target());
  const int tasks = request->spec().network().empty() ? request->spec().ops_size() : 8;
  for (int i = 0; i < tasks; ++i) reply->add_tasks()->set_index(i);
  return grpc::Status::OK;
}

grpc::Status FakeTuningService::GetJob(grpc::ServerContext* context,
                                       const v1::GetJobRequest* request, v1::JobInfo* reply) {
  if (grpc::Status s = Admit(*context); !s.ok()) return s;
  if (request->job_id() == kSilentJobId) {
    while (!context->IsCancelled()) std::this_thread::sleep_for(std::chrono::milliseconds(10));
    return grpc::Status(grpc::StatusCode::CANCELLED, "client went away");
  }
  if (request->job_id() != kJobId) return NotFound(request->job_id());
  *reply = SampleJob("running");
  return grpc::Status::OK;
}

grpc::Status FakeTuningService::WatchJob(grpc::ServerContext* context,
                                         const v1::WatchJobRequest* request,
                                         grpc::ServerWriter<v1::ProgressEvent>* writer) {
  if (grpc::Status s = Admit(*context); !s.ok()) return s;
  if (request->job_id() != kJobId) return NotFound(request->job_id());
  for (const v1::ProgressEvent& event : watch_events) writer->Write(event);
  if (hold_watch_open) {
    while (!context->IsCancelled()) std::this_thread::sleep_for(std::chrono::milliseconds(10));
    watch_saw_cancel_.store(true);
  }
  return grpc::Status::OK;
}

grpc::Status FakeTuningService::CancelJob(grpc::ServerContext* context,
                                          const v1::CancelJobRequest* request,
                                          v1::JobInfo* reply) {
  if (grpc::Status s = Admit(*context); !s.ok()) return s;
  if (request->job_id() != kJobId) return NotFound(request->job_id());
  ++cancel_calls_;
  *reply = SampleJob("cancelled");
  return grpc::Status::OK;
}

grpc::Status FakeTuningService::ListJobs(grpc::ServerContext* context,
                                         const v1::ListJobsRequest*, v1::ListJobsReply* reply) {
  if (grpc::Status s = Admit(*context); !s.ok()) return s;
  *reply->add_jobs() = SampleJob("running");
  return grpc::Status::OK;
}

grpc::Status FakeTuningService::ListWorkers(grpc::ServerContext* context,
                                            const v1::ListWorkersRequest*,
                                            v1::ListWorkersReply* reply) {
  if (grpc::Status s = Admit(*context); !s.ok()) return s;
  v1::WorkerInfo* worker = reply->add_workers();
  worker->set_name("gpu-box-1");
  worker->mutable_device()->set_key("a100-sxm4-40gb");
  worker->mutable_device()->set_description("NVIDIA A100-SXM4-40GB");
  worker->set_slots(4);
  worker->set_active_leases(3);
  worker->set_measured(1234);
  worker->set_last_heartbeat_unix_ms(
      std::chrono::duration_cast<std::chrono::milliseconds>(
          std::chrono::system_clock::now().time_since_epoch())
          .count());
  return grpc::Status::OK;
}

grpc::Status FakeTuningService::BestRecords(grpc::ServerContext* context,
                                            const v1::BestRecordsRequest* request,
                                            v1::BestRecordsReply* reply) {
  if (grpc::Status s = Admit(*context); !s.ok()) return s;
  if (request->job_id() != kJobId) return NotFound(request->job_id());
  reply->set_job_id(kJobId);
  reply->set_target("cpu-test");
  reply->set_estimated_latency_s(1e-3);
  v1::BestRecord* record = reply->add_records();
  record->set_task_index(0);
  record->set_task_name("dense_512x512x512");
  record->set_sentence("SP 2 0 512 [8,4,2]; AN 2 0 parallel");
  record->set_weight(2);
  record->set_gflops(536.870912);
  record->mutable_result()->set_mean_s(0.5e-3);
  record->mutable_result()->add_repeat_costs_s(0.5e-3);
  return grpc::Status::OK;
}

grpc::Status FakeTuningService::ExportJob(grpc::ServerContext* context,
                                          const v1::ExportJobRequest* request,
                                          v1::ExportJobReply* reply) {
  if (grpc::Status s = Admit(*context); !s.ok()) return s;
  if (request->job_id() != kJobId) return NotFound(request->job_id());
  *reply = export_reply;
  return grpc::Status::OK;
}

FakeServer::FakeServer(FakeTuningService* service) {
  grpc::ServerBuilder builder;
  int port = 0;
  builder.AddListeningPort("127.0.0.1:0", grpc::InsecureServerCredentials(), &port);
  builder.RegisterService(service);
  server_ = builder.BuildAndStart();
  address_ = absl::StrCat("127.0.0.1:", port);
}

FakeServer::~FakeServer() {
  // Streams still open (a watch the client abandoned) end at the deadline.
  server_->Shutdown(std::chrono::system_clock::now() + std::chrono::seconds(2));
}

std::string UnusedLoopbackAddress() {
  int fd = socket(AF_INET, SOCK_STREAM, 0);
  sockaddr_in addr{};
  addr.sin_family = AF_INET;
  addr.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
  addr.sin_port = 0;
  bind(fd, reinterpret_cast<sockaddr*>(&addr), sizeof(addr));
  socklen_t length = sizeof(addr);
  getsockname(fd, reinterpret_cast<sockaddr*>(&addr), &length);
  close(fd);
  return absl::StrCat("127.0.0.1:", ntohs(addr.sin_port));
}

}  // namespace pruner
