#include "server/dispatcher.h"

#include <algorithm>
#include <cmath>
#include <random>
#include <set>

#include "absl/strings/str_cat.h"
#include "common/base/clock.h"
#include "server/result_plausibility.h"

namespace pruner {
namespace {

std::string RandomEpoch() {
  std::random_device rd;
  const uint64_t x = (static_cast<uint64_t>(rd()) << 32) ^ rd();
  char buffer[17];
  std::snprintf(buffer, sizeof(buffer), "%016llx", static_cast<unsigned long long>(x));
  return buffer;
}

// Upper bound of one candidate's worker time: build, then the sandboxed run
// (whose own deadline covers warm-up and every repeat).
double CandidateBudgetSeconds(const v1::MeasureOptions& o) {
  const double build = o.build_timeout_s() > 0 ? o.build_timeout_s() : 15;
  const double run = o.run_timeout_s() > 0 ? o.run_timeout_s() : 10;
  return build + run;
}

// How many recently completed ids are remembered to tell a duplicate from
// an unknown id (both are ignored; the distinction is for the counters).
constexpr size_t kRememberedIds = 1 << 18;

}  // namespace

class BatchHandle {
 public:
  BatchSpec spec;
  std::vector<std::optional<v1::MeasureResult>> results;
  int remaining = 0;
  bool cancelled = false;
};

struct Dispatcher::Candidate {
  std::string id;
  std::string sentence;
  std::shared_ptr<BatchHandle> batch;
  int index = 0;
  Clock::time_point enqueued;
  int attempts = 0;
  std::string lease_id;  // empty while queued
  // Workers that have held it: only they may report it (a late report of an
  // expired lease counts; a stranger's report never does).
  std::set<std::string> holders;
  std::string last_loss;
  double queue_wait_s = 0;  // enqueue (or re-queue) to the latest lease
};

struct Dispatcher::LeaseState {
  std::string id;
  std::string worker_id;
  std::vector<std::string> ids;
  Clock::time_point last_heartbeat;
  Clock::time_point hard_deadline;
};

struct Dispatcher::Worker {
  v1::WorkerInfo info;
  Clock::time_point last_seen;
  std::set<std::string> leases;
  // Lease calls waiting now: a worker in a long poll is alive, whatever its
  // last heartbeat (a hung-up call ends the poll within 500 ms).
  int polling = 0;
  bool alive = true;
  Clock::time_point died;
  bool quarantined() const { return info.quarantined(); }
};

void Dispatcher::RememberCompletedLocked(const std::string& id) {
  if (!completed_ids_.insert(id).second) return;
  completed_order_.push_back(id);
  if (completed_order_.size() > kRememberedIds) {
    completed_ids_.erase(completed_order_.front());
    completed_order_.pop_front();
  }
}

Dispatcher::Dispatcher(DispatcherOptions options)
    : options_(options), epoch_(RandomEpoch()), reaper_([this] { ReaperLoop(); }) {}

Dispatcher::~Dispatcher() {
  Shutdown();
  {
    std::lock_guard<std::mutex> lock(reaper_mu_);
    reaper_stop_ = true;
  }
  reaper_cv_.notify_all();
  reaper_.join();
}

void Dispatcher::ReaperLoop() {
  const auto period = std::max<std::chrono::milliseconds>(
      std::chrono::milliseconds(20),
      std::min(options_.heartbeat_interval, options_.lease_timeout / 4));
  std::unique_lock<std::mutex> lock(reaper_mu_);
  while (!reaper_stop_) {
    reaper_cv_.wait_for(lock, period, [this] { return reaper_stop_; });
    if (reaper_stop_) return;
    lock.unlock();
    Tick(Clock::now());
    lock.lock();
  }
}

std::string Dispatcher::RegisterWorker(const v1::RegisterRequest& request) {
  std::lock_guard<std::mutex> lock(mu_);
  auto worker = std::make_unique<Worker>();
  const std::string id = absl::StrCat("w-", epoch_.substr(0, 8), "-", next_id_++);
  worker->info.set_worker_id(id);
  worker->info.set_name(request.name());
  worker->info.set_host(request.host());
  *worker->info.mutable_device() = request.device();
  worker->info.set_slots(std::max(1, request.slots()));
  worker->info.set_registered_unix_ms(NowUnixMs());
  worker->info.set_last_heartbeat_unix_ms(worker->info.registered_unix_ms());
  worker->last_seen = Clock::now();
  if (auto q = quarantined_names_.find(request.name()); q != quarantined_names_.end()) {
    worker->info.set_quarantined(true);
    worker->info.set_quarantine_reason(q->second);
  }
  workers_[id] = std::move(worker);
  return id;
}

bool Dispatcher::HasOtherTrustedWorkerLocked(const std::string& device_key,
                                             const std::string& name) const {
  for (const auto& [id, w] : workers_) {
    if (w->alive && !w->quarantined() && w->info.name() != name &&
        w->info.device().key() == device_key) {
      return true;
    }
  }
  return false;
}

void Dispatcher::Quarantine(const std::string& name, const std::string& reason) {
  std::lock_guard<std::mutex> lock(mu_);
  quarantined_names_[name] = reason;
  for (auto& [id, worker] : workers_) {
    if (worker->info.name() != name) continue;
    worker->info.set_quarantined(true);
    worker->info.set_quarantine_reason(reason);
  }
}

std::optional<std::string> Dispatcher::WorkerName(const std::string& worker_id) const {
  std::lock_guard<std::mutex> lock(mu_);
  auto it = workers_.find(worker_id);
  if (it == workers_.end()) return std::nullopt;
  return it->second->info.name();
}

bool Dispatcher::ReleaseWorker(const std::string& name) {
  std::lock_guard<std::mutex> lock(mu_);
  bool released = quarantined_names_.erase(name) > 0;
  for (auto& [id, worker] : workers_) {
    if (worker->info.name() != name) continue;
    released = released || worker->quarantined();
    worker->info.set_quarantined(false);
    worker->info.clear_quarantine_reason();
    worker->info.set_implausible_reports(0);
  }
  return released;
}

bool Dispatcher::Heartbeat(const std::string& worker_id, const std::vector<std::string>& lease_ids,
                           std::vector<std::string>* revoked) {
  std::lock_guard<std::mutex> lock(mu_);
  auto it = workers_.find(worker_id);
  if (it == workers_.end() || !it->second->alive) return false;
  const Clock::time_point now = Clock::now();
  it->second->last_seen = now;
  it->second->info.set_last_heartbeat_unix_ms(NowUnixMs());
  for (const std::string& lease_id : lease_ids) {
    auto lease = leases_.find(lease_id);
    if (lease == leases_.end() || lease->second->worker_id != worker_id) {
      if (revoked != nullptr) revoked->push_back(lease_id);
      continue;
    }
    lease->second->last_heartbeat = now;
  }
  return true;
}

std::optional<v1::Lease> Dispatcher::Lease(const std::string& worker_id, int max_candidates,
                                           std::chrono::milliseconds wait, bool* unknown_worker,
                                           const std::function<bool()>& cancelled) {
  if (unknown_worker != nullptr) *unknown_worker = false;
  max_candidates = std::max(1, max_candidates);
  const Clock::time_point deadline = Clock::now() + wait;
  std::unique_lock<std::mutex> lock(mu_);
  while (true) {
    auto wit = workers_.find(worker_id);
    if (wit == workers_.end() || !wit->second->alive) {
      if (unknown_worker != nullptr) *unknown_worker = true;
      return std::nullopt;
    }
    Worker& worker = *wit->second;
    worker.last_seen = Clock::now();
    if (shutdown_) return std::nullopt;
    const std::string& device_key = worker.info.device().key();
    if (worker.quarantined()) {
      // No work, ever: the worker idles in its poll (it is alive, just not
      // trusted), and nobody wakes it.
      const Clock::time_point now = Clock::now();
      if (now >= deadline || (cancelled && cancelled())) return std::nullopt;
      ++worker.polling;
      device_cv_[device_key].wait_until(lock,
                                        std::min(deadline, now + std::chrono::milliseconds(500)));
      --worker.polling;
      continue;
    }

    // Round-robin over jobs, starting after the job served last.
    std::vector<int64_t> order;
    for (auto it = queues_.upper_bound(last_served_job_); it != queues_.end(); ++it) {
      order.push_back(it->first);
    }
    for (auto it = queues_.begin(); it != queues_.end() && it->first <= last_served_job_; ++it) {
      order.push_back(it->first);
    }
    for (int64_t job_id : order) {
      std::deque<std::string>& queue = queues_[job_id];
      if (queue.empty()) continue;
      Candidate& front = *pending_.at(queue.front());
      if (front.batch->spec.target.key() != device_key) continue;
      if (front.batch->spec.avoid_worker == worker.info.name() &&
          HasOtherTrustedWorkerLocked(device_key, worker.info.name())) {
        continue;
      }
      // One lease = candidates of one batch (one workload, one target).
      const std::shared_ptr<BatchHandle> batch = front.batch;
      auto lease = std::make_unique<LeaseState>();
      lease->id = absl::StrCat("l-", epoch_.substr(0, 8), "-", next_id_++);
      lease->worker_id = worker_id;
      const Clock::time_point now = Clock::now();
      lease->last_heartbeat = now;
      v1::Lease reply;
      reply.set_lease_id(lease->id);
      reply.set_job_id(batch->spec.job_id);
      reply.set_task_index(batch->spec.task_index);
      *reply.mutable_workload() = batch->spec.workload;
      *reply.mutable_device() = batch->spec.target;
      *reply.mutable_options() = batch->spec.options;
      while (!queue.empty() && static_cast<int>(lease->ids.size()) < max_candidates) {
        Candidate& c = *pending_.at(queue.front());
        if (c.batch != batch) break;
        queue.pop_front();
        --queued_total_;
        c.lease_id = lease->id;
        c.holders.insert(worker_id);
        c.queue_wait_s = std::chrono::duration<double>(now - c.enqueued).count();
        lease->ids.push_back(c.id);
        v1::Candidate* wire = reply.add_candidates();
        wire->set_measurement_id(c.id);
        wire->set_sentence(c.sentence);
      }
      if (queue.empty()) queues_.erase(job_id);
      const double budget_s = CandidateBudgetSeconds(batch->spec.options) *
                              static_cast<double>(lease->ids.size());
      const auto hard = std::chrono::duration_cast<Clock::duration>(
                            std::chrono::duration<double>(budget_s)) +
                        options_.hard_deadline_slack;
      lease->hard_deadline = now + hard;
      reply.set_hard_deadline_unix_ms(
          NowUnixMs() + std::chrono::duration_cast<std::chrono::milliseconds>(hard).count());
      counters_.leased += static_cast<int64_t>(lease->ids.size());
      worker.leases.insert(lease->id);
      worker.info.set_active_leases(static_cast<int>(worker.leases.size()));
      leases_[lease->id] = std::move(lease);
      last_served_job_ = job_id;
      return reply;
    }
    if (cancelled && cancelled()) return std::nullopt;
    const Clock::time_point now = Clock::now();
    if (now >= deadline) return std::nullopt;
    ++worker.polling;
    // Wake at least every 500 ms to notice `cancelled` (and any wake-up lost
    // to a caller that took the work first).
    device_cv_[device_key].wait_until(lock,
                                      std::min(deadline, now + std::chrono::milliseconds(500)));
    // The worker cannot have been erased while polling (Tick skips it).
    --worker.polling;
  }
}

ReportOutcome Dispatcher::Report(const std::string& worker_id, const std::string& lease_id,
                                 const std::vector<v1::CandidateResult>& results,
                                 const std::string& infrastructure_error) {
  std::lock_guard<std::mutex> lock(mu_);
  ReportOutcome outcome;
  std::string worker_name = worker_id;
  Worker* worker = nullptr;
  if (auto w = workers_.find(worker_id); w != workers_.end()) {
    worker = w->second.get();
    worker_name = worker->info.name();
    worker->last_seen = Clock::now();
  }
  for (const v1::CandidateResult& r : results) {
    auto it = pending_.find(r.measurement_id());
    if (it == pending_.end()) {
      if (completed_ids_.count(r.measurement_id()) > 0) {
        ++outcome.duplicates;
        ++counters_.duplicates;
      } else {
        ++outcome.unknown;
        ++counters_.unknown;
      }
      continue;
    }
    Candidate& c = *it->second;
    if (c.holders.count(worker_id) == 0) {
      // Someone else's candidate: a report for a lease this worker never had.
      ++outcome.foreign;
      ++counters_.foreign;
      continue;
    }
    if (worker != nullptr && worker->quarantined()) {
      // Nothing a quarantined worker says counts.
      ++outcome.implausible;
      ++counters_.implausible;
      continue;
    }
    v1::MeasureResult result = r.result();
    const BatchSpec& spec = c.batch->spec;
    const absl::Status plausible = CheckPlausible(
        PlausibilityLimits{spec.flops, spec.peak_gflops, spec.options.run_timeout_s()}, &result);
    if (!plausible.ok()) {
      // The worker's fault: the candidate is measured again (by whoever
      // leases it next), without losing an attempt.
      ++outcome.implausible;
      ++counters_.implausible;
      const std::string why = absl::StrCat("worker ", worker_name, ": ", plausible.message());
      if (!c.lease_id.empty() && c.lease_id == lease_id) RequeueLocked(c.id, why, false);
      if (worker != nullptr) StrikeLocked(*worker, why);
      continue;
    }
    if (c.lease_id.empty()) {
      // Re-queued after its lease expired, and now the late result arrived:
      // it is a real measurement, take it and unqueue the candidate.
      auto q = queues_.find(spec.job_id);
      if (q != queues_.end()) {
        auto pos = std::find(q->second.begin(), q->second.end(), c.id);
        if (pos != q->second.end()) {
          q->second.erase(pos);
          --queued_total_;
        }
        if (q->second.empty()) queues_.erase(q);
      }
    }
    result.set_queue_wait_s(c.queue_wait_s);
    if (result.measured_by().empty()) result.set_measured_by(worker_name);
    CompleteLocked(c.id, std::move(result));
    ++outcome.accepted;
  }
  auto lease = leases_.find(lease_id);
  if (lease != leases_.end() && lease->second->worker_id == worker_id) {
    // Whatever the lease held and the worker did not report goes back.
    const std::string why = infrastructure_error.empty()
                                ? std::string("worker returned the lease without a result")
                                : absl::StrCat("worker infrastructure error: ", infrastructure_error);
    for (const std::string& id : std::vector<std::string>(lease->second->ids)) {
      auto c = pending_.find(id);
      if (c != pending_.end() && c->second->lease_id == lease_id) RequeueLocked(id, why);
    }
    if (auto w = workers_.find(worker_id); w != workers_.end()) {
      w->second->leases.erase(lease_id);
      w->second->info.set_active_leases(static_cast<int>(w->second->leases.size()));
      w->second->info.set_measured(w->second->info.measured() + outcome.accepted);
    }
    leases_.erase(lease);
  }
  return outcome;
}

void Dispatcher::StrikeLocked(Worker& worker, const std::string& why) {
  worker.info.set_implausible_reports(worker.info.implausible_reports() + 1);
  if (worker.quarantined() || worker.info.implausible_reports() < options_.quarantine_after) {
    return;
  }
  const std::string reason = absl::StrCat(worker.info.implausible_reports(),
                                          " implausible results; last: ", why);
  worker.info.set_quarantined(true);
  worker.info.set_quarantine_reason(reason);
  quarantined_names_[worker.info.name()] = reason;
  ++counters_.quarantined;
  if (options_.on_quarantine) options_.on_quarantine(worker.info.name(), reason);
  // Nothing it holds is trusted: its leases go back, at no attempt's cost.
  for (const std::string& lease_id : std::set<std::string>(worker.leases)) {
    ExpireLeaseLocked(lease_id, absl::StrCat("worker ", worker.info.name(), " quarantined"), false);
  }
}

void Dispatcher::CompleteLocked(const std::string& measurement_id, v1::MeasureResult result) {
  auto it = pending_.find(measurement_id);
  if (it == pending_.end()) return;
  Candidate& c = *it->second;
  if (!c.lease_id.empty()) {
    if (auto lease = leases_.find(c.lease_id); lease != leases_.end()) {
      auto& ids = lease->second->ids;
      ids.erase(std::remove(ids.begin(), ids.end(), measurement_id), ids.end());
    }
  }
  BatchHandle& batch = *c.batch;
  if (!batch.results[c.index].has_value()) {
    batch.results[c.index] = std::move(result);
    --batch.remaining;
  }
  ++counters_.completed;
  RememberCompletedLocked(measurement_id);
  const bool finished = batch.remaining == 0;
  pending_.erase(it);
  if (finished) result_cv_.notify_all();
}

void Dispatcher::WakeLocked(const std::string& device_key, int64_t candidates) {
  auto it = device_cv_.find(device_key);
  if (it == device_cv_.end()) return;  // nobody has ever waited for this device
  if (candidates == kWakeEveryWorker) {
    it->second.notify_all();
    return;
  }
  for (int64_t i = 0; i < std::min<int64_t>(candidates, 4096); ++i) it->second.notify_one();
}

void Dispatcher::RequeueLocked(const std::string& measurement_id, const std::string& why,
                               bool count_attempt) {
  auto it = pending_.find(measurement_id);
  if (it == pending_.end()) return;
  Candidate& c = *it->second;
  c.lease_id.clear();
  c.last_loss = why;
  if (count_attempt) ++c.attempts;
  if (c.attempts >= options_.max_attempts) {
    v1::MeasureResult given_up;
    given_up.set_error(v1::MEASURE_ERROR_RUN_ERROR);
    given_up.set_phase("dispatch");
    given_up.set_message(absl::StrCat("lost ", c.attempts,
                                      " leases (the program may take its worker down); last: ", why));
    ++counters_.given_up;
    CompleteLocked(measurement_id, std::move(given_up));
    return;
  }
  c.enqueued = Clock::now();
  queues_[c.batch->spec.job_id].push_front(measurement_id);
  ++queued_total_;
  ++counters_.requeued;
  WakeLocked(c.batch->spec.target.key(),
             c.batch->spec.avoid_worker.empty() ? 1 : kWakeEveryWorker);
}

void Dispatcher::ExpireLeaseLocked(const std::string& lease_id, const std::string& why,
                                   bool count_attempt) {
  auto lease = leases_.find(lease_id);
  if (lease == leases_.end()) return;
  const std::string worker_id = lease->second->worker_id;
  for (const std::string& id : std::vector<std::string>(lease->second->ids)) {
    auto c = pending_.find(id);
    if (c != pending_.end() && c->second->lease_id == lease_id) RequeueLocked(id, why, count_attempt);
  }
  leases_.erase(lease);
  ++counters_.expired_leases;
  if (auto w = workers_.find(worker_id); w != workers_.end()) {
    w->second->leases.erase(lease_id);
    w->second->info.set_active_leases(static_cast<int>(w->second->leases.size()));
    w->second->info.set_expired_leases(w->second->info.expired_leases() + 1);
  }
}

void Dispatcher::Tick(Clock::time_point now) {
  std::lock_guard<std::mutex> lock(mu_);
  for (auto it = workers_.begin(); it != workers_.end();) {
    Worker& w = *it->second;
    if (w.alive && w.polling == 0 && now - w.last_seen > options_.lease_timeout) {
      w.alive = false;
      w.died = now;
      for (const std::string& lease_id : std::set<std::string>(w.leases)) {
        ExpireLeaseLocked(lease_id, absl::StrCat("worker ", w.info.name(), " went silent"), true);
      }
    }
    if (!w.alive && now - w.died > 10 * options_.lease_timeout) {
      it = workers_.erase(it);
    } else {
      ++it;
    }
  }
  std::vector<std::pair<std::string, std::string>> expired;
  for (const auto& [id, lease] : leases_) {
    if (now - lease->last_heartbeat > options_.lease_timeout) {
      expired.emplace_back(id, "lease not heart-beaten for the lease timeout");
    } else if (now > lease->hard_deadline) {
      expired.emplace_back(id, "lease passed its hard deadline");
    }
  }
  for (const auto& [id, why] : expired) ExpireLeaseLocked(id, why, true);
}

std::vector<WorkerSnapshot> Dispatcher::Workers() const {
  std::lock_guard<std::mutex> lock(mu_);
  std::vector<WorkerSnapshot> out;
  for (const auto& [id, w] : workers_) out.push_back(WorkerSnapshot{w->info, w->alive});
  return out;
}

std::vector<std::string> Dispatcher::LiveDeviceKeys() const {
  std::lock_guard<std::mutex> lock(mu_);
  std::set<std::string> keys;
  for (const auto& [id, w] : workers_) {
    if (w->alive) keys.insert(w->info.device().key());
  }
  return {keys.begin(), keys.end()};
}

absl::StatusOr<std::shared_ptr<BatchHandle>> Dispatcher::Submit(
    const BatchSpec& spec, const std::vector<std::string>& sentences) {
  std::lock_guard<std::mutex> lock(mu_);
  if (shutdown_) return absl::UnavailableError("the server is shutting down");
  if (cancelled_jobs_.count(spec.job_id) > 0) return absl::CancelledError("job cancelled");
  if (queued_total_ + static_cast<int64_t>(sentences.size()) > options_.max_queued_candidates) {
    return absl::ResourceExhaustedError(
        absl::StrCat("measurement queue full (", queued_total_, " candidates waiting)"));
  }
  auto batch = std::make_shared<BatchHandle>();
  batch->spec = spec;
  batch->results.resize(sentences.size());
  batch->remaining = static_cast<int>(sentences.size());
  const Clock::time_point now = Clock::now();
  std::deque<std::string>& queue = queues_[spec.job_id];
  for (size_t i = 0; i < sentences.size(); ++i) {
    auto c = std::make_unique<Candidate>();
    c->id = absl::StrCat("m-", epoch_, "-", next_id_++);
    c->sentence = sentences[i];
    c->batch = batch;
    c->index = static_cast<int>(i);
    c->enqueued = now;
    queue.push_back(c->id);
    pending_[c->id] = std::move(c);
  }
  if (queue.empty()) queues_.erase(spec.job_id);
  queued_total_ += static_cast<int64_t>(sentences.size());
  counters_.submitted += static_cast<int64_t>(sentences.size());
  // A woken worker that must avoid the batch goes back to sleep: wake them
  // all so that another one takes it.
  WakeLocked(spec.target.key(), spec.avoid_worker.empty()
                                    ? static_cast<int64_t>(sentences.size())
                                    : kWakeEveryWorker);
  return batch;
}

absl::StatusOr<std::vector<DispatchedResult>> Dispatcher::Wait(
    const std::shared_ptr<BatchHandle>& batch) {
  std::unique_lock<std::mutex> lock(mu_);
  result_cv_.wait(lock, [&] { return batch->remaining == 0 || batch->cancelled || shutdown_; });
  if (batch->cancelled) return absl::CancelledError("job cancelled");
  if (batch->remaining > 0) return absl::UnavailableError("the server is shutting down");
  std::vector<DispatchedResult> out;
  out.reserve(batch->results.size());
  for (auto& r : batch->results) out.push_back(DispatchedResult{*r});
  return out;
}

void Dispatcher::CancelJob(int64_t job_id) {
  std::lock_guard<std::mutex> lock(mu_);
  cancelled_jobs_.insert(job_id);
  if (auto q = queues_.find(job_id); q != queues_.end()) {
    queued_total_ -= static_cast<int64_t>(q->second.size());
    queues_.erase(q);
  }
  for (auto it = pending_.begin(); it != pending_.end();) {
    Candidate& c = *it->second;
    if (c.batch->spec.job_id != job_id) {
      ++it;
      continue;
    }
    c.batch->cancelled = true;
    if (!c.lease_id.empty()) {
      if (auto lease = leases_.find(c.lease_id); lease != leases_.end()) {
        const std::string worker_id = lease->second->worker_id;
        leases_.erase(lease);
        if (auto w = workers_.find(worker_id); w != workers_.end()) {
          w->second->leases.erase(c.lease_id);
          w->second->info.set_active_leases(static_cast<int>(w->second->leases.size()));
        }
      }
    }
    it = pending_.erase(it);
  }
  result_cv_.notify_all();
}

JobQueueStats Dispatcher::QueueStats(int64_t job_id) const {
  std::lock_guard<std::mutex> lock(mu_);
  JobQueueStats stats;
  for (const auto& [id, c] : pending_) {
    if (c->batch->spec.job_id != job_id) continue;
    if (c->lease_id.empty()) {
      ++stats.queued;
    } else {
      ++stats.leased;
    }
  }
  return stats;
}

void Dispatcher::Shutdown() {
  std::lock_guard<std::mutex> lock(mu_);
  shutdown_ = true;
  for (auto& [key, cv] : device_cv_) cv.notify_all();
  result_cv_.notify_all();
}

Dispatcher::Counters Dispatcher::counters() const {
  std::lock_guard<std::mutex> lock(mu_);
  return counters_;
}

}  // namespace pruner
