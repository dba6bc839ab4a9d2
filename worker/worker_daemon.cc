#include "worker/worker_daemon.h"

#include <algorithm>
#include <optional>
#include <thread>
#include <utility>
#include <vector>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_format.h"
#include "common/base/status_macros.h"
#include "proto/daemon_log.h"
#include "worker/backoff.h"
#include "worker/lease_measurement.h"
#include "worker/rpc_outcome.h"

namespace pruner {
namespace {

using std::chrono::milliseconds;

// When the server does not say: a third of the lease timeout, so that two
// lost heartbeats in a row do not yet expire a lease.
milliseconds HeartbeatInterval(const v1::RegisterReply& reply) {
  if (reply.heartbeat_interval_ms() > 0) return milliseconds(reply.heartbeat_interval_ms());
  if (reply.lease_timeout_ms() > 0) {
    return milliseconds(std::max(100, reply.lease_timeout_ms() / 3));
  }
  return milliseconds(2000);
}

int CountOk(const std::vector<v1::CandidateResult>& results) {
  return static_cast<int>(std::count_if(results.begin(), results.end(), [](const auto& r) {
    return r.result().error() == v1::MEASURE_ERROR_NONE;
  }));
}

std::string Plural(int n, const char* word) {
  return absl::StrCat(n, " ", word, n == 1 ? "" : "s");
}

}  // namespace

WorkerDaemon::WorkerDaemon(WorkerOptions options, WorkerDevice device)
    : options_(std::move(options)),
      device_(std::move(device)),
      host_(options_.host.empty() ? LocalHostName() : options_.host),
      name_(options_.name.empty() ? DefaultWorkerName(host_, device_.profile.name)
                                  : options_.name),
      monitor_(options_.server_address),
      outbox_(options_.result_retention) {}

WorkerDaemon::~WorkerDaemon() { Stop(); }

absl::Status WorkerDaemon::Run() {
  PRUNER_RETURN_IF_ERROR(ValidateWorkerOptions(options_));
  PRUNER_ASSIGN_OR_RETURN(auto rpc,
                          WorkerRpcClient::Connect(options_.server_address, options_.security));
  {
    std::lock_guard<std::mutex> lock(mu_);
    if (stopping_) return absl::OkStatus();
    rpc_ = std::move(rpc);
  }

  std::thread session([this] { SessionLoop(); });
  std::vector<std::thread> slots;
  for (int i = 0; i < options_.slots; ++i) slots.emplace_back([this, i] { SlotLoop(i); });
  for (std::thread& slot : slots) slot.join();
  Stop();  // slots end only when stopping; make sure the session thread sees it
  session.join();

  absl::Status fatal;
  {
    std::lock_guard<std::mutex> lock(mu_);
    fatal = fatal_;
  }
  if (fatal.ok() && outbox_.size() > 0) {
    // One last bounded attempt: the server may be gone for good.
    FlushOutbox(options_.stop_report_timeout);
  }
  if (outbox_.size() > 0) {
    LogInfo(absl::StrCat("stopped with ", Plural(static_cast<int>(outbox_.size()), "report"),
                           " not delivered (the server re-queues that work)"));
  }
  return fatal;
}

void WorkerDaemon::Stop() {
  std::shared_ptr<WorkerRpcClient> rpc;
  {
    std::lock_guard<std::mutex> lock(mu_);
    if (stopping_) return;
    stopping_ = true;
    rpc = rpc_;
  }
  cv_.notify_all();
  if (rpc != nullptr) rpc->Shutdown();
}

WorkerStats WorkerDaemon::Stats() const {
  WorkerStats stats;
  {
    std::lock_guard<std::mutex> lock(mu_);
    stats.worker_id = worker_id_;
  }
  stats.registrations = registrations_.load();
  stats.leases = leases_.load();
  stats.reports_answered = reports_answered_.load();
  stats.report_attempts_unanswered = report_attempts_unanswered_.load();
  stats.leases_dropped = leases_dropped_.load();
  stats.reports_given_up = reports_given_up_.load();
  stats.reports_waiting = outbox_.size();
  return stats;
}

// ---- Session: registration and heartbeats ---------------------------------

void WorkerDaemon::SessionLoop() {
  Backoff backoff(options_.backoff);
  while (!stopping()) {
    milliseconds pause{0};
    const bool registered = !CurrentWorkerId().empty();
    const CallResult result = registered ? HeartbeatOnce() : RegisterOnce();
    ExpireOldReports();
    switch (result) {
      case CallResult::kFatal:
        return;
      case CallResult::kUnreachable:
        pause = backoff.Next();
        break;
      case CallResult::kForgotten:
        continue;  // register again at once
      case CallResult::kOk: {
        backoff.Reset();
        // The server answers again: whatever waits is worth sending now.
        FlushOutbox(options_.report_timeout);
        std::lock_guard<std::mutex> lock(mu_);
        pause = heartbeat_interval_;
        break;
      }
    }
    if (result == CallResult::kUnreachable) {
      if (!WaitBeforeRetry(pause)) return;
      continue;
    }
    std::unique_lock<std::mutex> lock(mu_);
    cv_.wait_for(lock, pause, [this] { return stopping_ || session_wake_; });
    session_wake_ = false;
    if (stopping_) return;
  }
}

WorkerDaemon::CallResult WorkerDaemon::RegisterOnce() {
  v1::RegisterRequest request;
  request.set_name(name_);
  request.set_host(host_);
  *request.mutable_device() = WorkerDeviceToWire(device_);
  request.set_slots(options_.slots);
  request.set_version(options_.version);
  v1::RegisterReply reply;
  const grpc::Status status = rpc_->Register(request, &reply, options_.rpc_timeout);
  if (std::optional<CallResult> failed = Unanswered(status)) return *failed;
  if (!status.ok()) {
    Fail(ToAbslStatus(status, absl::StrCat("server ", options_.server_address,
                                           " refused to register this worker: ")));
    return CallResult::kFatal;
  }
  if (reply.worker_id().empty()) {
    Fail(absl::InternalError("the server registered this worker without giving it an id"));
    return CallResult::kFatal;
  }
  const milliseconds interval = HeartbeatInterval(reply);
  {
    std::lock_guard<std::mutex> lock(mu_);
    worker_id_ = reply.worker_id();
    ++generation_;
    heartbeat_interval_ = interval;
  }
  cv_.notify_all();
  ++registrations_;
  LogInfo(absl::StrFormat(
      "registered with %s as worker %s (%s, device %s, %s; heartbeat every %d ms, lease "
      "timeout %d ms)",
      options_.server_address, reply.worker_id(), name_, device_.profile.name,
      Plural(options_.slots, "slot"), static_cast<int>(interval.count()),
      reply.lease_timeout_ms()));
  return CallResult::kOk;
}

WorkerDaemon::CallResult WorkerDaemon::HeartbeatOnce() {
  v1::HeartbeatRequest request;
  uint64_t generation = 0;
  {
    std::lock_guard<std::mutex> lock(mu_);
    request.set_worker_id(worker_id_);
    generation = generation_;
    // Only leases being measured: finished results waiting in the outbox are
    // not "worked on", and a server that no longer holds their lease would
    // revoke them, although it still takes late results whose measurement
    // ids are pending.
    for (const auto& [lease_id, lease] : active_) {
      if (!lease.dropped) request.add_lease_ids(lease_id);
    }
  }
  v1::HeartbeatReply reply;
  const grpc::Status status = rpc_->Heartbeat(request, &reply, options_.rpc_timeout);
  if (std::optional<CallResult> failed = Unanswered(status)) return *failed;
  if (status.error_code() == grpc::StatusCode::NOT_FOUND) {
    ForgetRegistration(generation, DescribeRpcStatus(status));
    return CallResult::kForgotten;
  }
  if (!status.ok()) {
    // The server is up but unhappy; the next heartbeat may fare better.
    LogWarning(absl::StrCat("heartbeat failed: ", DescribeRpcStatus(status)));
    return CallResult::kOk;
  }
  if (!reply.known()) {
    ForgetRegistration(generation, "heartbeat: known=false; it restarted or declared this "
                                   "worker dead");
    return CallResult::kForgotten;
  }
  for (const std::string& lease_id : reply.revoked_lease_ids()) RevokeLease(lease_id);
  return CallResult::kOk;
}

// ---- Slots: lease, measure, report -----------------------------------------

void WorkerDaemon::SlotLoop(int slot) {
  Backoff backoff(options_.backoff);
  std::string last_refusal;
  while (true) {
    std::string worker_id;
    uint64_t generation = 0;
    if (!WaitForRegistration(&worker_id, &generation)) return;
    v1::LeaseRequest request;
    request.set_worker_id(worker_id);
    request.set_max_candidates(options_.max_candidates);
    request.set_wait_ms(options_.wait_ms);
    v1::Lease lease;
    const grpc::Status status = rpc_->LeaseBatch(request, &lease, options_.rpc_timeout);
    if (std::optional<CallResult> failed = Unanswered(status)) {
      if (*failed == CallResult::kFatal || !WaitBeforeRetry(backoff.Next())) return;
      continue;
    }
    if (status.error_code() == grpc::StatusCode::NOT_FOUND) {
      ForgetRegistration(generation, DescribeRpcStatus(status));
      continue;
    }
    if (!status.ok()) {
      const std::string why = DescribeRpcStatus(status);
      if (why != last_refusal) LogInfo(absl::StrCat("slot ", slot, ": lease refused: ", why));
      last_refusal = why;
      if (!SleepUnlessStopped(backoff.Next())) return;
      continue;
    }
    backoff.Reset();
    last_refusal.clear();
    if (lease.lease_id().empty()) continue;  // no work now: ask again
    MeasureAndReport(slot, lease, generation);
  }
}

void WorkerDaemon::MeasureAndReport(int slot, const v1::Lease& lease, uint64_t generation) {
  ++leases_;
  const std::string& id = lease.lease_id();
  const int n = lease.candidates_size();
  LogInfo(absl::StrFormat("slot %d: lease %s: %s for job %d task %d (%s)", slot, id,
                            Plural(n, "candidate"), lease.job_id(), lease.task_index(),
                            lease.workload().name().empty() ? lease.workload().key()
                                                            : lease.workload().name()));
  {
    std::lock_guard<std::mutex> lock(mu_);
    active_[id] = ActiveLease{generation, false, ""};
  }
  LeaseMeasurementContext context;
  context.worker_name = name_;
  context.device_key = device_.profile.name;
  context.build_jobs = options_.build_jobs;
  context.cpu_build = options_.cpu_build;
  if (!options_.work_dir.empty()) {
    context.work_dir = absl::StrCat(options_.work_dir, "/slot-", slot);
  }
  const auto start = std::chrono::steady_clock::now();
  LeaseMeasurement measured = MeasureLease(lease, context, [this, &id] {
    std::lock_guard<std::mutex> lock(mu_);
    return !stopping_ && !active_[id].dropped;
  });
  const double seconds =
      std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();

  ActiveLease state;
  {
    std::lock_guard<std::mutex> lock(mu_);
    state = active_[id];
    active_.erase(id);
  }
  if (state.dropped) {
    ++leases_dropped_;
    LogWarning(absl::StrCat("slot ", slot, ": lease ", id, " dropped (", state.why_dropped,
                           "): its results are not reported"));
    return;
  }

  // Counted before the results move into the report (a moved-from result
  // reads as ok: this log once said "8 of 8 ok" of eight run errors).
  const int ok = CountOk(measured.results);
  v1::ReportRequest report;
  report.set_lease_id(id);
  for (v1::CandidateResult& result : measured.results) *report.add_results() = std::move(result);
  if (!measured.infrastructure_error.empty()) {
    report.set_infrastructure_error(measured.infrastructure_error);
    LogWarning(absl::StrCat("slot ", slot, ": lease ", id, ": ", measured.infrastructure_error));
  } else if (measured.abandoned) {
    report.set_infrastructure_error(absl::StrCat("worker ", name_, " is stopping: ",
                                                 report.results_size(), " of ", n,
                                                 " candidates measured"));
    LogInfo(absl::StrFormat("slot %d: lease %s abandoned on stop after %d of %d candidates",
                              slot, id, report.results_size(), n));
  } else {
    LogInfo(absl::StrFormat("slot %d: lease %s measured: %d of %d ok in %.1f s", slot, id,
                              ok, n, seconds));
  }
  outbox_.Add(std::move(report));
  FlushOutbox(stopping() ? options_.stop_report_timeout : options_.report_timeout);
}

void WorkerDaemon::FlushOutbox(milliseconds timeout) {
  const std::string worker_id = CurrentWorkerId();
  if (worker_id.empty()) return;  // sent after the next registration
  std::vector<v1::ReportRequest> ready = outbox_.TakeReady();
  for (size_t i = 0; i < ready.size(); ++i) {
    v1::ReportRequest& report = ready[i];
    report.set_worker_id(worker_id);
    v1::ReportReply reply;
    const grpc::Status status = rpc_->ReportResults(report, &reply, timeout);
    if (std::optional<CallResult> failed = Unanswered(status)) {
      // Put this one and the rest back; they go out once the server answers.
      for (size_t j = i; j < ready.size(); ++j) outbox_.Unanswered(ready[j].lease_id());
      if (*failed == CallResult::kUnreachable) ++report_attempts_unanswered_;
      return;
    }
    outbox_.Answered(report.lease_id());
    ++reports_answered_;
    if (status.ok()) {
      LogInfo(absl::StrFormat("reported lease %s: %d accepted, %d duplicates, %d unknown%s",
                                report.lease_id(), reply.accepted(), reply.duplicates(),
                                reply.unknown(),
                                report.infrastructure_error().empty() ? ""
                                                                      : " (infrastructure error)"));
    } else {
      LogWarning(absl::StrCat("the server refused the results of lease ", report.lease_id(), " (",
                             DescribeRpcStatus(status), "): not sent again"));
    }
  }
}

void WorkerDaemon::ExpireOldReports() {
  for (const std::string& lease_id : outbox_.ExpireOld()) {
    ++reports_given_up_;
    LogError(absl::StrCat("gave up on the results of lease ", lease_id, " after ",
                           std::chrono::duration_cast<std::chrono::seconds>(
                               options_.result_retention).count(),
                           " s without an answer"));
  }
}

// ---- Shared state ------------------------------------------------------------

bool WorkerDaemon::WaitForRegistration(std::string* worker_id, uint64_t* generation) {
  std::unique_lock<std::mutex> lock(mu_);
  cv_.wait(lock, [this] { return stopping_ || !worker_id_.empty(); });
  if (stopping_) return false;
  *worker_id = worker_id_;
  *generation = generation_;
  return true;
}

void WorkerDaemon::ForgetRegistration(uint64_t generation, const std::string& why) {
  std::string old_id;
  int dropped = 0;
  {
    std::lock_guard<std::mutex> lock(mu_);
    if (generation != generation_ || worker_id_.empty()) return;  // already handled
    old_id = std::move(worker_id_);
    worker_id_.clear();
    for (auto& [lease_id, lease] : active_) {
      if (lease.dropped) continue;
      lease.dropped = true;
      lease.why_dropped = "the server forgot this worker";
      ++dropped;
    }
    session_wake_ = true;
  }
  cv_.notify_all();
  LogWarning(absl::StrCat("worker ", old_id, " is unknown to the server (", why,
                         "); registering again",
                         dropped > 0 ? absl::StrCat(", dropping ", Plural(dropped, "lease"),
                                                    " in progress")
                                     : ""));
}

void WorkerDaemon::RevokeLease(const std::string& lease_id) {
  bool was_active = false;
  {
    std::lock_guard<std::mutex> lock(mu_);
    auto it = active_.find(lease_id);
    if (it != active_.end() && !it->second.dropped) {
      it->second.dropped = true;
      it->second.why_dropped = "revoked by the server";
      was_active = true;
    }
  }
  if (outbox_.Drop(lease_id)) {
    ++leases_dropped_;
    LogWarning(absl::StrCat("lease ", lease_id, " revoked by the server: its results are dropped"));
  } else if (was_active) {
    LogWarning(absl::StrCat("lease ", lease_id, " revoked by the server: stopping its measurement"));
  }
}

std::string WorkerDaemon::CurrentWorkerId() const {
  std::lock_guard<std::mutex> lock(mu_);
  return worker_id_;
}

bool WorkerDaemon::SleepUnlessStopped(milliseconds pause) {
  std::unique_lock<std::mutex> lock(mu_);
  return !cv_.wait_for(lock, pause, [this] { return stopping_; });
}

bool WorkerDaemon::WaitBeforeRetry(milliseconds pause) {
  if (rpc_->Connected()) return SleepUnlessStopped(pause);
  // One connection attempt now, then gRPC's own schedule (1 s, 1.6 s, ...):
  // a farm of workers must not flood a server that is down.
  rpc_->ResetConnectBackoff();
  const auto end = std::chrono::steady_clock::now() + pause;
  while (!stopping()) {
    const auto left =
        std::chrono::duration_cast<milliseconds>(end - std::chrono::steady_clock::now());
    if (left.count() <= 0) return true;
    // Short slices: Stop() must not wait for a whole backoff delay.
    if (rpc_->WaitForConnected(std::min(left, milliseconds(100)))) return true;
  }
  return false;
}

bool WorkerDaemon::stopping() const {
  std::lock_guard<std::mutex> lock(mu_);
  return stopping_;
}

void WorkerDaemon::Fail(absl::Status status) {
  {
    std::lock_guard<std::mutex> lock(mu_);
    if (!fatal_.ok()) return;
    fatal_ = std::move(status);
  }
  Stop();
}

std::optional<WorkerDaemon::CallResult> WorkerDaemon::Unanswered(const grpc::Status& status) {
  switch (ClassifyRpcStatus(status)) {
    case RpcOutcome::kBadCredentials:
      Fail(ToAbslStatus(status, absl::StrCat("server ", options_.server_address,
                                             " refused this worker's credentials: ")));
      return CallResult::kFatal;
    case RpcOutcome::kUnreachable:
      // A call cancelled because the daemon stops says nothing about the
      // server.
      if (!stopping()) monitor_.Unreachable(status);
      return CallResult::kUnreachable;
    case RpcOutcome::kAnswered:
      break;
  }
  monitor_.Answered();
  return std::nullopt;
}

}  // namespace pruner
