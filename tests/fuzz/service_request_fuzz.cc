// Fuzz target for the server's request handlers, fed what any client,
// worker or attacker can send: the first byte picks one of the unary
// handlers of TuningService, WorkerService and AdminService, the rest is
// parsed as that handler's request (protobuf wire format) and the handler
// is called as gRPC would call it. One server (in-memory records database,
// dispatcher, job manager, open access) serves every input, so what earlier
// inputs built (workers, leases, jobs) is there for later ones, as on a
// live server; it starts with one worker registered and one job submitted.
// Whatever the bytes, no handler may crash, hang or grow without bound.
//
// Built like job_spec_fuzz.cc (tests/fuzz/README.md).
#include <cstddef>
#include <cstdint>
#include <cstdlib>
#include <memory>
#include <string>

#include "common/device/device_profile.h"
#include "google/protobuf/stubs/logging.h"
#include "common/store/records_store.h"
#include "proto/wire_convert.h"
#include "server/access_control.h"
#include "server/dispatcher.h"
#include "server/job_manager.h"
#include "server/services.h"

namespace pruner {
namespace {

struct FuzzServer {
  std::unique_ptr<RecordsStore> store;
  std::unique_ptr<Dispatcher> dispatcher;
  std::unique_ptr<JobManager> jobs;
  std::unique_ptr<AccessControl> access = AccessControl::Open();
  std::unique_ptr<TuningServiceImpl> tuning;
  std::unique_ptr<WorkerServiceImpl> workers;
  std::unique_ptr<AdminServiceImpl> admin;
  std::string worker_id;
};

// A JobSpec the fuzzer may not make expensive: random search, a small
// budget (the spec checks themselves are job_spec_fuzz.cc's).
void Tame(v1::JobSpec* spec) {
  spec->set_strategy("random");
  if (spec->trial_budget() > 64) spec->set_trial_budget(64);
}

FuzzServer& Server() {
  // Never destroyed: job threads may still run when the process exits.
  static FuzzServer* server = [] {
    // Invalid UTF-8 in string fields is a parse failure, not news.
    google::protobuf::SetLogHandler(nullptr);
    auto* s = new FuzzServer;
    s->store = *RecordsStore::Open(":memory:");
    DispatcherOptions options;
    options.lease_timeout = std::chrono::milliseconds(500);
    options.heartbeat_interval = std::chrono::milliseconds(100);
    s->dispatcher = std::make_unique<Dispatcher>(options);
    JobManagerOptions job_options;
    job_options.max_running_jobs = 2;
    job_options.max_pending_jobs = 4;
    job_options.limits.max_trial_budget = 64;
    s->jobs = std::make_unique<JobManager>(s->store.get(), s->dispatcher.get(), job_options);
    s->tuning = std::make_unique<TuningServiceImpl>(s->jobs.get(), s->dispatcher.get(),
                                                    s->store.get(), s->access.get());
    s->workers = std::make_unique<WorkerServiceImpl>(s->dispatcher.get(), s->store.get(),
                                                     s->access.get());
    s->admin =
        std::make_unique<AdminServiceImpl>(s->dispatcher.get(), s->store.get(), s->access.get());
    // A worker of the A100 profile and a job for it.
    grpc::ServerContext context;
    v1::RegisterRequest reg;
    reg.set_name("fuzz-worker");
    reg.set_slots(1);
    *reg.mutable_device() = DeviceToWire(*GetDeviceProfile("a100"));
    v1::RegisterReply registered;
    (void)s->workers->Register(&context, &reg, &registered);
    s->worker_id = registered.worker_id();
    v1::SubmitJobRequest submit;
    submit.mutable_spec()->add_ops("matmul:M=16,K=16,N=16");
    submit.mutable_spec()->set_target("a100");
    submit.mutable_spec()->set_trial_budget(8);
    submit.mutable_spec()->set_measures_per_round(4);
    Tame(submit.mutable_spec());
    v1::JobInfo job;
    grpc::ServerContext submit_context;
    (void)s->tuning->SubmitJob(&submit_context, &submit, &job);
    // Job threads must stop before the libraries they use are torn down at
    // exit (OpenSSL's own exit handler was registered by the first job's
    // workload key, so this one runs first).
    std::atexit([] {
      server->dispatcher->Shutdown();
      server->jobs->Shutdown();
    });
    return s;
  }();
  return *server;
}

// Parses `bytes` as Request and calls `handler` on it.
template <typename Request, typename Reply, typename Service, typename Tweak>
void Call(Service* service,
          grpc::Status (Service::*handler)(grpc::ServerContext*, const Request*, Reply*),
          const std::string& bytes, Tweak tweak) {
  Request request;
  if (!request.ParseFromString(bytes)) return;
  tweak(&request);
  Reply reply;
  grpc::ServerContext context;
  (void)(service->*handler)(&context, &request, &reply);
}

template <typename Request, typename Reply, typename Service>
void Call(Service* service,
          grpc::Status (Service::*handler)(grpc::ServerContext*, const Request*, Reply*),
          const std::string& bytes) {
  Call(service, handler, bytes, [](Request*) {});
}

}  // namespace
}  // namespace pruner

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  using namespace pruner;
  if (size < 1 || size > 65536) return 0;
  FuzzServer& s = Server();
  const std::string bytes(reinterpret_cast<const char*>(data) + 1, size - 1);
  TuningServiceImpl* t = s.tuning.get();
  WorkerServiceImpl* w = s.workers.get();
  AdminServiceImpl* a = s.admin.get();
  switch (data[0] % 13) {
    case 0:
      Call(t, &TuningServiceImpl::SubmitJob, bytes,
           [](v1::SubmitJobRequest* r) { Tame(r->mutable_spec()); });
      break;
    case 1: Call(t, &TuningServiceImpl::GetJob, bytes); break;
    case 2: Call(t, &TuningServiceImpl::CancelJob, bytes); break;
    case 3: Call(t, &TuningServiceImpl::ListJobs, bytes); break;
    case 4: Call(t, &TuningServiceImpl::ListWorkers, bytes); break;
    case 5: Call(t, &TuningServiceImpl::BestRecords, bytes); break;
    case 6: Call(t, &TuningServiceImpl::ExportJob, bytes); break;
    case 7: Call(w, &WorkerServiceImpl::Register, bytes); break;
    case 8: Call(w, &WorkerServiceImpl::Heartbeat, bytes); break;
    case 9:
      // A long poll would only make the fuzzer slow; an empty worker id
      // becomes the registered worker's, so leases are really handed out.
      Call(w, &WorkerServiceImpl::LeaseBatch, bytes, [&s](v1::LeaseRequest* r) {
        r->set_wait_ms(0);
        if (r->worker_id().empty()) r->set_worker_id(s.worker_id);
      });
      break;
    case 10:
      Call(w, &WorkerServiceImpl::ReportResults, bytes, [&s](v1::ReportRequest* r) {
        if (r->worker_id().empty()) r->set_worker_id(s.worker_id);
      });
      break;
    case 11: Call(a, &AdminServiceImpl::PurgeWorkerRecords, bytes); break;
    default: Call(a, &AdminServiceImpl::ReleaseWorker, bytes); break;
  }
  return 0;
}
