#include "bench/service/sim_worker.h"

#include <pthread.h>

#include <algorithm>
#include <functional>
#include <thread>

#include "absl/status/status.h"
#include "absl/strings/str_cat.h"

namespace pruner::bench {
namespace {

std::chrono::system_clock::time_point DeadlineIn(std::chrono::milliseconds d) {
  return std::chrono::system_clock::now() + d;
}

double MsSince(SimClock::time_point t0) {
  return std::chrono::duration<double, std::milli>(SimClock::now() - t0).count();
}

}  // namespace

v1::MeasureResult SyntheticResult(const std::string& measurement_id, double run_s) {
  // Fixed by the id so that a repeated run of the benchmark writes the same
  // kind of records; the values only have to pass the server's checks.
  const size_t h = std::hash<std::string>{}(measurement_id);
  const double mean = 1e-4 * (1.0 + static_cast<double>(h % 1000) / 100.0);
  v1::MeasureResult r;
  r.set_error(v1::MEASURE_ERROR_NONE);
  r.add_repeat_costs_s(mean * 0.99);
  r.add_repeat_costs_s(mean);
  r.add_repeat_costs_s(mean * 1.01);
  r.set_mean_s(mean);
  r.set_run_s(run_s);
  return r;
}

v1::RegisterRequest SimRegisterRequest(const std::string& name, const SimWorkerOptions& options) {
  v1::RegisterRequest request;
  request.set_name(name);
  request.set_host("loopback-simulated");
  *request.mutable_device() = options.device;
  request.set_slots(1);
  request.set_version("bench_service_load (simulated)");
  return request;
}

v1::ReportRequest SimReportRequest(const std::string& worker_id, const v1::Lease& lease,
                                   const SimWorkerOptions& options) {
  v1::ReportRequest request;
  request.set_worker_id(worker_id);
  request.set_lease_id(lease.lease_id());
  const double run_s = options.measure_ms / 1000.0;
  for (const v1::Candidate& c : lease.candidates()) {
    v1::CandidateResult* r = request.add_results();
    r->set_measurement_id(c.measurement_id());
    *r->mutable_result() = SyntheticResult(c.measurement_id(), run_s);
  }
  return request;
}

void CountRpcError(const char* rpc, const grpc::Status& status, SimWorkerStats* stats) {
  const auto code = static_cast<absl::StatusCode>(static_cast<int>(status.error_code()));
  ++stats->rpc_errors[absl::StrCat(rpc, ":", absl::StatusCodeToString(code))];
}

SimClock::duration SimMeasureTime(const v1::Lease& lease, const SimWorkerOptions& options) {
  return std::chrono::duration_cast<SimClock::duration>(std::chrono::duration<double, std::milli>(
      options.measure_ms * static_cast<double>(lease.candidates_size())));
}

SimWorker::SimWorker(std::string name, std::shared_ptr<grpc::Channel> channel,
                     SimWorkerOptions options)
    : name_(std::move(name)),
      stub_(v1::WorkerService::NewStub(std::move(channel))),
      options_(std::move(options)) {}

bool SimWorker::Register() {
  const v1::RegisterRequest request = SimRegisterRequest(name_, options_);
  v1::RegisterReply reply;
  grpc::ClientContext context;
  context.set_deadline(DeadlineIn(options_.rpc_margin));
  const SimClock::time_point t0 = SimClock::now();
  const grpc::Status status = stub_->Register(&context, request, &reply);
  if (!status.ok()) {
    CountRpcError("Register", status, &stats_);
    return false;
  }
  if (!stats_.registered) stats_.register_ms = MsSince(t0);
  stats_.registered = true;
  worker_id_ = reply.worker_id();
  heartbeat_interval_ = std::chrono::milliseconds(std::max(50, reply.heartbeat_interval_ms()));
  last_heartbeat_ = SimClock::now();
  return true;
}

void SimWorker::MaybeHeartbeat(const std::string& lease_id) {
  if (SimClock::now() - last_heartbeat_ < heartbeat_interval_) return;
  v1::HeartbeatRequest request;
  request.set_worker_id(worker_id_);
  if (!lease_id.empty()) request.add_lease_ids(lease_id);
  v1::HeartbeatReply reply;
  grpc::ClientContext context;
  context.set_deadline(DeadlineIn(options_.rpc_margin));
  last_heartbeat_ = SimClock::now();
  const grpc::Status status = stub_->Heartbeat(&context, request, &reply);
  if (!status.ok()) {
    CountRpcError("Heartbeat", status, &stats_);
    return;
  }
  ++stats_.heartbeats;
  stats_.revoked += reply.revoked_lease_ids_size();
  if (!reply.known()) {
    // Declared dead (it was starved of CPU past the lease timeout): a real
    // worker registers again, and so does this one.
    ++stats_.reregistered;
    (void)Register();
  }
}

void SimWorker::SimulateMeasurement(const v1::Lease& lease) {
  const SimClock::time_point end = SimClock::now() + SimMeasureTime(lease, options_);
  // Sleep in heartbeat-sized slices so that a long synthetic measurement
  // keeps its lease alive, as a real worker's would.
  while (true) {
    const SimClock::time_point now = SimClock::now();
    if (now >= end) break;
    std::this_thread::sleep_until(std::min(end, now + heartbeat_interval_));
    MaybeHeartbeat(lease.lease_id());
  }
}

void SimWorker::Report(const v1::Lease& lease) {
  const v1::ReportRequest request = SimReportRequest(worker_id_, lease, options_);
  v1::ReportReply reply;
  grpc::ClientContext context;
  context.set_deadline(DeadlineIn(options_.rpc_margin));
  const SimClock::time_point t0 = SimClock::now();
  const grpc::Status status = stub_->ReportResults(&context, request, &reply);
  stats_.report_samples.push_back(CallSample{SimClock::now(), MsSince(t0)});
  if (!status.ok()) {
    // The lease expires on the server and its candidates are leased again;
    // the benchmark counts this as an error, not as lost work.
    CountRpcError("ReportResults", status, &stats_);
    return;
  }
  stats_.accepted += reply.accepted();
  stats_.duplicates += reply.duplicates();
  stats_.unknown += reply.unknown();
}

void SimWorker::Run(const std::atomic<bool>& stop) {
  // Named so that perf and top tell these threads from the server's.
  pthread_setname_np(pthread_self(), "sim-worker");
  // A thousand workers connecting at once can find the listen queue full;
  // like a real worker, retry a few times with a growing pause (each
  // failure still counts as an RPC error).
  bool ok = false;
  for (int attempt = 1; attempt <= 5 && !ok && !stop.load(); ++attempt) {
    ok = Register();
    if (!ok) std::this_thread::sleep_for(std::chrono::milliseconds(200 * attempt));
  }
  settled_.store(true);
  if (!ok) return;
  while (!stop.load(std::memory_order_relaxed)) {
    MaybeHeartbeat("");
    v1::LeaseRequest request;
    request.set_worker_id(worker_id_);
    request.set_max_candidates(options_.max_candidates);
    request.set_wait_ms(options_.wait_ms);
    v1::Lease lease;
    grpc::ClientContext context;
    context.set_deadline(
        DeadlineIn(std::chrono::milliseconds(options_.wait_ms) + options_.rpc_margin));
    const SimClock::time_point t0 = SimClock::now();
    const grpc::Status status = stub_->LeaseBatch(&context, request, &lease);
    const double rtt_ms = MsSince(t0);
    if (!status.ok()) {
      CountRpcError("LeaseBatch", status, &stats_);
      if (status.error_code() == grpc::StatusCode::NOT_FOUND) {
        ++stats_.reregistered;
        (void)Register();
      } else {
        std::this_thread::sleep_for(std::chrono::milliseconds(100));
      }
      continue;
    }
    if (lease.lease_id().empty()) {
      ++stats_.empty_polls;
      continue;
    }
    ++stats_.leases;
    stats_.candidates += lease.candidates_size();
    stats_.lease_samples.push_back(CallSample{SimClock::now(), rtt_ms});
    SimulateMeasurement(lease);
    Report(lease);
  }
}

}  // namespace pruner::bench
