#include "server/pruner_server.h"

#include <chrono>
#include <mutex>

#include "absl/strings/str_cat.h"
#include "common/base/status_macros.h"
#include "common/store/records_store.h"
#include "grpcpp/ext/proto_server_reflection_plugin.h"
#include "grpcpp/grpcpp.h"
#include "proto/daemon_log.h"
#include "server/services.h"

namespace pruner {

struct PrunerServer::Impl {
  std::unique_ptr<RecordsStore> store;
  std::unique_ptr<Dispatcher> dispatcher;
  std::unique_ptr<JobManager> jobs;
  std::unique_ptr<TuningServiceImpl> tuning_service;
  std::unique_ptr<WorkerServiceImpl> worker_service;
  std::unique_ptr<AccessControl> access;
  std::unique_ptr<AdminServiceImpl> admin_service;
  std::unique_ptr<grpc::Server> server;
  std::string host;
  int port = 0;
  int resumed = 0;
  std::mutex shutdown_mu;
  bool shut_down = false;
};

PrunerServer::PrunerServer(std::unique_ptr<Impl> impl) : impl_(std::move(impl)) {}
PrunerServer::~PrunerServer() { Shutdown(); }

absl::StatusOr<std::unique_ptr<PrunerServer>> PrunerServer::Start(const ServerOptions& options) {
  PRUNER_ASSIGN_OR_RETURN(auto credentials,
                          MakeServerCredentials(options.listen, options.security));
  auto impl = std::make_unique<Impl>();
  if (options.security.credentials_file.empty()) {
    impl->access = AccessControl::SharedToken(options.security.token);
  } else {
    PRUNER_ASSIGN_OR_RETURN(impl->access,
                            AccessControl::FromFile(options.security.credentials_file));
  }
  auto store = RecordsStore::Open(options.db);
  if (!store.ok()) return store.status();
  impl->store = *std::move(store);
  // Quarantined names are kept in the database: a restart keeps them out.
  DispatcherOptions dispatcher_options = options.dispatcher;
  RecordsStore* store_ptr = impl->store.get();
  dispatcher_options.on_quarantine = [store_ptr](const std::string& name,
                                                 const std::string& reason) {
    if (absl::Status st = store_ptr->PutQuarantine(name, reason); !st.ok()) {
      LogError(absl::StrCat("cannot store the quarantine of worker '", name,
                            "': ", st.message()));
    }
  };
  impl->dispatcher = std::make_unique<Dispatcher>(dispatcher_options);
  PRUNER_ASSIGN_OR_RETURN(auto quarantined, impl->store->ListQuarantined());
  for (const auto& [name, reason] : quarantined) impl->dispatcher->Quarantine(name, reason);
  impl->jobs = std::make_unique<JobManager>(impl->store.get(), impl->dispatcher.get(), options.jobs);
  impl->tuning_service = std::make_unique<TuningServiceImpl>(
      impl->jobs.get(), impl->dispatcher.get(), impl->store.get(), impl->access.get());
  impl->worker_service = std::make_unique<WorkerServiceImpl>(
      impl->dispatcher.get(), impl->store.get(), impl->access.get());
  impl->admin_service = std::make_unique<AdminServiceImpl>(
      impl->dispatcher.get(), impl->store.get(), impl->access.get());

  grpc::reflection::InitProtoReflectionServerBuilderPlugin();
  grpc::ServerBuilder builder;
  builder.AddListeningPort(options.listen, credentials, &impl->port);
  builder.RegisterService(impl->tuning_service.get());
  builder.RegisterService(impl->worker_service.get());
  builder.RegisterService(impl->admin_service.get());
  builder.SetMaxReceiveMessageSize(64 << 20);
  builder.SetMaxSendMessageSize(64 << 20);
  // Without this a second server could bind the same port (SO_REUSEPORT)
  // and the two would share the workers' traffic.
  builder.AddChannelArgument(GRPC_ARG_ALLOW_REUSEPORT, 0);
  impl->server = builder.BuildAndStart();
  if (impl->server == nullptr || impl->port == 0) {
    return absl::UnavailableError(absl::StrCat("cannot listen on ", options.listen,
                                               " (address in use, or not an address of this host)"));
  }
  const size_t colon = options.listen.rfind(':');
  impl->host = colon == std::string::npos ? options.listen : options.listen.substr(0, colon);
  auto resumed = impl->jobs->ResumeUnfinished();
  if (!resumed.ok()) return resumed.status();
  impl->resumed = *resumed;
  return std::unique_ptr<PrunerServer>(new PrunerServer(std::move(impl)));
}

int PrunerServer::port() const { return impl_->port; }
std::string PrunerServer::address() const { return absl::StrCat(impl_->host, ":", impl_->port); }
int PrunerServer::resumed_jobs() const { return impl_->resumed; }
std::string PrunerServer::access_description() const { return impl_->access->Describe(); }
JobManager& PrunerServer::jobs() { return *impl_->jobs; }
Dispatcher& PrunerServer::dispatcher() { return *impl_->dispatcher; }

void PrunerServer::Wait() { impl_->server->Wait(); }

void PrunerServer::Shutdown() {
  std::lock_guard<std::mutex> lock(impl_->shutdown_mu);
  if (impl_->shut_down) return;
  impl_->shut_down = true;
  // Jobs first: their threads stop and watch streams see the end; then the
  // transport, giving in-flight calls (long polls) a moment to return.
  impl_->jobs->Shutdown();
  impl_->server->Shutdown(std::chrono::system_clock::now() + std::chrono::seconds(2));
}

}  // namespace pruner
