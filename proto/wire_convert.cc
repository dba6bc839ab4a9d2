#include "proto/wire_convert.h"

#include <cmath>

#include "absl/strings/str_cat.h"
#include "common/device/device_profile_json.h"

namespace pruner {
namespace {

bool FiniteNonNegative(double x) { return std::isfinite(x) && x >= 0; }

}  // namespace

v1::Workload WorkloadToWire(const ComputeDag& dag, const std::string& name) {
  v1::Workload w;
  w.set_key(dag.WorkloadKey());
  w.set_name(name);
  std::string display = dag.ToString();
  auto parsed = ComputeDag::ParseCanonical(display);
  w.set_dag_text(parsed.ok() && parsed->WorkloadKey() == w.key() ? std::move(display)
                                                                  : dag.CanonicalText());
  return w;
}

absl::StatusOr<ComputeDag> WorkloadFromWire(const v1::Workload& workload) {
  if (workload.dag_text().empty()) {
    return absl::InvalidArgumentError("workload: empty dag_text");
  }
  auto dag = ComputeDag::ParseCanonical(workload.dag_text());
  if (!dag.ok()) {
    return absl::InvalidArgumentError(
        absl::StrCat("workload ", workload.key(), ": dag_text does not parse: ",
                     dag.status().message()));
  }
  if (dag->WorkloadKey() != workload.key()) {
    return absl::DataLossError(absl::StrCat("workload: dag_text hashes to ", dag->WorkloadKey(),
                                            ", not to the key sent (", workload.key(), ")"));
  }
  return dag;
}

v1::Device DeviceToWire(const DeviceProfile& profile) {
  v1::Device d;
  d.set_key(profile.name);
  d.set_kind(profile.IsGpu() ? v1::DEVICE_KIND_GPU : v1::DEVICE_KIND_CPU);
  d.set_description(profile.description);
  d.set_profile_json(DeviceProfileToJsonString(profile));
  d.set_num_cores(profile.num_cores);
  d.set_vector_isa(profile.vector_isa);
  d.set_sm_count(profile.sm_count);
  d.set_compute_capability_major(profile.compute_capability_major);
  d.set_compute_capability_minor(profile.compute_capability_minor);
  return d;
}

absl::StatusOr<DeviceProfile> DeviceFromWire(const v1::Device& device) {
  if (device.profile_json().empty()) {
    return absl::InvalidArgumentError("device: empty profile_json");
  }
  auto profile = DeviceProfileFromJsonString(device.profile_json());
  if (!profile.ok()) {
    return absl::InvalidArgumentError(
        absl::StrCat("device: profile_json: ", profile.status().message()));
  }
  if (profile->name.empty()) return absl::InvalidArgumentError("device: profile has no name");
  if (!device.key().empty() && device.key() != profile->name) {
    return absl::InvalidArgumentError(absl::StrCat("device: key '", device.key(),
                                                   "' differs from the profile's name '",
                                                   profile->name, "'"));
  }
  return profile;
}

v1::MeasureResult MeasureResultToWire(const MeasureResult& r) {
  v1::MeasureResult w;
  w.set_error(static_cast<v1::MeasureError>(static_cast<int>(r.error)));
  w.set_phase(r.phase);
  w.set_message(r.message);
  for (double c : r.repeat_costs_s) w.add_repeat_costs_s(c);
  w.set_mean_s(r.mean_s);
  w.set_build_s(r.build_s);
  w.set_run_s(r.run_s);
  w.set_binary_bytes(r.binary_bytes);
  if (r.host_busy_cores >= 0) w.set_host_busy_cores(r.host_busy_cores);
  return w;
}

absl::StatusOr<MeasureResult> MeasureResultFromWire(const v1::MeasureResult& w) {
  if (!v1::MeasureError_IsValid(w.error())) {
    return absl::InvalidArgumentError(absl::StrCat("result: unknown error class ", w.error()));
  }
  MeasureResult r;
  r.error = static_cast<MeasureError>(static_cast<int>(w.error()));
  r.phase = w.phase();
  r.message = w.message();
  for (double c : w.repeat_costs_s()) {
    if (!std::isfinite(c) || c <= 0) {
      return absl::InvalidArgumentError(absl::StrCat("result: repeat cost ", c, " is not > 0"));
    }
    r.repeat_costs_s.push_back(c);
  }
  if (!FiniteNonNegative(w.mean_s()) || !FiniteNonNegative(w.build_s()) ||
      !FiniteNonNegative(w.run_s())) {
    return absl::InvalidArgumentError("result: negative or non-finite time");
  }
  if (r.ok() && (r.repeat_costs_s.empty() || w.mean_s() <= 0)) {
    return absl::InvalidArgumentError("result: ok without repeat times");
  }
  r.mean_s = w.mean_s();
  r.build_s = w.build_s();
  r.run_s = w.run_s();
  r.binary_bytes = w.binary_bytes();
  if (w.has_host_busy_cores()) {
    if (!FiniteNonNegative(w.host_busy_cores())) {
      return absl::InvalidArgumentError("result: negative or non-finite host_busy_cores");
    }
    r.host_busy_cores = w.host_busy_cores();
  }
  return r;
}

absl::StatusOr<MeasureOptions> MeasureOptionsFromWire(const v1::MeasureOptions& w,
                                                      const MeasureOptions& defaults) {
  MeasureOptions o = defaults;
  if (w.number() < 0 || w.repeat() < 0 || w.warmup() < 0 || w.num_threads() < 0) {
    return absl::InvalidArgumentError("measure options: counts must be >= 0");
  }
  if (!FiniteNonNegative(w.min_repeat_ms()) || !FiniteNonNegative(w.build_timeout_s()) ||
      !FiniteNonNegative(w.run_timeout_s()) || !FiniteNonNegative(w.rtol()) ||
      !FiniteNonNegative(w.atol())) {
    return absl::InvalidArgumentError("measure options: times and tolerances must be finite and >= 0");
  }
  if (w.number() > 1000000 || w.repeat() > 1000 || w.warmup() > 1000 || w.num_threads() > 4096 ||
      w.build_timeout_s() > 3600 || w.run_timeout_s() > 3600 || w.min_repeat_ms() > 60000) {
    return absl::InvalidArgumentError(
        "measure options: out of range (number <= 1e6, repeat <= 1000, warmup <= 1000, "
        "threads <= 4096, timeouts <= 3600 s, min_repeat_ms <= 60000)");
  }
  if (w.number() > 0) o.number = w.number();
  if (w.repeat() > 0) o.repeat = w.repeat();
  if (w.min_repeat_ms() > 0) o.min_repeat_ms = w.min_repeat_ms();
  if (w.warmup() > 0) o.warmup = w.warmup();
  if (w.flush_cache()) o.flush_cache = true;
  if (w.num_threads() > 0) o.num_threads = w.num_threads();
  if (w.build_timeout_s() > 0) o.build_timeout_s = w.build_timeout_s();
  if (w.run_timeout_s() > 0) o.run_timeout_s = w.run_timeout_s();
  if (w.rtol() > 0) o.rtol = w.rtol();
  if (w.atol() > 0) o.atol = w.atol();
  if (w.seed() > 0) o.seed = w.seed();
  if (std::isnan(w.hopeless_factor()) || w.hopeless_factor() > 1e6 ||
      (w.hopeless_factor() > 0 && w.hopeless_factor() < 2)) {
    return absl::InvalidArgumentError(
        "measure options: hopeless_factor must be negative (off), 0 (default) or in [2, 1e6]");
  }
  if (w.hopeless_factor() > 0) o.hopeless_factor = w.hopeless_factor();
  if (w.hopeless_factor() < 0) o.hopeless_factor = 0;
  return o;
}

double HopelessFactorToWire(double factor) { return factor > 0 ? factor : -1; }

v1::MeasureOptions MeasureOptionsToWire(const MeasureOptions& o) {
  v1::MeasureOptions w;
  w.set_number(o.number);
  w.set_repeat(o.repeat);
  w.set_min_repeat_ms(o.min_repeat_ms);
  w.set_warmup(o.warmup);
  w.set_flush_cache(o.flush_cache);
  w.set_num_threads(o.num_threads);
  w.set_build_timeout_s(o.build_timeout_s);
  w.set_run_timeout_s(o.run_timeout_s);
  w.set_rtol(o.rtol);
  w.set_atol(o.atol);
  w.set_seed(o.seed);
  w.set_hopeless_factor(HopelessFactorToWire(o.hopeless_factor));
  return w;
}

}  // namespace pruner
