#include "client/dataset_submit.h"

#include <map>
#include <set>

#include "absl/strings/match.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_format.h"
#include "common/graph/networks.h"
#include "common/graph/tasks.h"
#include "proto/wire_convert.h"

namespace pruner {
namespace {

using Stub = v1::TuningService::Stub;

int Fail(const absl::Status& status, std::ostream& err) {
  err << "error: " << status.message() << "\n";
  return status.code() == absl::StatusCode::kUnavailable ? 3 : 2;
}

}  // namespace

int RunDatasetSubmit(const ServiceFlags& service, const std::string& target,
                     const DatasetCollectOptions& options, CommandStreams io) {
  if (options.per_task < 1 || options.per_round < 1) {
    return Fail(absl::InvalidArgumentError("per-task and per-round must be at least 1"), io.err);
  }
  // Every spec is checked before anything is submitted.
  std::vector<std::string> specs;
  for (const std::string& spec :
       options.networks.empty() ? DefaultDatasetNetworks() : options.networks) {
    absl::StatusOr<std::string> canonical = CanonicalNetworkSpec(spec);
    if (!canonical.ok()) return Fail(canonical.status(), io.err);
    specs.push_back(*canonical);
  }
  auto listed = CallServer(service, &Stub::ListJobs, v1::ListJobsRequest());
  if (!listed.ok()) return Fail(listed.status(), io.err);
  // The target's dataset jobs, with their tasks (GetJob has them).
  std::map<std::string, int64_t> job_of_name;
  std::set<std::string> listed_keys;
  for (const v1::JobInfo& job : listed->jobs()) {
    if (job.target() != target || !absl::StartsWith(job.name(), kDatasetJobPrefix)) continue;
    if (job.status() == "cancelled" || job.status() == "failed") continue;  // submitted anew
    job_of_name.emplace(job.name(), job.id());
    v1::GetJobRequest get;
    get.set_job_id(job.id());
    auto full = CallServer(service, &Stub::GetJob, get);
    if (!full.ok()) return Fail(full.status(), io.err);
    for (const v1::TaskInfo& t : full->tasks()) listed_keys.insert(t.workload_key());
  }
  int submitted = 0;
  for (size_t i = 0; i < specs.size(); ++i) {
    const std::string name = kDatasetJobPrefix + specs[i];
    if (auto it = job_of_name.find(name); it != job_of_name.end()) {
      io.out << absl::StrFormat("%-32s job %d on the server already\n", specs[i], it->second);
      continue;
    }
    absl::StatusOr<Graph> graph = BuildNetwork(specs[i]);
    if (!graph.ok()) return Fail(graph.status(), io.err);
    absl::StatusOr<std::vector<GraphTask>> tasks = ExtractTasks(*graph);
    if (!tasks.ok()) return Fail(tasks.status(), io.err);
    v1::SubmitJobRequest request;
    v1::JobSpec& spec = *request.mutable_spec();
    spec.mutable_model()->set_name(specs[i]);
    for (const GraphTask& t : *tasks) {
      if (!listed_keys.insert(t.workload_key).second) continue;
      v1::ModelTask* task = spec.mutable_model()->add_tasks();
      task->set_name(t.name);
      task->set_dag(t.dag->CanonicalText());
      task->set_weight(t.weight);
    }
    const int new_tasks = spec.model().tasks_size();
    if (new_tasks == 0) {
      io.out << absl::StrFormat("%-32s %d tasks, all collected under earlier networks\n", specs[i],
                                tasks->size());
      continue;
    }
    spec.set_name(name);
    spec.set_target(target);
    spec.set_strategy("random");
    spec.set_scheduler("round-robin");
    spec.set_trial_budget(int64_t{options.per_task} * new_tasks);
    spec.set_measures_per_round(options.per_round);
    spec.set_seed(options.seed + i);
    spec.set_verify_bests(false);
    v1::MeasureOptions& m = *spec.mutable_measure();
    m.set_number(options.measure.number);
    m.set_repeat(options.measure.repeat);
    m.set_min_repeat_ms(options.measure.min_repeat_ms);
    m.set_num_threads(options.measure.num_threads);
    m.set_run_timeout_s(options.measure.run_timeout_s);
    m.set_hopeless_factor(HopelessFactorToWire(options.measure.hopeless_factor));
    auto job = CallServer(service, &Stub::SubmitJob, request);
    if (!job.ok()) return Fail(job.status(), io.err);
    ++submitted;
    io.out << absl::StrFormat("%-32s job %d: %d of %d tasks new, %d trials\n", specs[i], job->id(),
                              new_tasks, tasks->size(), spec.trial_budget());
  }
  io.out << absl::StrFormat(
      "%d jobs submitted to %s for %s; follow with `pruner jobs`, then `pruner dataset stats "
      "--db <the server's database>`\n",
      submitted, service.server, target);
  io.out << std::flush;
  return 0;
}

}  // namespace pruner
