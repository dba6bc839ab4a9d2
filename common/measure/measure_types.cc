#include "common/measure/measure_types.h"

#include <algorithm>
#include <cmath>

#include "absl/strings/str_cat.h"
#include "common/base/absl_compat.h"

namespace pruner {

std::string_view MeasureErrorName(MeasureError error) {
  switch (error) {
    case MeasureError::kNone: return "none";
    case MeasureError::kInvalidSchedule: return "invalid schedule";
    case MeasureError::kBuildError: return "build error";
    case MeasureError::kBuildTimeout: return "build timeout";
    case MeasureError::kRunError: return "run error";
    case MeasureError::kRunTimeout: return "run timeout";
    case MeasureError::kWrongResult: return "wrong result";
    case MeasureError::kDeviceError: return "device error";
  }
  return "unknown";
}

std::optional<MeasureError> ParseMeasureErrorName(std::string_view name) {
  // Walks the enum through MeasureErrorName itself, so a class appended to
  // MeasureError parses as soon as it has a name; "unknown" marks the end.
  for (int i = 0;; ++i) {
    const auto error = static_cast<MeasureError>(i);
    const std::string_view candidate = MeasureErrorName(error);
    if (candidate == "unknown") return std::nullopt;
    if (candidate == name) return error;
  }
}

std::string MeasureResult::Describe() const {
  if (ok()) {
    return absl::StrCat("ok: mean ", mean_s * 1e6, " us over ", repeat_costs_s.size(),
                        " repeats, build ", build_s, " s, run ", run_s, " s");
  }
  return absl::StrCat(ToAbsl(MeasureErrorName(error)), " [", phase, "]: ", message);
}

absl::Status CheckKernelOutput(const Tensor& got, const Tensor& want,
                               const MeasureOptions& options) {
  double sum_squares = 0;
  for (float v : want.data) sum_squares += double{v} * v;
  const double rms = want.data.empty() ? 0 : std::sqrt(sum_squares / want.data.size());
  return CheckAllClose(got, want, options.rtol, options.atol * std::max(1.0, rms));
}

}  // namespace pruner
