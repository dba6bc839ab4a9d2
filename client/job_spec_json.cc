#include "client/job_spec_json.h"

#include <string>

#include "absl/strings/ascii.h"
#include "absl/strings/str_cat.h"
#include "google/protobuf/util/json_util.h"

namespace pruner {

absl::StatusOr<v1::JobSpec> ParseJobSpecJson(std::string_view json) {
  if (absl::StripAsciiWhitespace(absl::string_view(json.data(), json.size())).empty()) {
    return absl::InvalidArgumentError("job spec: the JSON is empty (expected an object)");
  }
  google::protobuf::util::JsonParseOptions options;
  options.ignore_unknown_fields = false;  // a typo must not become a default
  v1::JobSpec spec;
  // The parser reports unknown fields as "(parent) name: Cannot find field."
  // and type errors with the field's path, which is what the user needs.
  auto status = google::protobuf::util::JsonStringToMessage(
      google::protobuf::StringPiece(json.data(), json.size()), &spec, options);
  if (!status.ok()) {
    return absl::InvalidArgumentError(
        absl::StrCat("job spec: ", std::string(status.message().data(), status.message().size())));
  }
  return spec;
}

}  // namespace pruner
