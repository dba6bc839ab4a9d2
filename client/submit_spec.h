// What `pruner submit` sends: a v1::JobSpec from the --spec file, if any,
// with the command-line flags laid over it. Each flag is optional so that an
// absent flag keeps the file's value and a given one replaces it.
#ifndef PRUNER_CLIENT_SUBMIT_SPEC_H_
#define PRUNER_CLIENT_SUBMIT_SPEC_H_

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "common/graph/onnx_import.h"

#include "absl/status/statusor.h"
#include "pruner/v1/tuning_service.pb.h"

namespace pruner {

struct SubmitFlags {
  std::vector<std::string> ops;  // --op, repeatable; replaces the file's ops *and* network
  std::optional<std::string> network;  // replaces the file's network *and* ops
  std::optional<std::string> model;    // an ONNX file: its tasks replace ops and network
  std::vector<std::string> shapes;     // --shape NAME=VALUE for the model
  std::string layout = kDefaultModelLayout;  // --layout of the model's convolutions
  std::optional<std::string> target;
  std::optional<std::string> name;
  std::optional<std::string> strategy;
  std::optional<std::string> pretrained_device;
  std::optional<std::string> scheduler;
  std::optional<int64_t> trials;
  std::optional<int32_t> per_round;
  std::optional<uint64_t> seed;
  std::optional<int64_t> early_stopping;
  bool no_verify_bests = false;  // turns off the second measurement of bests
  bool no_seeds = false;         // turns off the seed schedules
  std::optional<double> verify_tolerance;
  // MeasureOptions; unset here and in the file means the server's default.
  std::optional<int32_t> number;
  std::optional<int32_t> repeat;
  std::optional<double> min_repeat_ms;
  std::optional<double> hopeless_factor;  // 0: off
  std::optional<int32_t> threads;
  std::optional<double> run_timeout_s;
  std::optional<double> build_timeout_s;

  std::string spec_file;  // JSON of a JobSpec (see client/job_spec_json.h)
  bool watch = false;     // follow the job after submitting it
};

// The tasks of an ONNX model as a job spec carries them (no weights).
absl::StatusOr<v1::ModelSpec> ModelSpecFromOnnx(const std::string& path,
                                                const std::vector<std::string>& shapes,
                                                const std::string& layout);

// `spec_json` is the --spec file's text ("" when there is none). The result
// names what to tune (exactly one of ops or network) and a target; anything
// else is left to the server's defaults and checks.
absl::StatusOr<v1::JobSpec> BuildJobSpec(const SubmitFlags& flags, std::string_view spec_json);

}  // namespace pruner

#endif  // PRUNER_CLIENT_SUBMIT_SPEC_H_
