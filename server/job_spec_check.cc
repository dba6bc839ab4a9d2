#include "server/job_spec_check.h"

#include "absl/strings/str_cat.h"
#include "common/base/status_macros.h"
#include "common/tune/job_tasks.h"
#include "proto/wire_convert.h"

namespace pruner {
namespace {

// A client-imported model's tasks: every DAG must parse, and the workload
// key is recomputed here, never taken from the wire.
absl::StatusOr<std::vector<SearchTask>> ModelTasks(const v1::ModelSpec& model,
                                                   const JobLimits& limits) {
  if (model.tasks_size() > limits.max_model_tasks) {
    return absl::InvalidArgumentError(absl::StrCat("the model has ", model.tasks_size(),
                                                   " tasks; at most ", limits.max_model_tasks));
  }
  std::vector<SearchTask> tasks;
  for (const v1::ModelTask& t : model.tasks()) {
    const std::string what = absl::StrCat("model task '", t.name().substr(0, 80), "'");
    if (t.name().size() > limits.max_name_bytes || t.dag().size() > limits.max_model_dag_bytes) {
      return absl::InvalidArgumentError(absl::StrCat(what, ": name or DAG text too long"));
    }
    if (!(t.weight() > 0) || t.weight() > 1e6) {
      return absl::InvalidArgumentError(absl::StrCat(what, ": weight must be in (0, 1e6]"));
    }
    absl::StatusOr<ComputeDag> dag = ComputeDag::ParseCanonical(t.dag());
    if (!dag.ok()) {
      return absl::InvalidArgumentError(absl::StrCat(what, ": ", dag.status().message()));
    }
    SearchTask task;
    task.name = t.name();
    task.dag = std::make_shared<const ComputeDag>(*std::move(dag));
    task.workload_key = task.dag->WorkloadKey();
    task.weight = t.weight();
    tasks.push_back(std::move(task));
  }
  return tasks;
}

}  // namespace

absl::StatusOr<CheckedJob> CheckJobSpec(const v1::JobSpec& spec, const JobLimits& limits) {
  if (spec.name().size() > limits.max_name_bytes) {
    return absl::InvalidArgumentError(
        absl::StrCat("job name is ", spec.name().size(), " bytes; at most ", limits.max_name_bytes));
  }
  if (spec.trial_budget() <= 0) {
    return absl::InvalidArgumentError(
        absl::StrCat("trial_budget must be > 0 (got ", spec.trial_budget(), ")"));
  }
  if (spec.trial_budget() > limits.max_trial_budget) {
    return absl::InvalidArgumentError(absl::StrCat("trial_budget ", spec.trial_budget(),
                                                   " is more than this server allows (",
                                                   limits.max_trial_budget, ")"));
  }
  if (spec.measures_per_round() < 0 || spec.measures_per_round() > limits.max_measures_per_round) {
    return absl::InvalidArgumentError(absl::StrCat("measures_per_round must be in [1, ",
                                                   limits.max_measures_per_round, "] (got ",
                                                   spec.measures_per_round(), ")"));
  }
  if (spec.early_stopping() < 0) return absl::InvalidArgumentError("early_stopping must be >= 0");
  for (const std::string& op : spec.ops()) {
    if (op.size() > limits.max_op_spec_bytes) {
      return absl::InvalidArgumentError(absl::StrCat("an operator spec is ", op.size(),
                                                     " bytes; at most ", limits.max_op_spec_bytes));
    }
  }
  if (spec.target().empty()) {
    return absl::InvalidArgumentError("no target: give the device key to tune for (see `pruner workers`)");
  }

  CheckedJob job;
  TuningOptions& o = job.options;
  o.name = spec.name();
  if (!spec.strategy().empty()) o.strategy = spec.strategy();
  if (!spec.scheduler().empty()) o.scheduler = spec.scheduler();
  o.trial_budget = spec.trial_budget();
  if (spec.measures_per_round() > 0) o.measures_per_round = spec.measures_per_round();
  if (spec.seed() > 0) o.seed = spec.seed();
  o.early_stopping = spec.early_stopping();
  o.overlap_search = spec.has_overlap_search() ? spec.overlap_search() : true;
  o.pretrained_device = spec.pretrained_device();
  if (spec.has_verify_bests()) o.verify_bests = spec.verify_bests();
  if (spec.has_seed_schedules()) o.seed_schedules = spec.seed_schedules();
  if (spec.verify_tolerance() != 0) o.verify_tolerance = spec.verify_tolerance();
  // What the spec leaves unset keeps the tuning defaults.
  auto measure = MeasureOptionsFromWire(spec.measure(), o.measure);
  if (!measure.ok()) return measure.status();
  o.measure = *measure;
  PRUNER_RETURN_IF_ERROR(ValidateTuningOptions(o));

  if (!spec.model().tasks().empty()) {
    if (!spec.ops().empty() || !spec.network().empty()) {
      return absl::InvalidArgumentError("the job spec names a model and ops or a network; give one");
    }
    PRUNER_ASSIGN_OR_RETURN(job.tasks, ModelTasks(spec.model(), limits));
    return job;
  }
  std::vector<std::string> ops(spec.ops().begin(), spec.ops().end());
  auto tasks = BuildJobTasks(ops, spec.network());
  if (!tasks.ok()) return tasks.status();
  job.tasks = *std::move(tasks);
  return job;
}

}  // namespace pruner
