// The simulated worker of sim_worker.h as a state machine on a gRPC
// completion queue, so that a few threads can drive a thousand of them.
// Same protocol, same synthetic results, same counters: each one registers
// on its own, holds its own worker_id and leases, and heart-beats on its
// own schedule; only the thread it waits on is shared.
//
// One operation at a time per worker (a call or an alarm), so the worker
// itself is the completion-queue tag.
#ifndef PRUNER_BENCH_SERVICE_SIM_ASYNC_WORKER_H_
#define PRUNER_BENCH_SERVICE_SIM_ASYNC_WORKER_H_

#include <atomic>
#include <memory>
#include <string>

#include "bench/service/sim_worker.h"
#include "grpcpp/alarm.h"
#include "grpcpp/grpcpp.h"
#include "pruner/v1/worker_service.grpc.pb.h"

namespace pruner::bench {

class AsyncSimWorker {
 public:
  AsyncSimWorker(std::string name, std::shared_ptr<grpc::Channel> channel, SimWorkerOptions options,
                 grpc::CompletionQueue* cq, const std::atomic<bool>* stop);

  // Issues the first Register; the driver thread does the rest.
  void Start();
  // The driver thread hands back this worker's completed operation. Returns
  // true when the worker has just finished for good (stopped, or never
  // registered).
  bool OnEvent(bool ok);

  const std::string& name() const { return name_; }
  bool settled() const { return settled_.load(); }
  const SimWorkerStats& stats() const { return stats_; }

 private:
  enum class Op {
    kRegister,
    kRegisterBackoff,
    kHeartbeat,
    kLease,
    kLeaseBackoff,
    kMeasure,
    kReport
  };

  // What to do when nothing is in hand: stop, heartbeat or lease.
  void Next();
  bool HeartbeatDue() const;
  void StartRegister();
  void StartHeartbeat();
  void StartLease();
  void ContinueMeasurement();
  void StartReport();
  void SleepUntil(SimClock::time_point when, Op op);
  void AfterRegister();
  void AfterHeartbeat();
  void AfterLease();
  void AfterReport();
  void CountError(const char* rpc);
  std::unique_ptr<grpc::ClientContext> NewContext(std::chrono::milliseconds deadline);

  const std::string name_;
  std::unique_ptr<v1::WorkerService::Stub> stub_;
  const SimWorkerOptions options_;
  grpc::CompletionQueue* const cq_;
  const std::atomic<bool>* const stop_;

  Op op_ = Op::kRegister;
  bool done_ = false;
  bool measuring_ = false;  // a lease is in hand (heartbeats carry it)
  int register_attempts_ = 0;
  std::string worker_id_;
  std::chrono::milliseconds heartbeat_interval_{1000};
  SimClock::time_point last_heartbeat_;
  SimClock::time_point call_start_;
  SimClock::time_point measure_end_;

  std::unique_ptr<grpc::ClientContext> context_;
  grpc::Status status_;
  grpc::Alarm alarm_;
  v1::RegisterReply register_reply_;
  v1::HeartbeatReply heartbeat_reply_;
  v1::Lease lease_;
  v1::ReportReply report_reply_;
  std::unique_ptr<grpc::ClientAsyncResponseReader<v1::RegisterReply>> register_call_;
  std::unique_ptr<grpc::ClientAsyncResponseReader<v1::HeartbeatReply>> heartbeat_call_;
  std::unique_ptr<grpc::ClientAsyncResponseReader<v1::Lease>> lease_call_;
  std::unique_ptr<grpc::ClientAsyncResponseReader<v1::ReportReply>> report_call_;

  std::atomic<bool> settled_{false};
  SimWorkerStats stats_;
};

}  // namespace pruner::bench

#endif  // PRUNER_BENCH_SERVICE_SIM_ASYNC_WORKER_H_
