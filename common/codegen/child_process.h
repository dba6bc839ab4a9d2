// Runs a child process (the system compiler, ptxas) with a wall-clock limit: the
// child gets its own process group, so that on timeout the whole group (g++
// and the cc1plus/as/ld it spawned) is killed, not just the driver.
#ifndef PRUNER_COMMON_CODEGEN_CHILD_PROCESS_H_
#define PRUNER_COMMON_CODEGEN_CHILD_PROCESS_H_

#include <string>
#include <vector>

#include "absl/status/statusor.h"
#include "absl/time/time.h"

namespace pruner {

struct ProcessResult {
  int exit_code = -1;   // valid when !timed_out and signal == 0
  int signal = 0;       // the signal that ended it, if any
  bool timed_out = false;
  std::string output;   // stdout and stderr together (up to a cap)
  absl::Duration elapsed;
};

// Spawns argv[0] (looked up in PATH) with stdin from /dev/null and
// stdout+stderr captured through `log_path`. Fails only when the process
// could not be started; a non-zero exit or a timeout is a normal result.
absl::StatusOr<ProcessResult> RunProcess(const std::vector<std::string>& argv,
                                         const std::string& log_path, absl::Duration timeout);

}  // namespace pruner

#endif  // PRUNER_COMMON_CODEGEN_CHILD_PROCESS_H_
