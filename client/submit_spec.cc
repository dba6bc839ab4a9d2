#include "client/submit_spec.h"

#include "client/job_spec_json.h"
#include "common/base/status_macros.h"

namespace pruner {
namespace {

template <typename T, typename Setter>
void Override(const std::optional<T>& flag, Setter set) {
  if (flag.has_value()) set(*flag);
}

}  // namespace

absl::StatusOr<v1::JobSpec> BuildJobSpec(const SubmitFlags& flags, std::string_view spec_json) {
  v1::JobSpec spec;
  if (!spec_json.empty()) {
    PRUNER_ASSIGN_OR_RETURN(auto parsed, ParseJobSpecJson(spec_json));
    spec = std::move(parsed);
  }
  if (!flags.ops.empty() && flags.network.has_value()) {
    return absl::InvalidArgumentError("give --op or --network, not both");
  }
  // What to tune is one choice: --op over a file with a network means the
  // operators, not both.
  if (!flags.ops.empty()) {
    spec.clear_network();
    spec.clear_ops();
    for (const std::string& op : flags.ops) spec.add_ops(op);
  }
  if (flags.network.has_value()) {
    spec.clear_ops();
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
  v1::MeasureOptions& measure = *spec.mutable_measure();
  Override(flags.number, [&](int32_t v) { measure.set_number(v); });
  Override(flags.repeat, [&](int32_t v) { measure.set_repeat(v); });
  Override(flags.min_repeat_ms, [&](double v) { measure.set_min_repeat_ms(v); });
  Override(flags.threads, [&](int32_t v) { measure.set_num_threads(v); });
  Override(flags.run_timeout_s, [&](double v) { measure.set_run_timeout_s(v); });
  Override(flags.build_timeout_s, [&](double v) { measure.set_build_timeout_s(v); });
  // An empty MeasureOptions and no MeasureOptions mean the same to the
  // server; sending none keeps the request (and --json output) minimal.
  if (spec.measure().ByteSizeLong() == 0) spec.clear_measure();

  if (spec.ops().empty() && spec.network().empty()) {
    return absl::InvalidArgumentError(
        "nothing to tune: give --op SPEC (repeatable) or --network NAME, or a --spec file with "
        "\"ops\" or \"network\"");
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
