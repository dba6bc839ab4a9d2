// The server's jobs: each one a TuningJob running on its own thread with a
// RemoteMeasurer, so jobs search while other jobs' batches are measured.
//
// Durability: everything a job needs lives in the records database (its
// options, tasks, device, records, curve). On start the manager resumes
// every job left pending or running by a previous process (one that was
// killed mid-round measures that round again: at most one round repeats).
// A graceful shutdown leaves running jobs pending for the next start.
//
// Limits: at most max_running_jobs run at once (the rest wait in submission
// order), and at most max_pending_jobs wait; beyond that Submit refuses with
// ResourceExhausted instead of piling up work.
#ifndef PRUNER_SERVER_JOB_MANAGER_H_
#define PRUNER_SERVER_JOB_MANAGER_H_

#include <condition_variable>
#include <cstdint>
#include <functional>
#include <map>
#include <memory>
#include <mutex>
#include <vector>

#include "absl/status/statusor.h"
#include "common/device/device_profile.h"
#include "common/store/records_store.h"
#include "pruner/v1/tuning_service.pb.h"
#include "server/dispatcher.h"
#include "server/job_spec_check.h"

namespace pruner {

struct JobManagerOptions {
  int max_running_jobs = 4;
  int max_pending_jobs = 64;
  JobLimits limits;
  // Progress events kept per job for watchers that join late or fall behind.
  int max_buffered_events = 256;
};

class JobManager {
 public:
  // `store` and `dispatcher` must outlive the manager.
  JobManager(RecordsStore* store, Dispatcher* dispatcher, JobManagerOptions options = {});
  ~JobManager();  // Shutdown()

  // Resumes the jobs a previous server left pending or running. Returns how
  // many; a job that cannot be resumed is marked failed (and logged).
  absl::StatusOr<int> ResumeUnfinished();

  absl::StatusOr<v1::JobInfo> Submit(const v1::JobSpec& spec);
  absl::StatusOr<v1::JobInfo> Get(int64_t job_id) const;
  // FailedPrecondition for a job that already ended.
  absl::StatusOr<v1::JobInfo> Cancel(int64_t job_id);
  absl::StatusOr<std::vector<v1::JobInfo>> List() const;
  // Sends a snapshot, then every round's event, until the job ends (the last
  // event has final = true), `write` returns false, or `client_gone` returns
  // true. Events a slow watcher missed beyond the buffer are skipped.
  absl::Status Watch(int64_t job_id, const std::function<bool(const v1::ProgressEvent&)>& write,
                     const std::function<bool()>& client_gone);

  // Stops every job between rounds (or mid-measurement) and joins them;
  // they stay pending in the database for the next start.
  void Shutdown();

  // The device a job may target: a live worker's device, one stored in the
  // database, or a built-in GPU profile. "cpu" means the one CPU device the
  // live workers have, if there is exactly one.
  absl::StatusOr<DeviceProfile> ResolveTarget(const std::string& target) const;

 private:
  struct LiveJob;

  absl::StatusOr<v1::JobInfo> StartLiveJob(std::unique_ptr<LiveJob> live);
  void MaybeStartLocked();
  void RunJob(LiveJob* live);
  void PushEventLocked(LiveJob* live, v1::ProgressEvent event);
  v1::JobInfo SnapshotLocked(const LiveJob& live) const;

  RecordsStore* const store_;
  Dispatcher* const dispatcher_;
  const JobManagerOptions options_;
  mutable std::mutex mu_;
  std::condition_variable events_cv_;
  std::map<int64_t, std::unique_ptr<LiveJob>> live_;
  int running_ = 0;
  bool shutting_down_ = false;
};

}  // namespace pruner

#endif  // PRUNER_SERVER_JOB_MANAGER_H_
