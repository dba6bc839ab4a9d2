#include "common/tune/tuning_options.h"

#include <algorithm>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "common/base/status_macros.h"
#include "common/tune/strategy_spec.h"
#include "nlohmann/json.hpp"

namespace pruner {
namespace {

using nlohmann::json;

// Reads j[key] into *out when present; type errors become InvalidArgument.
template <typename T>
absl::Status Read(const json& j, const char* key, T* out) {
  auto it = j.find(key);
  if (it == j.end()) return absl::OkStatus();
  try {
    *out = it->get<T>();
  } catch (const json::exception& e) {
    return absl::InvalidArgumentError(absl::StrCat("tuning options: key \"", key, "\": ", e.what()));
  }
  return absl::OkStatus();
}

}  // namespace

absl::Status ValidateTuningOptions(const TuningOptions& o) {
  PRUNER_ASSIGN_OR_RETURN(StrategySpec strategy, ParseStrategy(o.strategy));
  if (strategy.NeedsPretrainedModel() && o.pretrained_device.empty()) {
    return absl::InvalidArgumentError(absl::StrCat(
        "strategy ", o.strategy, " starts from a pretrained PaCM: name the device it was "
        "pretrained on (pretrained_device; `pruner pretrain` makes the checkpoint)"));
  }
  if (strategy.NeedsOtherDevice() && o.pretrained_device.empty()) {
    return absl::InvalidArgumentError(absl::StrCat(
        "strategy ", o.strategy, " trains a second head on another device's records: name "
        "that device (pretrained_device)"));
  }
  if (o.scheduler != "gradient" && o.scheduler != "round-robin") {
    return absl::InvalidArgumentError(absl::StrCat(
        "unknown task scheduler \"", o.scheduler, "\"; known: gradient, round-robin"));
  }
  if (o.trial_budget <= 0) {
    return absl::InvalidArgumentError(absl::StrCat("trial budget must be positive, got ", o.trial_budget));
  }
  if (o.measures_per_round <= 0) {
    return absl::InvalidArgumentError(
        absl::StrCat("measures per round must be positive, got ", o.measures_per_round));
  }
  if (o.early_stopping < 0 || o.per_task_early_stopping < 0) {
    return absl::InvalidArgumentError("early stopping must be >= 0 (0 turns it off)");
  }
  if (o.population < 1) {
    return absl::InvalidArgumentError(absl::StrCat("population must be positive, got ", o.population));
  }
  if (o.eps_greedy < 0 || o.eps_greedy > 1) {
    return absl::InvalidArgumentError(absl::StrCat("eps_greedy must be in [0, 1], got ", o.eps_greedy));
  }
  if (!(o.verify_tolerance >= 0 && o.verify_tolerance <= 10)) {
    return absl::InvalidArgumentError(
        absl::StrCat("verify tolerance must be in [0, 10], got ", o.verify_tolerance));
  }
  if (o.measure.repeat < 1 || o.measure.number < 1) {
    return absl::InvalidArgumentError("measure repeat and number must be >= 1");
  }
  if (o.measure.num_threads < 0) {
    return absl::InvalidArgumentError("measure num_threads must be >= 0 (0: all hardware threads)");
  }
  if (o.measure.run_timeout_s <= 0 || o.measure.build_timeout_s <= 0) {
    return absl::InvalidArgumentError("measure timeouts must be positive");
  }
  if (!(o.measure.hopeless_factor == 0 ||
        (o.measure.hopeless_factor >= 2 && o.measure.hopeless_factor <= 1e6))) {
    return absl::InvalidArgumentError(absl::StrCat(
        "measure hopeless_factor must be 0 (off) or in [2, 1e6], got ", o.measure.hopeless_factor));
  }
  return absl::OkStatus();
}

std::string TuningOptionsToJson(const TuningOptions& o) {
  const MeasureOptions& m = o.measure;
  json j = {
      {"name", o.name},
      {"strategy", o.strategy},
      {"scheduler", o.scheduler},
      {"trial_budget", o.trial_budget},
      {"measures_per_round", o.measures_per_round},
      {"early_stopping", o.early_stopping},
      {"per_task_early_stopping", o.per_task_early_stopping},
      {"seed", o.seed},
      {"population", o.population},
      {"num_iters", o.num_iters},
      {"eps_greedy", o.eps_greedy},
      {"seed_schedules", o.seed_schedules},
      {"num_warmup_samples", o.num_warmup_samples},
      {"overlap_search", o.overlap_search},
      {"pretrained_device", o.pretrained_device},
      {"verify_bests", o.verify_bests},
      {"verify_tolerance", o.verify_tolerance},
      {"measure",
       {{"number", m.number},
        {"repeat", m.repeat},
        {"min_repeat_ms", m.min_repeat_ms},
        {"warmup", m.warmup},
        {"hopeless_factor", m.hopeless_factor},
        {"flush_cache", m.flush_cache},
        {"build_timeout_s", m.build_timeout_s},
        {"run_timeout_s", m.run_timeout_s},
        {"max_parallel_builds", m.max_parallel_builds},
        {"num_threads", m.num_threads},
        {"rtol", m.rtol},
        {"atol", m.atol},
        {"seed", m.seed}}},
  };
  return j.dump();
}

absl::StatusOr<TuningOptions> TuningOptionsFromJson(const std::string& text) {
  json j = json::parse(text, nullptr, /*allow_exceptions=*/false);
  if (j.is_discarded() || !j.is_object()) {
    return absl::InvalidArgumentError("tuning options: not a JSON object");
  }
  static const char* kKeys[] = {"name", "strategy", "scheduler", "trial_budget",
                                "measures_per_round", "early_stopping",
                                "per_task_early_stopping", "seed", "population", "num_iters",
                                "eps_greedy", "seed_schedules", "num_warmup_samples",
                                "overlap_search",
                                "pretrained_device", "verify_bests", "verify_tolerance",
                                "measure"};
  for (const auto& [key, value] : j.items()) {
    if (std::find(std::begin(kKeys), std::end(kKeys), key) == std::end(kKeys)) {
      return absl::InvalidArgumentError(absl::StrCat("tuning options: unknown key \"", key, "\""));
    }
  }
  TuningOptions o;
  for (absl::Status s :
       {Read(j, "name", &o.name), Read(j, "strategy", &o.strategy),
        Read(j, "scheduler", &o.scheduler), Read(j, "trial_budget", &o.trial_budget),
        Read(j, "measures_per_round", &o.measures_per_round),
        Read(j, "early_stopping", &o.early_stopping),
        Read(j, "per_task_early_stopping", &o.per_task_early_stopping), Read(j, "seed", &o.seed),
        Read(j, "population", &o.population), Read(j, "num_iters", &o.num_iters),
        Read(j, "eps_greedy", &o.eps_greedy), Read(j, "seed_schedules", &o.seed_schedules),
        Read(j, "num_warmup_samples", &o.num_warmup_samples),
        Read(j, "overlap_search", &o.overlap_search),
        Read(j, "pretrained_device", &o.pretrained_device),
        Read(j, "verify_bests", &o.verify_bests),
        Read(j, "verify_tolerance", &o.verify_tolerance)}) {
    if (!s.ok()) return s;
  }
  if (auto it = j.find("measure"); it != j.end()) {
    MeasureOptions& m = o.measure;
    for (absl::Status s :
         {Read(*it, "number", &m.number), Read(*it, "repeat", &m.repeat),
          Read(*it, "min_repeat_ms", &m.min_repeat_ms), Read(*it, "warmup", &m.warmup),
          Read(*it, "hopeless_factor", &m.hopeless_factor),
          Read(*it, "flush_cache", &m.flush_cache),
          Read(*it, "build_timeout_s", &m.build_timeout_s),
          Read(*it, "run_timeout_s", &m.run_timeout_s),
          Read(*it, "max_parallel_builds", &m.max_parallel_builds),
          Read(*it, "num_threads", &m.num_threads), Read(*it, "rtol", &m.rtol),
          Read(*it, "atol", &m.atol), Read(*it, "seed", &m.seed)}) {
      if (!s.ok()) return s;
    }
  }
  PRUNER_RETURN_IF_ERROR(ValidateTuningOptions(o));
  return o;
}

}  // namespace pruner
