#include "bench/service/sim_async_worker.h"

#include <algorithm>

namespace pruner::bench {
namespace {

double MsSince(SimClock::time_point t0) {
  return std::chrono::duration<double, std::milli>(SimClock::now() - t0).count();
}

// grpc::Alarm takes a system_clock deadline.
std::chrono::system_clock::time_point ToSystem(SimClock::time_point t) {
  return std::chrono::system_clock::now() +
         std::chrono::duration_cast<std::chrono::system_clock::duration>(t - SimClock::now());
}

}  // namespace

AsyncSimWorker::AsyncSimWorker(std::string name, std::shared_ptr<grpc::Channel> channel,
                               SimWorkerOptions options, grpc::CompletionQueue* cq,
                               const std::atomic<bool>* stop)
    : name_(std::move(name)),
      stub_(v1::WorkerService::NewStub(std::move(channel))),
      options_(std::move(options)),
      cq_(cq),
      stop_(stop) {}

std::unique_ptr<grpc::ClientContext> AsyncSimWorker::NewContext(
    std::chrono::milliseconds deadline) {
  auto context = std::make_unique<grpc::ClientContext>();
  context->set_deadline(std::chrono::system_clock::now() + deadline);
  return context;
}

void AsyncSimWorker::CountError(const char* rpc) { CountRpcError(rpc, status_, &stats_); }

void AsyncSimWorker::Start() { StartRegister(); }

void AsyncSimWorker::StartRegister() {
  op_ = Op::kRegister;
  ++register_attempts_;
  context_ = NewContext(options_.rpc_margin);
  call_start_ = SimClock::now();
  register_call_ =
      stub_->PrepareAsyncRegister(context_.get(), SimRegisterRequest(name_, options_), cq_);
  register_call_->StartCall();
  register_call_->Finish(&register_reply_, &status_, this);
}

void AsyncSimWorker::StartHeartbeat() {
  op_ = Op::kHeartbeat;
  v1::HeartbeatRequest request;
  request.set_worker_id(worker_id_);
  if (measuring_) request.add_lease_ids(lease_.lease_id());
  last_heartbeat_ = SimClock::now();
  context_ = NewContext(options_.rpc_margin);
  heartbeat_call_ = stub_->PrepareAsyncHeartbeat(context_.get(), request, cq_);
  heartbeat_call_->StartCall();
  heartbeat_call_->Finish(&heartbeat_reply_, &status_, this);
}

void AsyncSimWorker::StartLease() {
  op_ = Op::kLease;
  v1::LeaseRequest request;
  request.set_worker_id(worker_id_);
  request.set_max_candidates(options_.max_candidates);
  request.set_wait_ms(options_.wait_ms);
  lease_.Clear();
  context_ = NewContext(std::chrono::milliseconds(options_.wait_ms) + options_.rpc_margin);
  call_start_ = SimClock::now();
  lease_call_ = stub_->PrepareAsyncLeaseBatch(context_.get(), request, cq_);
  lease_call_->StartCall();
  lease_call_->Finish(&lease_, &status_, this);
}

void AsyncSimWorker::StartReport() {
  op_ = Op::kReport;
  measuring_ = false;
  context_ = NewContext(options_.rpc_margin);
  call_start_ = SimClock::now();
  report_call_ = stub_->PrepareAsyncReportResults(
      context_.get(), SimReportRequest(worker_id_, lease_, options_), cq_);
  report_call_->StartCall();
  report_call_->Finish(&report_reply_, &status_, this);
}

void AsyncSimWorker::SleepUntil(SimClock::time_point when, Op op) {
  op_ = op;
  alarm_.Set(cq_, ToSystem(when), this);
}

bool AsyncSimWorker::HeartbeatDue() const {
  return SimClock::now() - last_heartbeat_ >= heartbeat_interval_;
}

void AsyncSimWorker::Next() {
  if (stop_->load(std::memory_order_relaxed)) {
    done_ = true;
    return;
  }
  if (HeartbeatDue()) {
    StartHeartbeat();
  } else {
    StartLease();
  }
}

// The synthetic measurement, in heartbeat-sized slices so that a long one
// keeps its lease alive, as in the threaded worker.
void AsyncSimWorker::ContinueMeasurement() {
  const SimClock::time_point now = SimClock::now();
  if (now >= measure_end_) {
    StartReport();
  } else if (HeartbeatDue()) {
    StartHeartbeat();
  } else {
    SleepUntil(std::min(measure_end_, last_heartbeat_ + heartbeat_interval_), Op::kMeasure);
  }
}

void AsyncSimWorker::AfterRegister() {
  if (!status_.ok()) {
    CountError("Register");
    // As the threaded worker: a few tries with a growing pause, then give up.
    if (register_attempts_ < 5 && !stop_->load()) {
      SleepUntil(SimClock::now() + std::chrono::milliseconds(200 * register_attempts_),
                 Op::kRegisterBackoff);
      return;
    }
    settled_.store(true);
    done_ = !stats_.registered || stop_->load();
    if (!done_) measuring_ ? ContinueMeasurement() : Next();
    return;
  }
  if (!stats_.registered) stats_.register_ms = MsSince(call_start_);
  stats_.registered = true;
  settled_.store(true);
  register_attempts_ = 0;
  worker_id_ = register_reply_.worker_id();
  heartbeat_interval_ =
      std::chrono::milliseconds(std::max(50, register_reply_.heartbeat_interval_ms()));
  last_heartbeat_ = SimClock::now();
  measuring_ ? ContinueMeasurement() : Next();
}

void AsyncSimWorker::AfterHeartbeat() {
  if (!status_.ok()) {
    CountError("Heartbeat");
  } else {
    ++stats_.heartbeats;
    stats_.revoked += heartbeat_reply_.revoked_lease_ids_size();
    if (!heartbeat_reply_.known()) {
      ++stats_.reregistered;
      StartRegister();
      return;
    }
  }
  measuring_ ? ContinueMeasurement() : Next();
}

void AsyncSimWorker::AfterLease() {
  const double rtt_ms = MsSince(call_start_);
  if (!status_.ok()) {
    CountError("LeaseBatch");
    if (status_.error_code() == grpc::StatusCode::NOT_FOUND) {
      ++stats_.reregistered;
      StartRegister();
    } else {
      SleepUntil(SimClock::now() + std::chrono::milliseconds(100), Op::kLeaseBackoff);
    }
    return;
  }
  if (lease_.lease_id().empty()) {
    ++stats_.empty_polls;
    Next();
    return;
  }
  ++stats_.leases;
  stats_.candidates += lease_.candidates_size();
  stats_.lease_samples.push_back(CallSample{SimClock::now(), rtt_ms});
  measuring_ = true;
  measure_end_ = SimClock::now() + SimMeasureTime(lease_, options_);
  ContinueMeasurement();
}

void AsyncSimWorker::AfterReport() {
  stats_.report_samples.push_back(CallSample{SimClock::now(), MsSince(call_start_)});
  if (!status_.ok()) {
    CountError("ReportResults");
  } else {
    stats_.accepted += report_reply_.accepted();
    stats_.duplicates += report_reply_.duplicates();
    stats_.unknown += report_reply_.unknown();
  }
  Next();
}

bool AsyncSimWorker::OnEvent(bool ok) {
  // `ok` is false only for an alarm that was cancelled (never here) or a
  // call on a shut-down queue (the driver shuts it down only when every
  // worker is done); a call's own failure arrives in status_.
  switch (op_) {
    case Op::kRegister:
      AfterRegister();
      break;
    case Op::kRegisterBackoff:
      StartRegister();
      break;
    case Op::kHeartbeat:
      AfterHeartbeat();
      break;
    case Op::kLease:
      AfterLease();
      break;
    case Op::kLeaseBackoff:
      Next();
      break;
    case Op::kMeasure:
      ContinueMeasurement();
      break;
    case Op::kReport:
      AfterReport();
      break;
  }
  return done_;
}

}  // namespace pruner::bench
