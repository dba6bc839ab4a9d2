#include "client/submit_spec.h"

#include "client/job_spec_json.h"
#include "common/base/status_macros.h"
#include "common/graph/onnx_import.h"
#include "common/graph/tasks.h"
#include "proto/wire_convert.h"

namespace pruner {
namespace {

template <typename T, typename Setter>
void Override(const std::optional<T>& flag, Setter set) {
  if (flag.has_value()) set(*flag);
}

}  // namespace

absl::StatusOr<v1::ModelSpec> ModelSpecFromOnnx(const std::string& path,
                                                const std::vector<std::string>& shapes,
                                                const std::string& layout) {
  PRUNER_ASSIGN_OR_RETURN(OnnxImportOptions options, ImportOptionsFromFlags(shapes, layout));
  PRUNER_ASSIGN_OR_RETURN(OnnxModel model, ImportOnnxFile(path, options));
  PRUNER_ASSIGN_OR_RETURN(std::vector<GraphTask> tasks, ExtractTasks(model.graph));
  v1::ModelSpec spec;
  spec.set_name(model.graph.name());
  for (const GraphTask& t : tasks) {
    v1::ModelTask* task = spec.add_tasks();
    task->set_name(t.name);
    task->set_dag(t.dag->CanonicalText());
    task->set_weight(t.weight);
  }
  return spec;
}

absl::StatusOr<v1::JobSpec> BuildJobSpec(const SubmitFlags& flags, std::string_view spec_json) {
  v1::JobSpec spec;
  if (!spec_json.empty()) {
    PRUNER_ASSIGN_OR_RETURN(auto parsed, ParseJobSpecJson(spec_json));
    spec = std::move(parsed);
  }
  if (static_cast<int>(!flags.ops.empty()) + static_cast<int>(flags.network.has_value()) +
          static_cast<int>(flags.model.has_value()) > 1) {
    return absl::InvalidArgumentError("give one of --op, --network and --model");
  }
  if (flags.model.has_value()) {
    spec.clear_ops();
    spec.clear_network();
    PRUNER_ASSIGN_OR_RETURN(*spec.mutable_model(), ModelSpecFromOnnx(*flags.model, flags.shapes, flags.layout));
  }
  // What to tune is one choice: --op over a file with a network means the
  // operators, not both.
  if (!flags.ops.empty()) {
    spec.clear_network();
    spec.clear_model();
    spec.clear_ops();
    for (const std::string& op : flags.ops) spec.add_ops(op);
  }
  if (flags.network.has_value()) {
    spec.clear_ops();
    spec.clear_model();
    spec.set_network(*flags.network);
  }
  Override(flags.target, [&](const std::string& v) { spec.set_target(v); });
  Override(flags.name, [&](const std::string& v) { spec.set_name(v); });
  Override(flags.strategy, [&](const std::string& v) { spec.set_strategy(v); });
  Override(flags.pretrained_device, [&](const std::string& v) { spec.set_pretrained_device(v); });
  Override(flags.scheduler, [&](const std::string& v) { spec.set_scheduler(v); });
  Override(flags.trials, [&](int64_t v) { spec.set_trial_budget(v); });
  Override(flags.per_round, [&](int32_t v) { spec.set_measures_per_round(v); });
  Override(flags.seed, [&](uint64_t v) { spec.set_seed(v); });
  Override(flags.early_stopping, [&](int64_t v) { spec.set_early_stopping(v); });
  if (flags.no_verify_bests) spec.set_verify_bests(false);
  if (flags.no_seeds) spec.set_seed_schedules(false);
  Override(flags.verify_tolerance, [&](double v) { spec.set_verify_tolerance(v); });
  v1::MeasureOptions& measure = *spec.mutable_measure();
  Override(flags.number, [&](int32_t v) { measure.set_number(v); });
  Override(flags.repeat, [&](int32_t v) { measure.set_repeat(v); });
  Override(flags.min_repeat_ms, [&](double v) { measure.set_min_repeat_ms(v); });
  Override(flags.hopeless_factor,
           [&](double v) { measure.set_hopeless_factor(HopelessFactorToWire(v)); });
  Override(flags.threads, [&](int32_t v) { measure.set_num_threads(v); });
  Override(flags.run_timeout_s, [&](double v) { measure.set_run_timeout_s(v); });
  Override(flags.build_timeout_s, [&](double v) { measure.set_build_timeout_s(v); });
  // An empty MeasureOptions and no MeasureOptions mean the same to the
  // server; sending none keeps the request (and --json output) minimal.
  if (spec.measure().ByteSizeLong() == 0) spec.clear_measure();

  if (spec.ops().empty() && spec.network().empty() && spec.model().tasks().empty()) {
    return absl::InvalidArgumentError(
        "nothing to tune: give --op SPEC (repeatable), --network NAME or --model FILE.onnx, or a "
        "--spec file with \"ops\" or \"network\"");
  }
  if (!spec.ops().empty() && !spec.network().empty()) {
    return absl::InvalidArgumentError("the job spec names both ops and a network; give one");
  }
  if (spec.target().empty()) {
    return absl::InvalidArgumentError(
        "no target: give --target DEVICE (a worker's device key or a built-in profile, see "
        "`pruner workers` and `pruner devices`)");
  }
  return spec;
}

}  // namespace pruner
