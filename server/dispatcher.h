// The dispatcher: queues of candidates waiting to be measured, the workers
// that measure them, and the leases between the two. No networking: the
// gRPC services call it, and so do the unit tests and the load benchmark.
//
// Rules (../shared/specs/ansor.md §7.6 and §10 list what goes wrong without them):
// - A lease goes only to a worker whose device key equals the batch's target.
// - The server owns leases. A lease expires when its worker stops
//   heart-beating for lease_timeout, or when it outlives its hard deadline
//   (a worker that heart-beats but never finishes). Its unreported
//   candidates go back to the front of their queue as retryable: a lost
//   worker is never recorded as a program failure. Only a candidate that
//   loses max_attempts leases is given up, as a run error in phase
//   "dispatch" (at that point the program itself is the likely cause: it
//   takes its worker down each time).
// - Results are idempotent by measurement id: the first result for an id
//   counts, later ones (a late report of an expired lease, a retried
//   delivery) are ignored and counted as duplicates. Only a worker that has
//   held a candidate's lease may report it; another worker's report for it
//   is ignored (foreign).
// - Queue wait is measured (enqueue to lease) and reported beside each
//   result; it never counts against a run timeout, which the worker applies
//   to the run alone.
// - A batch may name a worker to avoid (the second measurement of a best,
//   which should come from another worker): that worker passes it over
//   while another live, unquarantined worker of the device exists.
// - Jobs share workers fairly: leases are handed out round-robin over the
//   jobs that have work for the asking worker's device.
// - A worker's numbers are claims (result_plausibility.h). A result that
//   cannot be true (non-finite, faster than the device, slower than the run
//   deadline) is refused: the candidate goes back to the queue without
//   losing an attempt, and the worker gets a strike. After
//   quarantine_after strikes the worker is quarantined: it gets no more
//   leases, its open leases go back, and a re-registration under the same
//   name stays quarantined (across server restarts: the server stores the
//   name); `pruner workers` shows it with the reason.
#ifndef PRUNER_SERVER_DISPATCHER_H_
#define PRUNER_SERVER_DISPATCHER_H_

#include <atomic>
#include <chrono>
#include <condition_variable>
#include <cstdint>
#include <deque>
#include <functional>
#include <map>
#include <memory>
#include <mutex>
#include <optional>
#include <set>
#include <string>
#include <thread>
#include <vector>

#include "absl/status/statusor.h"
#include "pruner/v1/tuning_service.pb.h"
#include "pruner/v1/worker_service.pb.h"

namespace pruner {

struct DispatcherOptions {
  std::chrono::milliseconds lease_timeout{10000};
  std::chrono::milliseconds heartbeat_interval{1000};
  // Leases a candidate may lose (expired, or its worker reported an
  // infrastructure error) before it is given up.
  int max_attempts = 3;
  // A lease's hard deadline: per candidate, its build and run timeouts
  // times (repeat + warm-up + 1), plus this slack.
  std::chrono::seconds hard_deadline_slack{60};
  // Candidates queued over all jobs; Submit refuses beyond (back-pressure).
  int64_t max_queued_candidates = 1 << 20;
  // Implausible reports before a worker is quarantined.
  int quarantine_after = 3;
  // Called (under the dispatcher's lock; keep it short) when a worker name
  // is quarantined: the server stores it so that a restart keeps it out.
  std::function<void(const std::string& name, const std::string& reason)> on_quarantine;
};

// What every candidate of one batch shares.
struct BatchSpec {
  int64_t job_id = 0;
  int task_index = 0;
  v1::Workload workload;
  v1::Device target;  // key = the device key workers must have
  v1::MeasureOptions options;
  // What results are checked against (result_plausibility.h); 0: unchecked.
  double flops = 0;        // per call of the workload
  double peak_gflops = 0;  // the target's fp32 peak
  // A second measurement: no worker of this name leases it while another
  // live, trusted worker of the device exists.
  std::string avoid_worker;
};

// One candidate's outcome as the job sees it.
struct DispatchedResult {
  v1::MeasureResult result;  // queue_wait_s and measured_by filled in
};

// A submitted batch; the job waits on it.
class BatchHandle;

struct WorkerSnapshot {
  v1::WorkerInfo info;
  bool alive = true;
};

struct ReportOutcome {
  int accepted = 0;
  int duplicates = 0;
  int unknown = 0;
  int implausible = 0;  // refused (result_plausibility.h); re-queued
  int foreign = 0;      // for candidates this worker never leased (ignored)
};

struct JobQueueStats {
  int queued = 0;
  int leased = 0;
};

class Dispatcher {
 public:
  using Clock = std::chrono::steady_clock;

  explicit Dispatcher(DispatcherOptions options = {});
  ~Dispatcher();
  Dispatcher(const Dispatcher&) = delete;
  Dispatcher& operator=(const Dispatcher&) = delete;

  const DispatcherOptions& options() const { return options_; }

  // ---- Workers -----------------------------------------------------------
  // A new worker id for every registration (a re-registering worker is a new
  // worker: its old leases expire as usual).
  std::string RegisterWorker(const v1::RegisterRequest& request);
  // False for an unknown (or declared dead) worker. Fills the worker's
  // leases that the dispatcher no longer holds into `revoked`.
  bool Heartbeat(const std::string& worker_id, const std::vector<std::string>& lease_ids,
                 std::vector<std::string>* revoked);
  // Waits up to `wait` for candidates matching the worker's device. nullopt:
  // nothing (or unknown worker: `*unknown_worker` set). `cancelled`, polled
  // every 500 ms, ends the wait early (a gRPC call its client hung up).
  std::optional<v1::Lease> Lease(const std::string& worker_id, int max_candidates,
                                 std::chrono::milliseconds wait, bool* unknown_worker,
                                 const std::function<bool()>& cancelled = nullptr);
  // Results of a lease; `infrastructure_error` non-empty re-queues what was
  // not reported. Results for ids that are not pending are duplicates or
  // unknown, never counted twice. An unknown lease is fine: its results
  // still count if their ids are pending (a late report after expiry).
  ReportOutcome Report(const std::string& worker_id, const std::string& lease_id,
                       const std::vector<v1::CandidateResult>& results,
                       const std::string& infrastructure_error);
  std::vector<WorkerSnapshot> Workers() const;
  // The name a worker id registered under; nullopt for an unknown id. The
  // services bind a worker credential to this name.
  std::optional<std::string> WorkerName(const std::string& worker_id) const;
  // Lifts the quarantine of every worker registered as `name` (and of its
  // future registrations) and clears their strikes. False when no worker of
  // that name is quarantined.
  bool ReleaseWorker(const std::string& name);
  // Quarantines a worker name from the start (the server, from its
  // database): its registrations get no leases.
  void Quarantine(const std::string& name, const std::string& reason);
  // Device keys of the live workers.
  std::vector<std::string> LiveDeviceKeys() const;

  // ---- Jobs --------------------------------------------------------------
  // Queues one candidate per sentence. ResourceExhausted when the queues are
  // full; Unavailable after Shutdown().
  absl::StatusOr<std::shared_ptr<BatchHandle>> Submit(const BatchSpec& spec,
                                                      const std::vector<std::string>& sentences);
  // Blocks until every candidate has a result (in sentence order), or the
  // job is cancelled (Cancelled) or the dispatcher shut down (Unavailable).
  absl::StatusOr<std::vector<DispatchedResult>> Wait(const std::shared_ptr<BatchHandle>& batch);
  // Drops the job's queued and leased candidates; its waiting batches end
  // with Cancelled, and later Submits for it are refused (Cancelled). Late
  // results for them are "unknown".
  void CancelJob(int64_t job_id);
  JobQueueStats QueueStats(int64_t job_id) const;

  // Expires leases and declares silent workers dead. Called by the reaper
  // thread every heartbeat interval; tests call it with a fake `now`.
  void Tick(Clock::time_point now);
  // Ends every wait (Unavailable) and refuses new work.
  void Shutdown();

  // Counters for tests and the load benchmark.
  struct Counters {
    int64_t submitted = 0;
    int64_t leased = 0;          // candidate leases handed out
    int64_t completed = 0;       // first results accepted (incl. given-up candidates)
    int64_t duplicates = 0;
    int64_t unknown = 0;
    int64_t expired_leases = 0;
    int64_t requeued = 0;        // candidates put back after a lost lease
    int64_t given_up = 0;        // candidates that hit max_attempts
    int64_t implausible = 0;     // results refused as impossible
    int64_t quarantined = 0;     // workers quarantined
    int64_t foreign = 0;         // results for another worker's candidates
  };
  Counters counters() const;

 private:
  struct Candidate;
  struct Batch;
  struct LeaseState;
  struct Worker;

  // `count_attempt`: false when the loss is a worker's fault, not a sign
  // that the program takes its worker down.
  void RequeueLocked(const std::string& measurement_id, const std::string& why,
                     bool count_attempt = true);
  void ExpireLeaseLocked(const std::string& lease_id, const std::string& why,
                         bool count_attempt);
  void StrikeLocked(Worker& worker, const std::string& why);
  // Is there a live, unquarantined worker of `device_key` not named `name`?
  bool HasOtherTrustedWorkerLocked(const std::string& device_key, const std::string& name) const;
  void CompleteLocked(const std::string& measurement_id, v1::MeasureResult result);
  void ReaperLoop();
  void RememberCompletedLocked(const std::string& id);
  // Wakes up to `candidates` workers polling for `device_key`; every one
  // for kWakeEveryWorker.
  static constexpr int64_t kWakeEveryWorker = -1;
  void WakeLocked(const std::string& device_key, int64_t candidates);

  const DispatcherOptions options_;
  const std::string epoch_;  // random per process: ids stay unique across restarts
  mutable std::mutex mu_;
  // Waiting Lease calls sleep on their device's variable, and new work
  // wakes one waiter per candidate on that device only: a thousand idle
  // workers are not all woken for every batch.
  std::map<std::string, std::condition_variable> device_cv_;
  std::condition_variable result_cv_;  // a batch finished or was cancelled
  bool shutdown_ = false;
  uint64_t next_id_ = 1;
  std::map<std::string, std::unique_ptr<Worker>> workers_;
  // Quarantined worker names -> why; a re-registration keeps the verdict.
  std::map<std::string, std::string> quarantined_names_;
  std::map<std::string, std::unique_ptr<LeaseState>> leases_;
  // Pending candidates by measurement id (queued or leased).
  std::map<std::string, std::unique_ptr<Candidate>> pending_;
  // Per job, its queued measurement ids in order; jobs_order_ rotates.
  std::map<int64_t, std::deque<std::string>> queues_;
  std::set<int64_t> cancelled_jobs_;
  int64_t queued_total_ = 0;
  int64_t last_served_job_ = 0;
  Counters counters_;
  // Recently completed ids (bounded, FIFO), to tell a duplicate result from
  // one for an id this server never issued; both are ignored.
  std::set<std::string> completed_ids_;
  std::deque<std::string> completed_order_;
  std::mutex reaper_mu_;
  std::condition_variable reaper_cv_;
  bool reaper_stop_ = false;
  std::thread reaper_;  // last: starts after every member it uses exists
};

}  // namespace pruner

#endif  // PRUNER_SERVER_DISPATCHER_H_
