// A tuning job's spec read from JSON: the file given to `pruner submit
// --spec`. The JSON is the proto3 mapping of v1::JobSpec (field names in
// lowerCamelCase or as written in the .proto, int64 as numbers or strings).
//
// The input is whatever a user (or a fuzzer) hands us, so the parser never
// crashes or aborts: every problem is an InvalidArgument saying what is
// wrong. An unknown field is an error naming it rather than being skipped: a
// misspelled "trialBudget" would otherwise silently tune with the default.
#ifndef PRUNER_CLIENT_JOB_SPEC_JSON_H_
#define PRUNER_CLIENT_JOB_SPEC_JSON_H_

#include <string_view>

#include "absl/status/statusor.h"
#include "pruner/v1/tuning_service.pb.h"

namespace pruner {

// Only the syntax and the field types are checked here; whether the spec
// makes sense (one of ops/network, a known target) is the server's call.
absl::StatusOr<v1::JobSpec> ParseJobSpecJson(std::string_view json);

}  // namespace pruner

#endif  // PRUNER_CLIENT_JOB_SPEC_JSON_H_
