#include "worker/lease_measurement.h"

#include <algorithm>
#include <memory>
#include <optional>
#include <utility>

#include "absl/strings/str_cat.h"
#include "absl/time/clock.h"
#include "absl/time/time.h"
#include "common/base/status_macros.h"
#include "common/measure/local_measurer.h"
#include "common/schedule/step.h"
#include "proto/wire_convert.h"

namespace pruner {
namespace {

// What the lease asks for, checked; or the infrastructure error that stops
// the whole lease.
struct CheckedLease {
  std::shared_ptr<const ComputeDag> dag;
  DeviceProfile device;
  MeasureOptions options;
};

absl::StatusOr<CheckedLease> CheckLease(const v1::Lease& lease,
                                        const LeaseMeasurementContext& context) {
  PRUNER_ASSIGN_OR_RETURN(auto dag, WorkloadFromWire(lease.workload()));
  PRUNER_ASSIGN_OR_RETURN(auto device, DeviceFromWire(lease.device()));
  if (!context.device_key.empty() && device.name != context.device_key) {
    return absl::FailedPreconditionError(absl::StrCat("lease targets device '", device.name,
                                                      "' but this worker measures '",
                                                      context.device_key, "'"));
  }
  PRUNER_ASSIGN_OR_RETURN(auto options, MeasureOptionsFromWire(lease.options(), MeasureOptions{}));
  options.work_dir = context.work_dir;
  options.max_parallel_builds = std::max(1, context.build_jobs);
  options.build = context.cpu_build;
  return CheckedLease{std::make_shared<const ComputeDag>(std::move(dag)), std::move(device),
                      std::move(options)};
}

v1::CandidateResult ToCandidateResult(const v1::Candidate& candidate, const MeasureResult& result,
                                      const std::string& worker_name) {
  v1::CandidateResult out;
  out.set_measurement_id(candidate.measurement_id());
  *out.mutable_result() = MeasureResultToWire(result);
  out.mutable_result()->set_measured_by(worker_name);
  out.mutable_result()->set_measured_at_unix_ms(absl::ToUnixMillis(absl::Now()));
  return out;
}

}  // namespace

LeaseMeasurement MeasureLease(const v1::Lease& lease, const LeaseMeasurementContext& context,
                              const std::function<bool()>& keep_going) {
  LeaseMeasurement outcome;
  auto checked = CheckLease(lease, context);
  if (!checked.ok()) {
    outcome.infrastructure_error = absl::StrCat("worker ", context.worker_name,
                                                " cannot measure this lease: ",
                                                checked.status().ToString());
    return outcome;
  }

  // Replay failures are decided here, before anything is built.
  const int n = lease.candidates_size();
  std::vector<std::optional<MeasureResult>> decided(n);
  std::vector<int> to_measure;
  std::vector<MeasureInput> inputs;
  for (int i = 0; i < n; ++i) {
    auto steps = ParseSteps(lease.candidates(i).sentence());
    if (!steps.ok()) {
      MeasureResult invalid;
      invalid.error = MeasureError::kInvalidSchedule;
      invalid.phase = "replay";
      invalid.message = absl::StrCat("sentence does not parse: ", steps.status().message());
      decided[i] = std::move(invalid);
      continue;
    }
    to_measure.push_back(i);
    inputs.push_back(MeasureInput{checked->dag, *std::move(steps), checked->device});
  }

  const size_t chunk = static_cast<size_t>(std::max(1, checked->options.max_parallel_builds));
  for (size_t begin = 0; begin < inputs.size(); begin += chunk) {
    if (!keep_going()) {
      outcome.abandoned = true;
      break;
    }
    const size_t end = std::min(inputs.size(), begin + chunk);
    const std::vector<MeasureInput> part(inputs.begin() + static_cast<std::ptrdiff_t>(begin),
                                         inputs.begin() + static_cast<std::ptrdiff_t>(end));
    std::vector<MeasureResult> measured = MeasureBatch(part, checked->options);
    for (size_t k = 0; k < measured.size(); ++k) {
      decided[to_measure[begin + k]] = std::move(measured[k]);
    }
  }

  for (int i = 0; i < n; ++i) {
    if (decided[i].has_value()) {
      outcome.results.push_back(ToCandidateResult(lease.candidates(i), *decided[i],
                                                  context.worker_name));
    }
  }
  return outcome;
}

}  // namespace pruner
