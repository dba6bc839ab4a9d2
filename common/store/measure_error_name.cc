#include "common/store/measure_error_name.h"

namespace pruner {

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

}  // namespace pruner
