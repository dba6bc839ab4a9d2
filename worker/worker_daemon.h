// The worker daemon: registers this host's device with a pruner server,
// keeps the registration alive with heartbeats, and runs one lease loop per
// device slot (lease a batch, measure it, report the results).
//
// Threads: one session thread (Register, then Heartbeat every
// heartbeat_interval_ms, re-registering when the server no longer knows the
// worker, and re-sending reports the server has not answered) and one
// thread per slot. The slot threads call MeasureBatch, which forks sandbox
// children; none of these threads ever runs OpenMP, which is what makes
// that fork safe (see common/measure/sandbox.h).
//
// Lease semantics this daemon assumes of the server:
// - Heartbeat lists the leases being measured. A lease in
//   revoked_lease_ids is dropped: its measurement stops after the current
//   chunk and its results are never reported. known=false (or NOT_FOUND)
//   drops every lease in progress and registers again. Finished results
//   still waiting for the server are kept through both and re-sent, under
//   the new worker id after a re-registration: the server ignores
//   duplicates and unknown leases, and takes late results whose
//   measurement ids are still pending.
// - LeaseBatch answering NOT_FOUND means "unknown worker": register again.
// - A report is given up once the server answered it (OK or any error of
//   its own), or after WorkerOptions::result_retention.
//
// Failure handling: a call that gets no answer is retried with exponential
// backoff; only the transitions are logged. UNAUTHENTICATED or
// PERMISSION_DENIED from any call, or any refusal of Register, stops the
// daemon and Run() returns that status: retrying cannot fix credentials.
#ifndef PRUNER_WORKER_WORKER_DAEMON_H_
#define PRUNER_WORKER_WORKER_DAEMON_H_

#include <atomic>
#include <chrono>
#include <condition_variable>
#include <cstdint>
#include <map>
#include <memory>
#include <mutex>
#include <optional>
#include <string>

#include "absl/status/status.h"
#include "pruner/v1/worker_service.pb.h"
#include "worker/connection_monitor.h"
#include "worker/result_outbox.h"
#include "worker/worker_device.h"
#include "worker/worker_options.h"
#include "worker/worker_rpc_client.h"

namespace pruner {

struct WorkerStats {
  std::string worker_id;  // "" while not registered
  int64_t registrations = 0;
  int64_t leases = 0;                      // non-empty leases received
  int64_t reports_answered = 0;            // reports the server answered
  int64_t report_attempts_unanswered = 0;  // attempts that got no answer
  int64_t leases_dropped = 0;              // revoked or forgotten: not reported
  int64_t reports_given_up = 0;            // older than the retention
  size_t reports_waiting = 0;              // in the outbox now
};

class WorkerDaemon {
 public:
  WorkerDaemon(WorkerOptions options, WorkerDevice device);
  ~WorkerDaemon();
  WorkerDaemon(const WorkerDaemon&) = delete;
  WorkerDaemon& operator=(const WorkerDaemon&) = delete;

  // Blocks until Stop() (then OK) or a fatal error (its status). Call once.
  absl::Status Run();
  // Thread-safe, returns at once. Run() then finishes or abandons the
  // current chunk of each lease, reports what was measured with an
  // infrastructure_error for the rest (so the server re-queues it at once),
  // makes one bounded last attempt for reports still waiting, and returns.
  void Stop();

  WorkerStats Stats() const;
  const std::string& name() const { return name_; }

 private:
  enum class CallResult { kOk, kUnreachable, kForgotten, kFatal };

  // A lease being measured by a slot.
  struct ActiveLease {
    uint64_t generation = 0;  // of the registration it was leased under
    bool dropped = false;
    std::string why_dropped;
  };

  void SessionLoop();
  CallResult RegisterOnce();
  CallResult HeartbeatOnce();

  void SlotLoop(int slot);
  void MeasureAndReport(int slot, const v1::Lease& lease, uint64_t generation);
  // Sends every report in the outbox not already being sent, stopping at
  // the first that gets no answer.
  void FlushOutbox(std::chrono::milliseconds timeout);
  void ExpireOldReports();

  // Waits until registered; false when stopping.
  bool WaitForRegistration(std::string* worker_id, uint64_t* generation);
  // Forgets the registration `generation` (if still current): drops every
  // lease in progress and wakes the session thread to register again.
  void ForgetRegistration(uint64_t generation, const std::string& why);
  void RevokeLease(const std::string& lease_id);
  std::string CurrentWorkerId() const;
  // Sleeps for `pause` or until Stop(); false when stopping.
  bool SleepUnlessStopped(std::chrono::milliseconds pause);
  // The pause between retries of a call that got no answer: up to `pause`,
  // but over as soon as the channel connects again, so that a restarted
  // server is found at once rather than after the rest of a 5 s delay. A
  // server that is connected but does not answer in time keeps the full
  // pause. False when stopping.
  bool WaitBeforeRetry(std::chrono::milliseconds pause);
  bool stopping() const;
  void Fail(absl::Status status);
  // For the status of any call: kFatal after bad credentials (the daemon
  // fails), kUnreachable when no answer came (logged once per outage), or
  // nullopt when the server answered (OK or an error of its own).
  std::optional<CallResult> Unanswered(const grpc::Status& status);

  const WorkerOptions options_;
  const WorkerDevice device_;
  const std::string host_;
  const std::string name_;
  ConnectionMonitor monitor_;
  ResultOutbox outbox_;
  std::shared_ptr<WorkerRpcClient> rpc_;  // set by Run() before any thread starts

  mutable std::mutex mu_;
  std::condition_variable cv_;
  bool stopping_ = false;
  bool session_wake_ = false;  // ForgetRegistration asks for a new Register
  absl::Status fatal_;
  std::string worker_id_;
  uint64_t generation_ = 0;
  std::chrono::milliseconds heartbeat_interval_{2000};
  std::map<std::string, ActiveLease> active_;  // by lease id

  std::atomic<int64_t> registrations_{0};
  std::atomic<int64_t> leases_{0};
  std::atomic<int64_t> reports_answered_{0};
  std::atomic<int64_t> report_attempts_unanswered_{0};
  std::atomic<int64_t> leases_dropped_{0};
  std::atomic<int64_t> reports_given_up_{0};
};

}  // namespace pruner

#endif  // PRUNER_WORKER_WORKER_DAEMON_H_
