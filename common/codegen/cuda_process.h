// Runs a toolkit program (ptxas) as a child process with a deadline and
// captures what it prints. posix_spawn, not system(): no shell, arguments
// passed as they are, and the child is killed when it overruns.
#ifndef PRUNER_COMMON_CODEGEN_CUDA_PROCESS_H_
#define PRUNER_COMMON_CODEGEN_CUDA_PROCESS_H_

#include <string>
#include <vector>

#include "absl/status/statusor.h"

namespace pruner {

struct ProcessResult {
  int exit_code = -1;  // -1 when killed by a signal
  std::string output;  // stdout and stderr, interleaved
};

// argv[0] is the executable's path. DeadlineExceeded when it runs longer
// than timeout_s (the child is killed); Internal when it cannot start.
absl::StatusOr<ProcessResult> RunProcess(const std::vector<std::string>& argv, double timeout_s);

}  // namespace pruner

#endif  // PRUNER_COMMON_CODEGEN_CUDA_PROCESS_H_
