// The reply a sandbox child sends its parent after running a kernel: an
// outcome with its error class and phase, and the raw repeat times. A small
// binary encoding (no protobuf needed for one pipe between two copies of the
// same binary).
#ifndef PRUNER_COMMON_MEASURE_RUN_REPLY_H_
#define PRUNER_COMMON_MEASURE_RUN_REPLY_H_

#include <string>
#include <vector>

#include "absl/status/statusor.h"
#include "common/measure/measure_types.h"
#include "common/measure/sandbox.h"

namespace pruner {

struct RunOutcome {
  MeasureError error = MeasureError::kNone;
  std::string phase;  // "run" or "check" on error
  std::string message;
  std::vector<double> repeat_costs_s;
  double wall_s = 0;  // filled by the parent: the sandbox's wall time

  static RunOutcome Failure(MeasureError error, std::string phase, std::string message) {
    RunOutcome o;
    o.error = error;
    o.phase = std::move(phase);
    o.message = std::move(message);
    return o;
  }
};

std::string EncodeRunOutcome(const RunOutcome& outcome);
// InvalidArgument when the bytes are not a complete encoding.
absl::StatusOr<RunOutcome> DecodeRunOutcome(const std::string& bytes);

// The outcome a sandboxed run ended with: the child's decoded reply, or
// kRunTimeout / kRunError (phase "run") when the sandbox reports a timeout,
// a crash or an undecodable reply. wall_s is the sandbox's.
RunOutcome OutcomeFromSandboxReply(const SandboxReply& reply);

}  // namespace pruner

#endif  // PRUNER_COMMON_MEASURE_RUN_REPLY_H_
