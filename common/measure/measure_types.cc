#include "common/measure/measure_types.h"

#include "absl/strings/str_cat.h"
#include "common/ir/absl_compat.h"

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

std::string MeasureResult::Describe() const {
  if (ok()) {
    return absl::StrCat("ok: mean ", mean_s * 1e6, " us over ", repeat_costs_s.size(),
                        " repeats, build ", build_s, " s, run ", run_s, " s");
  }
  return absl::StrCat(ToAbsl(MeasureErrorName(error)), " [", phase, "]: ", message);
}

}  // namespace pruner
