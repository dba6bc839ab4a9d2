#include "server/job_manager.h"

#include <algorithm>
#include <atomic>
#include <chrono>
#include <deque>
#include <set>
#include <thread>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "common/base/status_macros.h"
#include "common/tune/tuning_job.h"
#include "proto/daemon_log.h"
#include "proto/wire_convert.h"
#include "server/job_info.h"
#include "server/remote_measurer.h"

namespace pruner {

struct JobManager::LiveJob {
  int64_t id = 0;
  std::unique_ptr<RemoteMeasurer> measurer;
  std::unique_ptr<TuningJob> job;
  std::atomic<bool> stop{false};
  // Guarded by JobManager::mu_.
  bool started = false;
  bool finished = false;
  bool cancel_requested = false;
  v1::JobInfo info;
  std::deque<v1::ProgressEvent> events;
  int64_t first_event_seq = 0;  // sequence number of events.front()
  std::thread thread;
};

namespace {

bool Terminal(const std::string& status) {
  return status == "done" || status == "failed" || status == "cancelled" || status == "stopped";
}

// "run error [run]: killed by ..." -> "run error".
std::map<std::string, RemoteMeasurer::TaskLabel> TaskLabels(const std::vector<StoredTask>& tasks) {
  std::map<std::string, RemoteMeasurer::TaskLabel> labels;
  for (const StoredTask& t : tasks) labels.emplace(t.workload_key, RemoteMeasurer::TaskLabel{t.index, t.name});
  return labels;
}

}  // namespace

JobManager::JobManager(RecordsStore* store, Dispatcher* dispatcher, JobManagerOptions options)
    : store_(store), dispatcher_(dispatcher), options_(options) {}

JobManager::~JobManager() { Shutdown(); }

absl::StatusOr<DeviceProfile> JobManager::ResolveTarget(const std::string& target) const {
  std::set<std::string> live_keys;
  std::vector<DeviceProfile> live_cpus;
  for (const WorkerSnapshot& w : dispatcher_->Workers()) {
    if (!w.alive) continue;
    auto profile = DeviceFromWire(w.info.device());
    if (!profile.ok()) continue;
    live_keys.insert(profile->name);
    if (profile->name == target) return *profile;
    if (!profile->IsGpu() &&
        std::none_of(live_cpus.begin(), live_cpus.end(),
                     [&](const DeviceProfile& p) { return p.name == profile->name; })) {
      live_cpus.push_back(*profile);
    }
  }
  if (target == "cpu" && live_cpus.size() == 1) return live_cpus.front();
  if (auto stored = store_->GetDevice(target); stored.ok()) return *stored;
  if (target != "cpu" && target != "local" && target != "cpu-local") {
    if (auto builtin = GetDeviceProfile(target); builtin.ok() && builtin->IsGpu()) return *builtin;
  }
  std::vector<std::string> gpus;
  for (const std::string& name : KnownDeviceProfiles()) {
    auto p = GetDeviceProfile(name);
    if (p.ok() && p->IsGpu()) gpus.push_back(name);
  }
  return absl::InvalidArgumentError(absl::StrCat(
      "unknown target '", target, "': devices of live workers: [",
      absl::StrJoin(live_keys, ", "), "]; built-in GPU profiles: [", absl::StrJoin(gpus, ", "),
      "]", target == "cpu" && live_cpus.size() > 1 ? " ('cpu' is ambiguous: name one)" : ""));
}

absl::StatusOr<v1::JobInfo> JobManager::Submit(const v1::JobSpec& spec) {
  PRUNER_ASSIGN_OR_RETURN(auto checked, CheckJobSpec(spec, options_.limits));
  PRUNER_ASSIGN_OR_RETURN(auto device, ResolveTarget(spec.target()));
  {
    std::lock_guard<std::mutex> lock(mu_);
    if (shutting_down_) return absl::UnavailableError("the server is shutting down");
    int pending = 0;
    for (const auto& [id, live] : live_) pending += (!live->started && !live->finished) ? 1 : 0;
    if (pending >= options_.max_pending_jobs) {
      return absl::ResourceExhaustedError(
          absl::StrCat(pending, " jobs are already waiting to run (limit ",
                       options_.max_pending_jobs, "); wait for some to finish or cancel them"));
    }
  }
  std::map<std::string, RemoteMeasurer::TaskLabel> task_index;
  for (size_t i = 0; i < checked.tasks.size(); ++i) {
    task_index.emplace(checked.tasks[i].workload_key,
                       RemoteMeasurer::TaskLabel{static_cast<int>(i), checked.tasks[i].name});
  }
  auto live = std::make_unique<LiveJob>();
  live->measurer = std::make_unique<RemoteMeasurer>(dispatcher_, 0, checked.options.measure,
                                                    std::move(task_index));
  auto job = TuningJob::Create(store_, live->measurer.get(), std::move(checked.tasks), device,
                               checked.options);
  if (!job.ok()) return job.status();
  live->id = (*job)->id();
  live->measurer->set_job_id(live->id);
  live->job = *std::move(job);
  return StartLiveJob(std::move(live));
}

absl::StatusOr<int> JobManager::ResumeUnfinished() {
  PRUNER_ASSIGN_OR_RETURN(auto jobs, store_->ListJobs());
  int resumed = 0;
  for (const StoredJob& stored : jobs) {
    if (stored.status != JobStatus::kPending && stored.status != JobStatus::kRunning) continue;
    auto live = std::make_unique<LiveJob>();
    auto options = TuningOptionsFromJson(stored.options_json);
    if (!options.ok()) {
      LogError(absl::StrCat("job ", stored.id, " cannot be resumed: ", options.status().message()));
      (void)store_->SetJobStatus(stored.id, JobStatus::kFailed);
      continue;
    }
    live->measurer = std::make_unique<RemoteMeasurer>(dispatcher_, stored.id, options->measure,
                                                      TaskLabels(stored.tasks));
    auto job = TuningJob::Resume(store_, live->measurer.get(), stored.id);
    if (!job.ok()) {
      LogError(absl::StrCat("job ", stored.id, " cannot be resumed: ", job.status().message()));
      (void)store_->SetJobStatus(stored.id, JobStatus::kFailed);
      continue;
    }
    live->id = stored.id;
    live->job = *std::move(job);
    PRUNER_ASSIGN_OR_RETURN(auto started, StartLiveJob(std::move(live)));
    LogInfo(absl::StrCat("resumed job ", stored.id, " at ", started.trials(), "/",
                         started.trial_budget(), " trials"));
    ++resumed;
  }
  return resumed;
}

absl::StatusOr<v1::JobInfo> JobManager::StartLiveJob(std::unique_ptr<LiveJob> live) {
  auto info = JobInfoFromStore(*store_, live->id);
  if (!info.ok()) return info.status();
  live->info = *info;
  live->info.set_status("pending");
  std::lock_guard<std::mutex> lock(mu_);
  LiveJob* raw = live.get();
  live_[raw->id] = std::move(live);
  MaybeStartLocked();
  return SnapshotLocked(*raw);
}

void JobManager::MaybeStartLocked() {
  if (shutting_down_) return;
  for (auto& [id, live] : live_) {
    if (running_ >= options_.max_running_jobs) return;
    if (live->started || live->finished) continue;
    live->started = true;
    live->info.set_status("running");
    ++running_;
    LiveJob* raw = live.get();
    live->thread = std::thread([this, raw] { RunJob(raw); });
  }
}

void JobManager::PushEventLocked(LiveJob* live, v1::ProgressEvent event) {
  live->events.push_back(std::move(event));
  while (static_cast<int>(live->events.size()) > options_.max_buffered_events) {
    live->events.pop_front();
    ++live->first_event_seq;
  }
  events_cv_.notify_all();
}

v1::JobInfo JobManager::SnapshotLocked(const LiveJob& live) const {
  v1::JobInfo info = live.info;
  const JobQueueStats stats = dispatcher_->QueueStats(live.id);
  info.set_queued_candidates(stats.queued);
  info.set_leased_candidates(stats.leased);
  if (stats.queued > 0 && stats.leased == 0 && info.status() == "running") {
    bool has_worker = false;
    for (const std::string& key : dispatcher_->LiveDeviceKeys()) has_worker |= key == info.target();
    if (!has_worker) {
      info.set_message(absl::StrCat("waiting for a worker with device ", info.target()));
    }
  }
  return info;
}

void JobManager::RunJob(LiveJob* live) {
  auto on_round = [this, live](const RoundReport& report) {
    std::lock_guard<std::mutex> lock(mu_);
    live->info.clear_message();
    v1::ProgressEvent event = ProgressEventFromRound(report, &live->info);
    *event.mutable_job() = SnapshotLocked(*live);
    event.mutable_time()->set_queue_wait_s(live->measurer->last_queue_wait_s());
    PushEventLocked(live, std::move(event));
  };
  const absl::Status status = live->job->Run(on_round, RunLimits{-1, &live->stop});

  bool cancelled = false;
  bool shutting_down = false;
  {
    std::lock_guard<std::mutex> lock(mu_);
    cancelled = live->cancel_requested;
    shutting_down = shutting_down_;
  }
  if (cancelled) {
    (void)store_->SetJobStatus(live->id, JobStatus::kCancelled);
  } else if (shutting_down) {
    // Not the user's decision: the next server start resumes it.
    (void)store_->SetJobStatus(live->id, JobStatus::kPending);
  } else if (!status.ok()) {
    (void)store_->SetJobStatus(live->id, JobStatus::kFailed);
    LogWarning(absl::StrCat("job ", live->id, " failed: ", status.message()));
  }
  // The engine's state (models, populations) is no longer needed.
  live->job.reset();
  auto info = JobInfoFromStore(*store_, live->id);

  std::lock_guard<std::mutex> lock(mu_);
  if (info.ok()) {
    live->info = *info;
    if (!status.ok()) live->info.set_message(std::string(status.message()));
  }
  live->finished = true;
  --running_;
  v1::ProgressEvent final_event;
  *final_event.mutable_job() = live->info;
  final_event.set_final(true);
  PushEventLocked(live, std::move(final_event));
  MaybeStartLocked();
}

absl::StatusOr<v1::JobInfo> JobManager::Get(int64_t job_id) const {
  {
    std::lock_guard<std::mutex> lock(mu_);
    auto it = live_.find(job_id);
    if (it != live_.end()) return SnapshotLocked(*it->second);
  }
  return JobInfoFromStore(*store_, job_id);
}

absl::StatusOr<std::vector<v1::JobInfo>> JobManager::List() const {
  PRUNER_ASSIGN_OR_RETURN(auto jobs, store_->ListJobs());
  std::vector<v1::JobInfo> out;
  for (const StoredJob& job : jobs) {
    PRUNER_ASSIGN_OR_RETURN(auto info, Get(job.id));
    info.clear_tasks();  // the list is a summary; GetJob has the tasks
    out.push_back(std::move(info));
  }
  return out;
}

absl::StatusOr<v1::JobInfo> JobManager::Cancel(int64_t job_id) {
  {
    std::lock_guard<std::mutex> lock(mu_);
    auto it = live_.find(job_id);
    if (it != live_.end() && !it->second->finished) {
      LiveJob& live = *it->second;
      live.cancel_requested = true;
      live.stop.store(true);
      dispatcher_->CancelJob(job_id);
      if (!live.started) {
        // Never ran: nothing to stop, end it here.
        live.finished = true;
        live.job.reset();
        (void)store_->SetJobStatus(job_id, JobStatus::kCancelled);
        live.info.set_status("cancelled");
        v1::ProgressEvent final_event;
        *final_event.mutable_job() = live.info;
        final_event.set_final(true);
        PushEventLocked(&live, std::move(final_event));
      }
      return SnapshotLocked(live);
    }
  }
  PRUNER_ASSIGN_OR_RETURN(auto info, JobInfoFromStore(*store_, job_id));
  if (Terminal(info.status())) {
    return absl::FailedPreconditionError(
        absl::StrCat("job ", job_id, " is already ", info.status()));
  }
  (void)store_->SetJobStatus(job_id, JobStatus::kCancelled);
  return JobInfoFromStore(*store_, job_id);
}

absl::Status JobManager::Watch(int64_t job_id,
                               const std::function<bool(const v1::ProgressEvent&)>& write,
                               const std::function<bool()>& client_gone) {
  std::unique_lock<std::mutex> lock(mu_);
  auto it = live_.find(job_id);
  if (it == live_.end()) {
    lock.unlock();
    PRUNER_ASSIGN_OR_RETURN(auto info, JobInfoFromStore(*store_, job_id));
    v1::ProgressEvent snapshot;
    *snapshot.mutable_job() = info;
    snapshot.set_final(Terminal(info.status()));
    write(snapshot);
    return absl::OkStatus();
  }
  LiveJob* live = it->second.get();
  int64_t next = live->first_event_seq + static_cast<int64_t>(live->events.size());
  {
    v1::ProgressEvent snapshot;
    *snapshot.mutable_job() = SnapshotLocked(*live);
    if (live->finished) snapshot.set_final(true);
    lock.unlock();
    if (!write(snapshot) || snapshot.final()) return absl::OkStatus();
    lock.lock();
  }
  while (true) {
    events_cv_.wait_for(lock, std::chrono::milliseconds(200), [&] {
      return next < live->first_event_seq + static_cast<int64_t>(live->events.size()) ||
             shutting_down_;
    });
    if (client_gone()) return absl::OkStatus();
    if (next < live->first_event_seq) next = live->first_event_seq;  // fell behind
    std::vector<v1::ProgressEvent> batch;
    const int64_t end = live->first_event_seq + static_cast<int64_t>(live->events.size());
    for (; next < end; ++next) batch.push_back(live->events[next - live->first_event_seq]);
    const bool stopping = shutting_down_;
    lock.unlock();
    for (const v1::ProgressEvent& event : batch) {
      if (!write(event) || event.final()) return absl::OkStatus();
    }
    if (stopping && batch.empty()) return absl::UnavailableError("the server is shutting down");
    lock.lock();
  }
}

void JobManager::Shutdown() {
  std::vector<std::thread> threads;
  {
    std::lock_guard<std::mutex> lock(mu_);
    if (shutting_down_) return;
    shutting_down_ = true;
    for (auto& [id, live] : live_) {
      live->stop.store(true);
      if (live->thread.joinable()) threads.push_back(std::move(live->thread));
    }
    events_cv_.notify_all();
  }
  // Ends every wait for measurements; the jobs see Unavailable and stop.
  dispatcher_->Shutdown();
  for (std::thread& t : threads) t.join();
}

}  // namespace pruner
