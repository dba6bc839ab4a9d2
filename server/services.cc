#include "server/services.h"

#include <algorithm>
#include <atomic>
#include <thread>

#include "absl/strings/str_cat.h"
#include "common/base/absl_compat.h"
#include "proto/daemon_log.h"
#include "proto/wire_convert.h"
#include "server/job_export.h"
#include "server/job_info.h"

namespace pruner {
namespace {

grpc::Status ToGrpc(const absl::Status& status) {
  if (status.ok()) return grpc::Status::OK;
  return grpc::Status(static_cast<grpc::StatusCode>(static_cast<int>(status.code())),
                      std::string(status.message()));
}

constexpr int kMaxLeaseWaitMs = 30000;
constexpr int kMaxCandidatesPerLease = 256;
constexpr int kMaxResultsPerReport = 4096;

}  // namespace

// ---- TuningService ---------------------------------------------------------

grpc::Status TuningServiceImpl::Allow(const grpc::ServerContext& context, std::string_view call) {
  return access_->Authorize(context, Role::kClient, call, nullptr);
}

TuningServiceImpl::TuningServiceImpl(JobManager* jobs, Dispatcher* dispatcher,
                                     const RecordsStore* store, AccessControl* access)
    : jobs_(jobs), dispatcher_(dispatcher), store_(store), access_(access) {}

grpc::Status TuningServiceImpl::SubmitJob(grpc::ServerContext* context,
                                          const v1::SubmitJobRequest* request, v1::JobInfo* reply) {
  if (grpc::Status auth = Allow(*context, "SubmitJob"); !auth.ok()) return auth;
  auto info = jobs_->Submit(request->spec());
  if (!info.ok()) return ToGrpc(info.status());
  *reply = *std::move(info);
  return grpc::Status::OK;
}

grpc::Status TuningServiceImpl::GetJob(grpc::ServerContext* context,
                                       const v1::GetJobRequest* request, v1::JobInfo* reply) {
  if (grpc::Status auth = Allow(*context, "GetJob"); !auth.ok()) return auth;
  auto info = jobs_->Get(request->job_id());
  if (!info.ok()) return ToGrpc(info.status());
  *reply = *std::move(info);
  return grpc::Status::OK;
}

grpc::Status TuningServiceImpl::WatchJob(grpc::ServerContext* context,
                                         const v1::WatchJobRequest* request,
                                         grpc::ServerWriter<v1::ProgressEvent>* writer) {
  if (grpc::Status auth = Allow(*context, "WatchJob"); !auth.ok()) return auth;
  return ToGrpc(jobs_->Watch(
      request->job_id(), [writer](const v1::ProgressEvent& event) { return writer->Write(event); },
      [context] { return context->IsCancelled(); }));
}

grpc::Status TuningServiceImpl::CancelJob(grpc::ServerContext* context,
                                          const v1::CancelJobRequest* request, v1::JobInfo* reply) {
  if (grpc::Status auth = Allow(*context, "CancelJob"); !auth.ok()) return auth;
  auto info = jobs_->Cancel(request->job_id());
  if (!info.ok()) return ToGrpc(info.status());
  *reply = *std::move(info);
  return grpc::Status::OK;
}

grpc::Status TuningServiceImpl::ListJobs(grpc::ServerContext* context,
                                         const v1::ListJobsRequest* request,
                                         v1::ListJobsReply* reply) {
  if (grpc::Status auth = Allow(*context, "ListJobs"); !auth.ok()) return auth;
  auto jobs = jobs_->List();
  if (!jobs.ok()) return ToGrpc(jobs.status());
  for (v1::JobInfo& job : *jobs) *reply->add_jobs() = std::move(job);
  return grpc::Status::OK;
}

grpc::Status TuningServiceImpl::ListWorkers(grpc::ServerContext* context,
                                            const v1::ListWorkersRequest* request,
                                            v1::ListWorkersReply* reply) {
  if (grpc::Status auth = Allow(*context, "ListWorkers"); !auth.ok()) return auth;
  for (const WorkerSnapshot& w : dispatcher_->Workers()) {
    if (w.alive) *reply->add_workers() = w.info;
  }
  return grpc::Status::OK;
}

grpc::Status TuningServiceImpl::BestRecords(grpc::ServerContext* context,
                                            const v1::BestRecordsRequest* request,
                                            v1::BestRecordsReply* reply) {
  if (grpc::Status auth = Allow(*context, "BestRecords"); !auth.ok()) return auth;
  auto best = BestRecordsOfJob(*store_, request->job_id());
  if (!best.ok()) return ToGrpc(best.status());
  *reply = *std::move(best);
  return grpc::Status::OK;
}

grpc::Status TuningServiceImpl::ExportJob(grpc::ServerContext* context,
                                          const v1::ExportJobRequest* request,
                                          v1::ExportJobReply* reply) {
  if (grpc::Status auth = Allow(*context, "ExportJob"); !auth.ok()) return auth;
  auto exported = pruner::ExportJob(*store_, request->job_id());
  if (!exported.ok()) return ToGrpc(exported.status());
  *reply = *std::move(exported);
  return grpc::Status::OK;
}

// ---- WorkerService ---------------------------------------------------------

grpc::Status WorkerServiceImpl::Allow(const grpc::ServerContext& context, std::string_view call,
                                      Principal* who) {
  return access_->Authorize(context, Role::kWorker, call, who);
}

grpc::Status WorkerServiceImpl::AllowFor(const grpc::ServerContext& context, std::string_view call,
                                         const std::string& worker_id) {
  Principal who;
  if (grpc::Status auth = Allow(context, call, &who); !auth.ok()) return auth;
  // Unknown ids are the dispatcher's to answer ("register again").
  const std::optional<std::string> name = dispatcher_->WorkerName(worker_id);
  if (name.has_value() && !who.MayActAsWorker(*name)) {
    return grpc::Status(grpc::StatusCode::PERMISSION_DENIED,
                        absl::StrCat(ToAbsl(call), ": worker id '", worker_id,
                                     "' belongs to worker '", *name, "', not to '", who.name, "'"));
  }
  return grpc::Status::OK;
}

WorkerServiceImpl::WorkerServiceImpl(Dispatcher* dispatcher, RecordsStore* store,
                                     AccessControl* access)
    : dispatcher_(dispatcher), store_(store), access_(access) {}

grpc::Status WorkerServiceImpl::Register(grpc::ServerContext* context,
                                         const v1::RegisterRequest* request,
                                         v1::RegisterReply* reply) {
  Principal who;
  if (grpc::Status auth = Allow(*context, "Register", &who); !auth.ok()) return auth;
  auto profile = DeviceFromWire(request->device());
  if (!profile.ok()) return ToGrpc(profile.status());
  if (request->name().empty()) {
    return grpc::Status(grpc::StatusCode::INVALID_ARGUMENT, "register: empty worker name");
  }
  // A worker credential names the one worker it may be.
  if (!who.MayActAsWorker(request->name())) {
    return grpc::Status(grpc::StatusCode::PERMISSION_DENIED,
                        absl::StrCat("register: this credential belongs to worker '", who.name,
                                     "', not '", request->name(), "' (start it with --name ",
                                     who.name, ")"));
  }
  if (request->slots() < 0 || request->slots() > 64) {
    return grpc::Status(grpc::StatusCode::INVALID_ARGUMENT, "register: slots must be in [0, 64]");
  }
  // A GPU that claims a built-in profile's name must look like it.
  if (profile->IsGpu()) {
    if (auto builtin = GetDeviceProfile(profile->name); builtin.ok() && builtin->IsGpu()) {
      if (absl::Status st = CheckCompatible(*profile, *builtin); !st.ok()) return ToGrpc(st);
    }
  }
  // Jobs may target a device before its workers come back: remember it.
  if (absl::Status st = store_->PutDevice(*profile); !st.ok()) return ToGrpc(st);
  v1::RegisterRequest normalized = *request;
  normalized.mutable_device()->set_key(profile->name);
  reply->set_worker_id(dispatcher_->RegisterWorker(normalized));
  reply->set_heartbeat_interval_ms(
      static_cast<int32_t>(dispatcher_->options().heartbeat_interval.count()));
  reply->set_lease_timeout_ms(static_cast<int32_t>(dispatcher_->options().lease_timeout.count()));
  return grpc::Status::OK;
}

grpc::Status WorkerServiceImpl::Heartbeat(grpc::ServerContext* context,
                                          const v1::HeartbeatRequest* request,
                                          v1::HeartbeatReply* reply) {
  if (grpc::Status auth = AllowFor(*context, "Heartbeat", request->worker_id()); !auth.ok()) {
    return auth;
  }
  std::vector<std::string> revoked;
  const std::vector<std::string> leases(request->lease_ids().begin(), request->lease_ids().end());
  reply->set_known(dispatcher_->Heartbeat(request->worker_id(), leases, &revoked));
  for (std::string& id : revoked) reply->add_revoked_lease_ids(std::move(id));
  return grpc::Status::OK;
}

grpc::Status WorkerServiceImpl::LeaseBatch(grpc::ServerContext* context,
                                           const v1::LeaseRequest* request, v1::Lease* reply) {
  if (grpc::Status auth = AllowFor(*context, "LeaseBatch", request->worker_id()); !auth.ok()) {
    return auth;
  }
  const int wait_ms = std::clamp(request->wait_ms(), 0, kMaxLeaseWaitMs);
  const int max_candidates = std::clamp(request->max_candidates(), 1, kMaxCandidatesPerLease);
  // The worker hanging up ends the long poll.
  bool unknown = false;
  auto lease = dispatcher_->Lease(request->worker_id(), max_candidates,
                                  std::chrono::milliseconds(wait_ms), &unknown,
                                  [context] { return context->IsCancelled(); });
  if (unknown) {
    return grpc::Status(grpc::StatusCode::NOT_FOUND,
                        absl::StrCat("unknown worker '", request->worker_id(), "': register again"));
  }
  if (lease.has_value()) {
    if (context->IsCancelled()) {
      // Nobody will measure it: put it back at once rather than after the
      // lease timeout.
      (void)dispatcher_->Report(request->worker_id(), lease->lease_id(), {}, "lease call cancelled");
      return grpc::Status(grpc::StatusCode::CANCELLED, "cancelled by the worker");
    }
    *reply = *std::move(lease);
  }
  return grpc::Status::OK;
}

grpc::Status WorkerServiceImpl::ReportResults(grpc::ServerContext* context,
                                              const v1::ReportRequest* request,
                                              v1::ReportReply* reply) {
  if (grpc::Status auth = AllowFor(*context, "ReportResults", request->worker_id()); !auth.ok()) {
    return auth;
  }
  if (request->results_size() > kMaxResultsPerReport) {
    return grpc::Status(grpc::StatusCode::INVALID_ARGUMENT, "report: too many results");
  }
  const std::vector<v1::CandidateResult> results(request->results().begin(),
                                                 request->results().end());
  const ReportOutcome outcome = dispatcher_->Report(request->worker_id(), request->lease_id(),
                                                    results, request->infrastructure_error());
  reply->set_accepted(outcome.accepted);
  reply->set_duplicates(outcome.duplicates);
  reply->set_unknown(outcome.unknown);
  reply->set_implausible(outcome.implausible);
  reply->set_foreign(outcome.foreign);
  return grpc::Status::OK;
}

// ---- AdminService ----------------------------------------------------------

AdminServiceImpl::AdminServiceImpl(Dispatcher* dispatcher, RecordsStore* store,
                                   AccessControl* access)
    : dispatcher_(dispatcher), store_(store), access_(access) {}

grpc::Status AdminServiceImpl::Allow(const grpc::ServerContext& context, std::string_view call) {
  return access_->Authorize(context, Role::kAdmin, call, nullptr);
}

grpc::Status AdminServiceImpl::PurgeWorkerRecords(grpc::ServerContext* context,
                                                  const v1::PurgeWorkerRecordsRequest* request,
                                                  v1::PurgeWorkerRecordsReply* reply) {
  if (grpc::Status auth = Allow(*context, "PurgeWorkerRecords"); !auth.ok()) return auth;
  auto summary = store_->PurgeWorkerRecords(request->worker_name(), request->dry_run());
  if (!summary.ok()) return ToGrpc(summary.status());
  reply->set_records(summary->records);
  reply->set_ok_records(summary->ok_records);
  reply->set_workloads(summary->workloads);
  reply->set_bests(summary->bests);
  reply->set_dry_run(request->dry_run());
  if (!request->dry_run()) {
    LogWarning(absl::StrCat("purged ", summary->records, " records measured by worker '",
                            request->worker_name(), "'"));
  }
  return grpc::Status::OK;
}

grpc::Status AdminServiceImpl::ReleaseWorker(grpc::ServerContext* context,
                                             const v1::ReleaseWorkerRequest* request,
                                             v1::ReleaseWorkerReply* reply) {
  if (grpc::Status auth = Allow(*context, "ReleaseWorker"); !auth.ok()) return auth;
  if (request->worker_name().empty()) {
    return grpc::Status(grpc::StatusCode::INVALID_ARGUMENT, "release: empty worker name");
  }
  reply->set_released(dispatcher_->ReleaseWorker(request->worker_name()));
  if (absl::Status st = store_->DeleteQuarantine(request->worker_name()); !st.ok()) {
    return ToGrpc(st);
  }
  if (reply->released()) {
    LogWarning(absl::StrCat("worker '", request->worker_name(), "' released from quarantine"));
  }
  return grpc::Status::OK;
}

}  // namespace pruner
