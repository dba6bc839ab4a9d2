// A tuning job, in process: the tasks of one operator or network on one
// device, tuned round by round (../shared/specs/ansor.md §3.2 and §4.3) until the trial
// budget is spent.
//
// One round: the task scheduler picks a task; that task's search policy
// proposes up to measures_per_round new schedules; the measurer builds, runs,
// checks and times them; the results go to the records store (one
// transaction), to the policy (measured set, seeds of the next population)
// and to the job's one shared cost model; a point is added to the tuning
// curve.
//
// Everything needed to continue lives in the store: the job's options, its
// tasks and workloads, its device, and every record it measured. Resume()
// rebuilds the scheduler state (rounds and best cost per task), the measured
// sets (nothing is measured twice) and the cost model (retrained on the
// job's records), then Run() goes on from the same trial count.
#ifndef PRUNER_COMMON_TUNE_TUNING_JOB_H_
#define PRUNER_COMMON_TUNE_TUNING_JOB_H_

#include <atomic>
#include <cstdint>
#include <functional>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "common/analysis/analyzer_options.h"
#include "common/search/search_counters.h"
#include "common/search/search_policy.h"
#include "common/store/records_store.h"
#include "common/measure/measurer.h"
#include "common/tune/tuning_options.h"

namespace pruner {

// Where one round's wall time went (the Pruner paper's Table 1 breakdown).
struct RoundTime {
  double search_s = 0;   // policy: sampling, mutation, model prediction
  double train_s = 0;    // cost-model update
  double measure_s = 0;  // measurer wall time (builds in parallel, runs serial)
  double build_s = 0;    // sum of per-candidate compiler times
  double run_s = 0;      // sum of per-candidate sandbox times
  double db_s = 0;       // records store writes
  RoundTime& operator+=(const RoundTime& other);
};

struct TaskStatus {
  std::string name;
  std::string workload_key;
  double weight = 1;
  double flops = 0;
  int rounds = 0;
  int64_t trials = 0;
  int64_t ok_trials = 0;
  double best_cost_s = 0;  // 0: no valid measurement yet
};

struct RoundReport {
  int64_t job_id = 0;
  int round = 0;  // rounds run by this job so far, across restarts
  int task = -1;
  int measured = 0;
  int ok = 0;
  std::vector<std::string> errors;  // one line per failed candidate
  // When the round found a new best and verify_bests is on: its second
  // measurement and verdict, e.g. "best 0.12 ms (w1) re-measured 0.13 ms
  // (w2): verified".
  std::string verification;
  int64_t trials = 0;
  int64_t trial_budget = 0;
  double elapsed_s = 0;  // job wall time, across restarts
  double eta_s = 0;      // remaining trials at this run's rate
  double estimated_latency_s = 0;  // Σ weight · best cost over tasks with a result
  int tasks_without_result = 0;
  RoundTime time;
  RoundTime total_time;  // this run so far
  std::vector<TaskStatus> tasks;
  // What the round's search did: the task policy's SearchCounters over its
  // Propose call (predicted_states = states sent to a cost model, predict_s
  // the time inside Predict). Zeros for policies that keep no counters.
  SearchCounters search;
  // Draft-then-verify policies only ("lse-xgb", "pruner", ...): how those
  // states split between the drafter (LSE, learns nothing) and the verifier
  // (the learned model), with the seconds of each stage. For any other
  // policy every predicted state was scored by the one (learned) model.
  std::optional<DraftVerifyRoundStats> draft_verify;
};

struct RunLimits {
  // Stop after this many rounds in this call (< 0: no limit): how tests
  // interrupt a job half-way.
  int max_rounds = -1;
  // Checked between rounds; set it from a signal handler to stop cleanly.
  const std::atomic<bool>* stop = nullptr;
};

class TuningJob {
 public:
  // Registers the device, the workloads and a new job in `store`. `tasks` all
  // share `device` (their own device field is overwritten). The store and the
  // measurer must outlive the job.
  static absl::StatusOr<std::unique_ptr<TuningJob>> Create(RecordsStore* store, Measurer* measurer,
                                                           std::vector<SearchTask> tasks,
                                                           const DeviceProfile& device,
                                                           const TuningOptions& options);
  // Continues job `job_id` from the store.
  static absl::StatusOr<std::unique_ptr<TuningJob>> Resume(RecordsStore* store, Measurer* measurer,
                                                           int64_t job_id);
  ~TuningJob();

  // Runs rounds until the budget is spent, every task is finished, early
  // stopping triggers, or `limits` stop it. The job's status in the store
  // becomes done, or stopped when interrupted. `on_round` sees every round.
  absl::Status Run(const std::function<void(const RoundReport&)>& on_round = nullptr,
                   const RunLimits& limits = {});

  int64_t id() const;
  int64_t trials() const;
  const TuningOptions& options() const;
  // The device its searches draft and generate sketches for: the job's
  // device limited to the kernels' threads (WithThreadLimit with
  // measure.num_threads); records stay keyed by the job's device.
  const DeviceProfile& SearchDevice() const;
  // The CPU issue constants LSE drafts with on this job's device: stored by
  // `pruner calibrate` (`*stored` true) or the defaults. Draft-then-verify
  // strategies use them; the others ignore them.
  const CpuIssueConstants& DraftConstants(bool* stored = nullptr) const;
  std::vector<TaskStatus> TaskStatuses() const;
  // Σ weight · best cost over tasks that have a valid result.
  double EstimatedLatency() const;

 private:
  struct Impl;
  explicit TuningJob(std::unique_ptr<Impl> impl);
  std::unique_ptr<Impl> s_;
};

}  // namespace pruner

#endif  // PRUNER_COMMON_TUNE_TUNING_JOB_H_
