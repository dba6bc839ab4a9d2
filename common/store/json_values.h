// The small JSON values the store keeps in TEXT columns: arrays of doubles
// (repeat costs, per-task best costs) and caller-supplied JSON documents
// (job options, time breakdowns) that must at least parse.
#ifndef PRUNER_COMMON_STORE_JSON_VALUES_H_
#define PRUNER_COMMON_STORE_JSON_VALUES_H_

#include <string>
#include <string_view>
#include <vector>

#include "absl/status/status.h"
#include "absl/status/statusor.h"

namespace pruner::store_internal {

// "[0.00123,0.0012300000000000001]": nlohmann_json prints the shortest text
// that parses back to the same double, so the round trip is bit-exact.
// Every value must be finite (JSON has no NaN or infinity); see CheckFinite.
std::string DoublesToJson(const std::vector<double>& values);
// InvalidArgument (DataLoss is the caller's call) when `text` is not a JSON
// array of numbers.
absl::StatusOr<std::vector<double>> DoublesFromJson(std::string_view text);

// InvalidArgument "<where>: <what> is <value>, not a finite number".
absl::Status CheckFinite(double value, std::string_view where, std::string_view what);
absl::Status CheckAllFinite(const std::vector<double>& values, std::string_view where,
                            std::string_view what);

// Empty, or a JSON document; InvalidArgument naming `where` and `what` with
// the parser's complaint otherwise.
absl::Status CheckJsonOrEmpty(std::string_view text, std::string_view where,
                              std::string_view what);

}  // namespace pruner::store_internal

#endif  // PRUNER_COMMON_STORE_JSON_VALUES_H_
