#include "client/job_source.h"

#include <utility>

namespace pruner {
namespace {

using Stub = v1::TuningService::Stub;

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
  template <typename Request, typename Reply>
  absl::StatusOr<Reply> Call(TuningServiceCall<Request, Reply> call, const Request& request) {
    return CallServer(flags_, call, request);
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
