// The inverse of MeasureErrorName (common/measure/measure_types.h): records
// store the error class by name, so that the database reads well and does not
// depend on the enum's numbering. It belongs next to MeasureErrorName; it
// lives here until the measure layer takes it.
#ifndef PRUNER_COMMON_STORE_MEASURE_ERROR_NAME_H_
#define PRUNER_COMMON_STORE_MEASURE_ERROR_NAME_H_

#include <optional>
#include <string_view>

#include "common/measure/measure_types.h"

namespace pruner {

// "none", "run error", ... -> the enum; std::nullopt for any other text.
std::optional<MeasureError> ParseMeasureErrorName(std::string_view name);

}  // namespace pruner

#endif  // PRUNER_COMMON_STORE_MEASURE_ERROR_NAME_H_
