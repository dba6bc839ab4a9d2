#include "common/tune/tuning_job.h"

#include <algorithm>
#include <chrono>
#include <cmath>
#include <future>
#include <optional>
#include <map>
#include <utility>

#include "absl/strings/str_cat.h"
#include "common/base/clock.h"
#include "common/device/thread_limit.h"
#include "common/base/status_macros.h"
#include "common/schedule/step.h"
#include "common/search/task_scheduler.h"
#include "common/tune/draft_constants.h"
#include "common/tune/strategy.h"
#include "nlohmann/json.hpp"

namespace pruner {
namespace {

using Clock = SteadyClock;

// Ansor's rule (§4.3 step 1): rounds are never larger than an even share of
// the budget, so that every task gets at least its warm-up round.
int RoundSize(const TuningOptions& options, int num_tasks) {
  return static_cast<int>(
      std::min<int64_t>(options.measures_per_round, options.trial_budget / num_tasks));
}

std::string RoundTimeJson(const RoundTime& t) {
  return nlohmann::json{{"search_s", t.search_s}, {"train_s", t.train_s},
                        {"measure_s", t.measure_s}, {"build_s", t.build_s},
                        {"run_s", t.run_s},         {"db_s", t.db_s}}
      .dump();
}

}  // namespace

RoundTime& RoundTime::operator+=(const RoundTime& o) {
  search_s += o.search_s;
  train_s += o.train_s;
  measure_s += o.measure_s;
  build_s += o.build_s;
  run_s += o.run_s;
  db_s += o.db_s;
  return *this;
}

struct TuningJob::Impl {
  RecordsStore* store = nullptr;
  Measurer* measurer = nullptr;
  int64_t job_id = 0;
  TuningOptions options;
  DeviceProfile device;
  std::vector<SearchTask> tasks;
  std::vector<TaskStatus> status;
  std::unique_ptr<CostModel> model;
  CpuIssueConstants draft_constants;  // LSE's on a CPU (draft_constants.h)
  bool draft_constants_stored = false;
  std::vector<std::unique_ptr<SearchPolicy>> policies;
  std::unique_ptr<TaskScheduler> scheduler;
  int round_size = 0;
  int64_t trials = 0;
  int rounds = 0;
  double previous_wall_s = 0;  // wall time of earlier runs (from the curve)

  double EstimatedLatency() const {
    double total = 0;
    for (const TaskStatus& t : status) {
      if (t.best_cost_s > 0) total += t.weight * t.best_cost_s;
    }
    return total;
  }
  absl::Status Init();
  // The task's best as the store ranks it (records_store.h BetterBest):
  // the lowest trusted cost among verified records, else among the rest.
  struct BestSoFar {
    double verified = 0;  // 0: none yet
    double other = 0;
    double Cost() const { return verified > 0 ? verified : other; }
  };
  std::vector<BestSoFar> bests;
  // Counts an eligible record of `task` towards its best.
  void Consider(int task, const StoredRecord& r) {
    if (!EligibleAsBest(r)) return;
    double& slot = r.verdict == Verdict::kVerified ? bests[task].verified : bests[task].other;
    if (slot <= 0 || TrustedCost(r) < slot) slot = TrustedCost(r);
    status[task].best_cost_s = bests[task].Cost();
  }
  // Measures `record` (of `state`, a candidate that would become `task`'s
  // best) a second time, on another worker when there is one; stores the
  // verdict and fills record's verdict and check fields. A measurer that
  // cannot measure (the job is stopping) leaves it unverified. `*line`
  // gets what happened.
  absl::Status VerifyBest(int task, const pruner::State& state, StoredRecord* record,
                          std::string* line);
};

absl::Status TuningJob::Impl::VerifyBest(int task, const pruner::State& state,
                                         StoredRecord* record, std::string* line) {
  MeasureInput input{tasks[task].dag, state.steps(), device};
  input.avoid_worker = record->measured_by;
  absl::StatusOr<std::vector<MeasureResult>> checked = measurer->Measure({input});
  if (!line->empty()) absl::StrAppend(line, "; ");
  if (!checked.ok() || checked->size() != 1) {
    absl::StrAppend(line, "best left unverified: ",
                    checked.ok() ? "no result" : checked.status().message());
    return absl::OkStatus();
  }
  StoredRecord check = *record;
  check.result = (*checked)[0];
  check.measured_by = check.result.measured_by.empty() ? measurer->Name() : check.result.measured_by;
  check.measured_at_unix_ms = NowUnixMs();
  PRUNER_ASSIGN_OR_RETURN(Verdict verdict,
                          store->AddVerification(record->id, check, options.verify_tolerance));
  PRUNER_ASSIGN_OR_RETURN(StoredRecord updated, store->GetRecord(record->id));
  record->verdict = updated.verdict;
  record->check_record_id = updated.check_record_id;
  record->check_mean_s = updated.check_mean_s;
  const std::string again = check.result.ok() ? absl::StrCat(check.result.mean_s * 1e3, " ms")
                                              : check.result.Describe().substr(0, 120);
  absl::StrAppend(line, "best ", record->result.mean_s * 1e3, " ms (", record->measured_by,
                  ") re-measured ", again, " (", check.measured_by,
                  check.measured_by == record->measured_by ? ", the same worker" : "",
                  "): ", VerdictName(verdict));
  return absl::OkStatus();
}

// Builds what both Create and Resume need once tasks, device and options are
// known: the model, the policies, the scheduler, the per-task status.
absl::Status TuningJob::Impl::Init() {
  Impl& s = *this;
  const int n = static_cast<int>(s.tasks.size());
  s.round_size = RoundSize(s.options, n);
  if (s.round_size <= 0) {
    return absl::InvalidArgumentError(absl::StrCat("trial budget ", s.options.trial_budget,
                                                   " is smaller than the number of tasks (", n,
                                                   "): every task needs at least one trial"));
  }
  auto model = MakeStrategyModel(s.options, s.device, n, s.store);
  if (!model.ok()) return model.status();
  s.model = std::move(*model);
  // The draft's device constants: those `pruner calibrate` stored for this
  // device, else the defaults (read again on every resume).
  s.draft_constants_stored = false;
  s.draft_constants = CpuIssueConstants{};
  if (!s.device.IsGpu()) {
    auto constants = DraftConstantsFor(s.store, s.device.name, &s.draft_constants_stored);
    if (!constants.ok()) return constants.status();
    s.draft_constants = *constants;
  }
  s.policies.clear();
  s.status.clear();
  s.bests.assign(static_cast<size_t>(n), BestSoFar{});
  std::vector<double> weights, flops;
  for (int i = 0; i < n; ++i) {
    auto policy = MakeStrategyPolicy(s.options, s.tasks[i], s.model.get(),
                                     s.options.seed * 1000003 + static_cast<uint64_t>(i),
                                     s.draft_constants);
    if (!policy.ok()) {
      return absl::Status(policy.status().code(),
                          absl::StrCat("task ", i, " (", s.tasks[i].name, "): ",
                                       policy.status().message()));
    }
    s.policies.push_back(std::move(*policy));
    TaskStatus st;
    st.name = s.tasks[i].name;
    st.workload_key = s.tasks[i].workload_key;
    st.weight = s.tasks[i].weight;
    st.flops = s.tasks[i].dag->FlopCount();
    s.status.push_back(st);
    weights.push_back(st.weight);
    flops.push_back(st.flops);
  }
  TaskSchedulerOptions so;
  so.strategy = s.options.scheduler == "round-robin" ? TaskSchedulerStrategy::kRoundRobin
                                                     : TaskSchedulerStrategy::kGradient;
  so.measures_per_round = s.round_size;
  so.early_stopping = s.options.early_stopping;
  so.per_task_early_stopping = s.options.per_task_early_stopping;
  so.seed = s.options.seed;
  so.trial_budget = s.options.trial_budget;
  s.scheduler = std::make_unique<TaskScheduler>(weights, flops, so);
  return absl::OkStatus();
}

TuningJob::TuningJob(std::unique_ptr<Impl> impl) : s_(std::move(impl)) {}
TuningJob::~TuningJob() = default;

absl::StatusOr<std::unique_ptr<TuningJob>> TuningJob::Create(RecordsStore* store,
                                                             Measurer* measurer,
                                                             std::vector<SearchTask> tasks,
                                                             const DeviceProfile& device,
                                                             const TuningOptions& options) {
  if (tasks.empty()) return absl::InvalidArgumentError("a tuning job needs at least one task");
  PRUNER_RETURN_IF_ERROR(ValidateTuningOptions(options));
  auto s = std::make_unique<Impl>();
  s->store = store;
  s->measurer = measurer;
  s->options = options;
  s->device = device;
  for (SearchTask& t : tasks) {
    if (t.dag == nullptr) return absl::InvalidArgumentError(absl::StrCat("task ", t.name, ": no workload"));
    if (t.weight <= 0) {
      return absl::InvalidArgumentError(absl::StrCat("task ", t.name, ": weight must be positive"));
    }
    t.device = WithThreadLimit(device, options.measure.num_threads);
    if (t.workload_key.empty()) t.workload_key = t.dag->WorkloadKey();
  }
  s->tasks = std::move(tasks);
  PRUNER_RETURN_IF_ERROR(s->Init());

  PRUNER_RETURN_IF_ERROR(store->PutDevice(device));
  StoredJob job;
  job.name = options.name;
  job.device_key = device.name;
  job.strategy = options.strategy;
  job.scheduler = options.scheduler;
  job.trial_budget = options.trial_budget;
  job.measures_per_round = options.measures_per_round;
  job.options_json = TuningOptionsToJson(options);
  job.status = JobStatus::kPending;
  job.created_unix_ms = NowUnixMs();
  for (size_t i = 0; i < s->tasks.size(); ++i) {
    const SearchTask& t = s->tasks[i];
    PRUNER_RETURN_IF_ERROR(store->PutWorkload(*t.dag, t.name));
    job.tasks.push_back(StoredTask{static_cast<int>(i), t.name, t.workload_key, t.weight});
  }
  PRUNER_ASSIGN_OR_RETURN(auto id, store->CreateJob(job));
  s->job_id = id;
  return std::unique_ptr<TuningJob>(new TuningJob(std::move(s)));
}

absl::StatusOr<std::unique_ptr<TuningJob>> TuningJob::Resume(RecordsStore* store,
                                                             Measurer* measurer, int64_t job_id) {
  auto job = store->GetJob(job_id);
  if (!job.ok()) return job.status();
  auto options = TuningOptionsFromJson(job->options_json);
  if (!options.ok()) {
    return absl::DataLossError(absl::StrCat("job ", job_id, ": stored options do not load: ",
                                            options.status().message()));
  }
  auto device = store->GetDevice(job->device_key);
  if (!device.ok()) return device.status();

  auto s = std::make_unique<Impl>();
  s->store = store;
  s->measurer = measurer;
  s->job_id = job_id;
  s->options = *options;
  s->device = *device;
  for (const StoredTask& t : job->tasks) {
    auto dag = store->GetWorkload(t.workload_key);
    if (!dag.ok()) return dag.status();
    SearchTask task;
    task.name = t.name;
    task.dag = std::make_shared<const ComputeDag>(std::move(*dag));
    task.workload_key = t.workload_key;
    task.device = WithThreadLimit(s->device, s->options.measure.num_threads);
    task.weight = t.weight;
    s->tasks.push_back(std::move(task));
  }
  PRUNER_RETURN_IF_ERROR(s->Init());

  // Replay every record of the job: the measured sets, the best costs, the
  // rounds, the model's training data.
  PRUNER_ASSIGN_OR_RETURN(auto records, store->JobRecords(job_id));
  const int n = static_cast<int>(s->tasks.size());
  std::vector<std::vector<MeasuredState>> per_task(n);
  std::vector<MeasuredState> all;
  for (const StoredRecord& r : records) {
    if (r.task_index < 0 || r.task_index >= n) {
      return absl::DataLossError(absl::StrCat("job ", job_id, ": record ", r.id,
                                              " names task ", r.task_index, " of ", n));
    }
    const SearchTask& task = s->tasks[r.task_index];
    PRUNER_ASSIGN_OR_RETURN(auto steps, ParseSteps(r.steps));
    auto state = pruner::State::Replay(task.dag, steps);
    if (!state.ok()) {
      return absl::DataLossError(absl::StrCat("job ", job_id, ": record ", r.id,
                                              " does not replay: ", state.status().message()));
    }
    MeasuredState m{std::move(*state), task.workload_key, r.result.mean_s, r.result.ok()};
    TaskStatus& st = s->status[r.task_index];
    ++st.trials;
    if (m.ok) {
      ++st.ok_trials;
      s->Consider(r.task_index, r);
    }
    per_task[r.task_index].push_back(m);
    all.push_back(std::move(m));
    ++s->trials;
  }
  for (int i = 0; i < n; ++i) {
    if (per_task[i].empty()) continue;
    s->policies[i]->Record(per_task[i]);
    TaskStatus& st = s->status[i];
    st.rounds = static_cast<int>((st.trials + s->round_size - 1) / s->round_size);
    s->scheduler->RestoreTask(i, st.rounds, st.best_cost_s > 0 ? st.best_cost_s : kNoValidCost);
    s->rounds += st.rounds;
  }
  if (s->model != nullptr && !all.empty()) {
    PRUNER_RETURN_IF_ERROR(s->model->Update(all));
  }
  PRUNER_ASSIGN_OR_RETURN(auto curve, store->GetCurve(job_id));
  if (!curve.empty()) s->previous_wall_s = curve.back().wall_s;
  return std::unique_ptr<TuningJob>(new TuningJob(std::move(s)));
}

namespace {

// Second measurements per round at most: a worker that lies about a whole
// batch costs the job this many extra measurements per round, no more.
constexpr int kMaxChecksPerRound = 3;

// One round's candidates between proposal and recording.
struct ProposedRound {
  int task = -1;
  std::vector<pruner::State> states;
  RoundTime time;
  SearchCounters search;  // the policy's counters over this Propose
  std::optional<DraftVerifyRoundStats> draft_verify;
  std::future<absl::StatusOr<std::vector<MeasureResult>>> measured;
  Clock::time_point measure_start;
};

}  // namespace

absl::Status TuningJob::Run(const std::function<void(const RoundReport&)>& on_round,
                            const RunLimits& limits) {
  Impl& s = *s_;
  PRUNER_RETURN_IF_ERROR(s.store->SetJobStatus(s.job_id, JobStatus::kRunning));
  const Clock::time_point start = Clock::now();
  const int64_t trials_at_start = s.trials;
  RoundTime total;
  int rounds_this_run = 0;
  bool interrupted = false;

  auto fail = [&](absl::Status status) {
    (void)s.store->SetJobStatus(s.job_id, JobStatus::kFailed);
    return status;
  };

  // Picks a task (none of `busy`), proposes its round and starts measuring
  // it on another thread. nullopt: no task can be tuned now.
  auto propose = [&](const std::vector<int>& busy,
                     int64_t in_flight) -> absl::StatusOr<std::optional<ProposedRound>> {
    if (s.trials + in_flight >= s.options.trial_budget) return std::optional<ProposedRound>();
    const int task = s.scheduler->NextTask(busy);
    if (task < 0) return std::optional<ProposedRound>();
    ProposedRound round;
    round.task = task;
    const int n = static_cast<int>(
        std::min<int64_t>(s.round_size, s.options.trial_budget - s.trials - in_flight));
    SearchPolicy* policy = s.policies[task].get();
    const SearchCounters before = policy->Counters();
    const Clock::time_point t0 = Clock::now();
    auto proposed = policy->Propose(n);
    round.time.search_s = SecondsSince(t0);
    round.search = policy->Counters() - before;
    // Benchmarks want the drafter/verifier split of draft-verify rounds.
    round.draft_verify = policy->LastDraftVerifyRound();
    if (!proposed.ok()) {
      return absl::Status(proposed.status().code(),
                          absl::StrCat("task ", task, " (", s.tasks[task].name,
                                       "): search failed: ", proposed.status().message()));
    }
    round.states = *std::move(proposed);
    std::vector<MeasureInput> inputs;
    for (const pruner::State& state : round.states) {
      inputs.push_back(MeasureInput{s.tasks[task].dag, state.steps(), s.device});
    }
    round.measure_start = Clock::now();
    Measurer* measurer = s.measurer;
    round.measured = std::async(std::launch::async, [measurer, inputs = std::move(inputs)] {
      if (inputs.empty()) return absl::StatusOr<std::vector<MeasureResult>>(std::vector<MeasureResult>());
      return measurer->Measure(inputs);
    });
    return std::optional<ProposedRound>(std::move(round));
  };

  // Waits for a round's measurements and records them: store, policy,
  // model, scheduler, curve, report. False when the measurer could not
  // measure (nothing of the round is recorded).
  auto finish = [&](ProposedRound& round) -> absl::StatusOr<bool> {
    absl::StatusOr<std::vector<MeasureResult>> measured_or = round.measured.get();
    RoundTime& time = round.time;
    time.measure_s = SecondsSince(round.measure_start);
    if (!measured_or.ok() || measured_or->size() != round.states.size()) return false;
    std::vector<MeasureResult>& results = *measured_or;
    const int task = round.task;
    RoundReport report;
    report.job_id = s.job_id;
    report.task = task;
    TaskStatus& st = s.status[task];
    if (!results.empty()) {
      std::vector<StoredRecord> stored;
      std::vector<MeasuredState> measured;
      const int64_t now_ms = NowUnixMs();
      for (size_t i = 0; i < results.size(); ++i) {
        const MeasureResult& r = results[i];
        time.build_s += r.build_s;
        time.run_s += r.run_s;
        StoredRecord rec;
        rec.workload_key = s.tasks[task].workload_key;
        rec.device_key = s.device.name;
        rec.steps = StepsToString(round.states[i].steps());
        rec.result = r;
        rec.measured_by = r.measured_by.empty() ? s.measurer->Name() : r.measured_by;
        rec.measured_at_unix_ms = now_ms;
        rec.job_id = s.job_id;
        rec.task_index = task;
        stored.push_back(std::move(rec));
        measured.push_back(
            MeasuredState{round.states[i], s.tasks[task].workload_key, r.mean_s, r.ok()});
        ++st.trials;
        if (r.ok()) {
          ++report.ok;
          ++st.ok_trials;
        } else {
          report.errors.push_back(r.Describe());
        }
      }
      Clock::time_point t0 = Clock::now();
      auto ids = s.store->AddRecords(stored);
      time.db_s = SecondsSince(t0);
      if (!ids.ok()) {
        return fail(absl::Status(ids.status().code(), absl::StrCat("recording round results: ",
                                                                   ids.status().message())));
      }
      for (size_t i = 0; i < stored.size(); ++i) stored[i].id = (*ids)[i];
      if (s.options.verify_bests) {
        // Second measurements, fastest first, for each result that would
        // beat the task's verified best, until one is verified: a lie (or a
        // lucky timing) then never becomes the best.
        std::vector<size_t> order;
        for (size_t i = 0; i < results.size(); ++i) {
          if (results[i].ok()) order.push_back(i);
        }
        std::sort(order.begin(), order.end(),
                  [&](size_t a, size_t b) { return results[a].mean_s < results[b].mean_s; });
        int checks = 0;
        t0 = Clock::now();
        for (size_t i : order) {
          const double bar = s.bests[task].verified;
          if ((bar > 0 && results[i].mean_s >= bar) || checks == kMaxChecksPerRound) break;
          ++checks;
          if (absl::Status vs = s.VerifyBest(task, round.states[i], &stored[i],
                                             &report.verification);
              !vs.ok()) {
            return fail(absl::Status(vs.code(), absl::StrCat("recording a second measurement: ",
                                                             vs.message())));
          }
          s.Consider(task, stored[i]);
        }
        time.measure_s += SecondsSince(t0);
      }
      for (const StoredRecord& r : stored) s.Consider(task, r);
      s.policies[task]->Record(measured);
      if (s.model != nullptr) {
        t0 = Clock::now();
        if (absl::Status us = s.model->Update(measured); !us.ok()) return fail(us);
        time.train_s = SecondsSince(t0);
      }
      s.trials += static_cast<int64_t>(results.size());
      report.measured = static_cast<int>(results.size());
    }
    ++st.rounds;
    ++s.rounds;
    ++rounds_this_run;
    s.scheduler->OnRoundDone(task, report.measured, st.best_cost_s > 0 ? st.best_cost_s : kNoValidCost);

    total += time;
    report.round = s.rounds;
    report.trials = s.trials;
    report.trial_budget = s.options.trial_budget;
    const double run_s = SecondsSince(start);
    report.elapsed_s = s.previous_wall_s + run_s;
    const int64_t done_now = s.trials - trials_at_start;
    report.eta_s = done_now > 0 ? run_s / static_cast<double>(done_now) *
                                      static_cast<double>(s.options.trial_budget - s.trials)
                                : 0;
    report.estimated_latency_s = s.EstimatedLatency();
    for (const TaskStatus& t : s.status) report.tasks_without_result += t.best_cost_s > 0 ? 0 : 1;
    report.time = time;
    report.total_time = total;
    report.tasks = s.status;
    report.search = round.search;
    report.draft_verify = round.draft_verify;

    CurvePoint point;
    point.trials = s.trials;
    point.wall_s = report.elapsed_s;
    point.estimated_latency_s = report.estimated_latency_s;
    point.task_index = task;
    for (const TaskStatus& t : s.status) point.best_cost_s.push_back(t.best_cost_s);
    point.time_breakdown_json = RoundTimeJson(time);
    PRUNER_RETURN_IF_ERROR(s.store->AddCurvePoint(s.job_id, point));
    if (on_round) on_round(report);
    return true;
  };

  auto stop_requested = [&] {
    return (limits.stop != nullptr && limits.stop->load()) ||
           (limits.max_rounds >= 0 && rounds_this_run >= limits.max_rounds);
  };

  // Sequential: propose, measure, record. Overlapped: while round r is
  // measured, round r+1 is proposed for another task (the scheduler skips
  // the busy one), so search time hides behind measurement; the model that
  // scores r+1 has not seen r's results yet.
  std::optional<ProposedRound> in_flight;
  while (true) {
    if (stop_requested()) {
      interrupted = true;
      break;
    }
    std::optional<ProposedRound> next;
    if (!in_flight.has_value() || s.options.overlap_search) {
      std::vector<int> busy;
      int64_t pending = 0;
      if (in_flight.has_value()) {
        busy.push_back(in_flight->task);
        pending = static_cast<int64_t>(in_flight->states.size());
      }
      auto proposed = propose(busy, pending);
      if (!proposed.ok()) {
        if (in_flight.has_value()) (void)in_flight->measured.wait();
        return fail(proposed.status());
      }
      next = *std::move(proposed);
    }
    const bool finished_one = in_flight.has_value();
    if (in_flight.has_value()) {
      auto finished = finish(*in_flight);
      in_flight.reset();
      if (!finished.ok() || !*finished) {
        if (next.has_value()) (void)next->measured.wait();
        if (!finished.ok()) return finished.status();
        interrupted = true;  // the measurer gave up: resume measures it again
        break;
      }
    }
    if (!next.has_value()) {
      // Nothing new to propose: either everything is done, or the only task
      // that could go on was the one in flight, which has just finished
      // (then ask again).
      if (finished_one) continue;
      break;
    }
    in_flight = std::move(next);
    if (!s.options.overlap_search) {
      auto finished = finish(*in_flight);
      in_flight.reset();
      if (!finished.ok()) return finished.status();
      if (!*finished) {
        interrupted = true;
        break;
      }
    }
  }
  if (in_flight.has_value()) {
    // Stopped with a round measuring: record it if it completes.
    PRUNER_RETURN_IF_ERROR(finish(*in_flight).status());

  }

  if (s.model != nullptr && s.model->NumTrainingRecords() > 0) {
    auto blob = s.model->Save();
    if (blob.ok()) {
      (void)s.store->PutCheckpoint(s.model->Name(), s.device.name, *blob,
                                   s.model->NumTrainingRecords());
    }
  }
  return s.store->SetJobStatus(s.job_id, interrupted ? JobStatus::kStopped : JobStatus::kDone);
}

int64_t TuningJob::id() const { return s_->job_id; }
int64_t TuningJob::trials() const { return s_->trials; }
const TuningOptions& TuningJob::options() const { return s_->options; }
const DeviceProfile& TuningJob::SearchDevice() const { return s_->tasks.front().device; }

const CpuIssueConstants& TuningJob::DraftConstants(bool* stored) const {
  if (stored != nullptr) *stored = s_->draft_constants_stored;
  return s_->draft_constants;
}
std::vector<TaskStatus> TuningJob::TaskStatuses() const { return s_->status; }
double TuningJob::EstimatedLatency() const { return s_->EstimatedLatency(); }

}  // namespace pruner
