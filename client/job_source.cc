#include "client/job_source.h"

#include <utility>

#include "absl/strings/match.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/strip.h"

namespace pruner {
namespace {

using Stub = v1::TuningService::Stub;

template <typename Request, typename Reply>
using UnaryCall = grpc::Status (Stub::*)(grpc::ClientContext*, const Request&, Reply*);

class ServiceJobSource : public JobSource {
 public:
  explicit ServiceJobSource(ServiceFlags flags) : flags_(std::move(flags)) {}

  absl::StatusOr<v1::JobInfo> GetJob(int64_t job_id) override {
    v1::GetJobRequest request;
    request.set_job_id(job_id);
    return Call(&Stub::GetJob, request);
  }
  absl::StatusOr<v1::ListJobsReply> ListJobs() override {
    return Call(&Stub::ListJobs, v1::ListJobsRequest());
  }
  absl::StatusOr<v1::BestRecordsReply> BestRecords(int64_t job_id) override {
    v1::BestRecordsRequest request;
    request.set_job_id(job_id);
    return Call(&Stub::BestRecords, request);
  }
  absl::StatusOr<v1::ExportJobReply> ExportJob(int64_t job_id) override {
    v1::ExportJobRequest request;
    request.set_job_id(job_id);
    return Call(&Stub::ExportJob, request);
  }

 private:
  // Connects and makes one call under the deadline.
  template <typename Request, typename Reply>
  absl::StatusOr<Reply> Call(UnaryCall<Request, Reply> call, const Request& request) {
    auto connection = Connect(flags_);
    if (!connection.ok()) return connection.status();
    grpc::ClientContext context;
    connection->Prepare(&context);
    Reply reply;
    grpc::Status status = ((*connection->stub).*call)(&context, request, &reply);
    if (status.ok()) return reply;
    const std::string described = DescribeRpcError(status, connection->address);
    absl::string_view text = described;
    absl::ConsumePrefix(&text, "error: ");
    absl::ConsumeSuffix(&text, "\n");
    return absl::Status(static_cast<absl::StatusCode>(status.error_code()), text);
  }

  ServiceFlags flags_;
};

}  // namespace

std::unique_ptr<JobSource> MakeServiceJobSource(const ServiceFlags& flags) {
  return std::make_unique<ServiceJobSource>(flags);
}

absl::StatusOr<std::unique_ptr<JobSource>> OpenJobSource(const std::string& db_path,
                                                         const ServiceFlags& flags,
                                                         LocalJobSourceOpener open_local) {
  if (db_path.empty()) return MakeServiceJobSource(flags);
  if (open_local == nullptr) {
    return absl::UnimplementedError("this binary reads jobs from the server only (no --db)");
  }
  return open_local(db_path);
}

}  // namespace pruner
