// An in-process TuningService for the client's tests: a real gRPC server on
// 127.0.0.1 with canned replies, which records what the client sent (the
// JobSpec, the authorization metadata) so that tests can check it.
#ifndef PRUNER_TESTS_CLIENT_FAKE_TUNING_SERVICE_H_
#define PRUNER_TESTS_CLIENT_FAKE_TUNING_SERVICE_H_

#include <atomic>
#include <memory>
#include <mutex>
#include <string>
#include <vector>

#include "grpcpp/grpcpp.h"
#include "pruner/v1/tuning_service.grpc.pb.h"

namespace pruner {

class FakeTuningService final : public v1::TuningService::Service {
 public:
  // The job every call knows; other ids are NOT_FOUND.
  static constexpr int64_t kJobId = 7;
  // GetJob on this id never answers (until the client gives up).
  static constexpr int64_t kSilentJobId = 99;

  // Calls without "authorization: Bearer <token>" are refused when set.
  std::string token;
  // WatchJob sends these, then returns OK; with hold_watch_open it instead
  // waits until the client cancels.
  std::vector<v1::ProgressEvent> watch_events;
  bool hold_watch_open = false;
  v1::ExportJobReply export_reply;

  v1::JobSpec last_spec() const;
  std::string last_authorization() const;
  int submit_calls() const { return submit_calls_.load(); }
  int cancel_calls() const { return cancel_calls_.load(); }
  bool watch_saw_cancel() const { return watch_saw_cancel_.load(); }

  // A job of two tasks: the first with a result, the second without.
  static v1::JobInfo SampleJob(const std::string& status);

  grpc::Status SubmitJob(grpc::ServerContext* context, const v1::SubmitJobRequest* request,
                         v1::JobInfo* reply) override;
  grpc::Status GetJob(grpc::ServerContext* context, const v1::GetJobRequest* request,
                      v1::JobInfo* reply) override;
  grpc::Status WatchJob(grpc::ServerContext* context, const v1::WatchJobRequest* request,
                        grpc::ServerWriter<v1::ProgressEvent>* writer) override;
  grpc::Status CancelJob(grpc::ServerContext* context, const v1::CancelJobRequest* request,
                         v1::JobInfo* reply) override;
  grpc::Status ListJobs(grpc::ServerContext* context, const v1::ListJobsRequest* request,
                        v1::ListJobsReply* reply) override;
  grpc::Status ListWorkers(grpc::ServerContext* context, const v1::ListWorkersRequest* request,
                           v1::ListWorkersReply* reply) override;
  grpc::Status BestRecords(grpc::ServerContext* context, const v1::BestRecordsRequest* request,
                           v1::BestRecordsReply* reply) override;
  grpc::Status ExportJob(grpc::ServerContext* context, const v1::ExportJobRequest* request,
                         v1::ExportJobReply* reply) override;

 private:
  // Records the metadata and checks the token.
  grpc::Status Admit(const grpc::ServerContext& context);

  mutable std::mutex mu_;
  v1::JobSpec last_spec_;
  std::string last_authorization_;
  std::atomic<int> submit_calls_{0};
  std::atomic<int> cancel_calls_{0};
  std::atomic<bool> watch_saw_cancel_{false};
};

// The service on 127.0.0.1 with a port the kernel picks.
class FakeServer {
 public:
  explicit FakeServer(FakeTuningService* service);
  ~FakeServer();
  const std::string& address() const { return address_; }

 private:
  std::unique_ptr<grpc::Server> server_;
  std::string address_;
};

// An address nothing listens on: a port the kernel handed out, then closed.
std::string UnusedLoopbackAddress();

}  // namespace pruner

#endif  // PRUNER_TESTS_CLIENT_FAKE_TUNING_SERVICE_H_
