// The three gRPC services over the engine: TuningService for clients (jobs),
// WorkerService for workers (leases) and AdminService for admins. Thin: each
// call checks its caller's role (access_control.h), converts the request and
// delegates to the JobManager, the Dispatcher or the records store.
#ifndef PRUNER_SERVER_SERVICES_H_
#define PRUNER_SERVER_SERVICES_H_

#include <memory>
#include <string>
#include <string_view>

#include "common/store/records_store.h"
#include "pruner/v1/admin_service.grpc.pb.h"
#include "pruner/v1/tuning_service.grpc.pb.h"
#include "pruner/v1/worker_service.grpc.pb.h"
#include "server/access_control.h"
#include "server/dispatcher.h"
#include "server/job_manager.h"

namespace pruner {

class TuningServiceImpl final : public v1::TuningService::Service {
 public:
  TuningServiceImpl(JobManager* jobs, Dispatcher* dispatcher, const RecordsStore* store,
                    AccessControl* access);

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
  grpc::Status Allow(const grpc::ServerContext& context, std::string_view call);

  JobManager* const jobs_;
  Dispatcher* const dispatcher_;
  const RecordsStore* const store_;
  AccessControl* const access_;
};

class WorkerServiceImpl final : public v1::WorkerService::Service {
 public:
  WorkerServiceImpl(Dispatcher* dispatcher, RecordsStore* store, AccessControl* access);

  grpc::Status Register(grpc::ServerContext* context, const v1::RegisterRequest* request,
                        v1::RegisterReply* reply) override;
  grpc::Status Heartbeat(grpc::ServerContext* context, const v1::HeartbeatRequest* request,
                         v1::HeartbeatReply* reply) override;
  grpc::Status LeaseBatch(grpc::ServerContext* context, const v1::LeaseRequest* request,
                          v1::Lease* reply) override;
  grpc::Status ReportResults(grpc::ServerContext* context, const v1::ReportRequest* request,
                             v1::ReportReply* reply) override;

 private:
  grpc::Status Allow(const grpc::ServerContext& context, std::string_view call, Principal* who);
  // Allow, and the worker id must be the credential's own worker.
  grpc::Status AllowFor(const grpc::ServerContext& context, std::string_view call,
                        const std::string& worker_id);

  Dispatcher* const dispatcher_;
  RecordsStore* const store_;
  AccessControl* const access_;
};

class AdminServiceImpl final : public v1::AdminService::Service {
 public:
  AdminServiceImpl(Dispatcher* dispatcher, RecordsStore* store, AccessControl* access);

  grpc::Status PurgeWorkerRecords(grpc::ServerContext* context,
                                  const v1::PurgeWorkerRecordsRequest* request,
                                  v1::PurgeWorkerRecordsReply* reply) override;
  grpc::Status ReleaseWorker(grpc::ServerContext* context, const v1::ReleaseWorkerRequest* request,
                             v1::ReleaseWorkerReply* reply) override;

 private:
  grpc::Status Allow(const grpc::ServerContext& context, std::string_view call);

  Dispatcher* const dispatcher_;
  RecordsStore* const store_;
  AccessControl* const access_;
};

}  // namespace pruner

#endif  // PRUNER_SERVER_SERVICES_H_
