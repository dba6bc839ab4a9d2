#include "common/store/json_values.h"

#include <cmath>

#include <nlohmann/json.hpp>

#include "absl/strings/str_cat.h"
#include "common/base/absl_compat.h"

namespace pruner::store_internal {

using nlohmann::json;

std::string DoublesToJson(const std::vector<double>& values) { return json(values).dump(); }

absl::StatusOr<std::vector<double>> DoublesFromJson(std::string_view text) {
  const json parsed = json::parse(text, /*cb=*/nullptr, /*allow_exceptions=*/false);
  if (parsed.is_discarded() || !parsed.is_array()) {
    return absl::InvalidArgumentError(
        absl::StrCat("expected a JSON array of numbers, got '", ToAbsl(text.substr(0, 80)), "'"));
  }
  std::vector<double> values;
  values.reserve(parsed.size());
  for (const json& v : parsed) {
    if (!v.is_number()) {
      return absl::InvalidArgumentError(
          absl::StrCat("expected a JSON array of numbers, found element ", v.dump()));
    }
    values.push_back(v.get<double>());
  }
  return values;
}

absl::Status CheckFinite(double value, std::string_view where, std::string_view what) {
  if (std::isfinite(value)) return absl::OkStatus();
  return absl::InvalidArgumentError(absl::StrCat(ToAbsl(where), ": ", ToAbsl(what), " is ", value,
                                                 ", not a finite number"));
}

absl::Status CheckAllFinite(const std::vector<double>& values, std::string_view where,
                            std::string_view what) {
  for (size_t i = 0; i < values.size(); ++i) {
    if (!std::isfinite(values[i])) {
      return absl::InvalidArgumentError(absl::StrCat(ToAbsl(where), ": ", ToAbsl(what), "[", i,
                                                     "] is ", values[i], ", not a finite number"));
    }
  }
  return absl::OkStatus();
}

absl::Status CheckJsonOrEmpty(std::string_view text, std::string_view where,
                              std::string_view what) {
  if (text.empty()) return absl::OkStatus();
  try {
    const json parsed = json::parse(text);  // only the parser's verdict matters
    (void)parsed;
  } catch (const json::exception& e) {  // parse_error, or out_of_range for 1e99999
    return absl::InvalidArgumentError(
        absl::StrCat(ToAbsl(where), ": ", ToAbsl(what), " is not valid JSON: ", e.what()));
  }
  return absl::OkStatus();
}

}  // namespace pruner::store_internal
