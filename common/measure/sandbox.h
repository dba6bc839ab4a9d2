// Runs a function in a forked child process under a wall-clock deadline, so
// that a kernel that crashes, spins forever or scribbles over memory takes
// down only the child.
//
// Why fork() (and not fork+exec of a helper binary): the child inherits the
// caller's memory, so the loaded program, its inputs and the reference
// outputs need no serialization; only a small reply travels back through a
// pipe. The known caveat of forking a multi-threaded parent: only the forking
// thread exists in the child, so a lock another parent thread held at the
// moment of fork stays locked there. glibc's malloc and stdio are reset by
// their fork handlers; the measurer forks only after its build threads have
// joined. Runtimes with thread pools are the real hazard: libgomp's pool
// does not survive fork, so a parent that has already run an OpenMP
// parallel region would make the child's first parallel region hang (it
// then ends as a run timeout, never a hang of the caller). The measurer never
// runs kernels in the parent for that reason; callers should not either.
// Likewise CUDA: a parent that initialized the driver cannot use it in a
// child, so the GPU path touches the driver only inside sandbox children.
#ifndef PRUNER_COMMON_MEASURE_SANDBOX_H_
#define PRUNER_COMMON_MEASURE_SANDBOX_H_

#include <functional>
#include <string>
#include <vector>

#include "absl/status/statusor.h"

namespace pruner {

struct SandboxReply {
  // The body's return value, or:
  // - DeadlineExceeded "no result after N s; child killed" when the
  //   deadline passed (the child's whole process group was SIGKILLed);
  // - Internal "killed by signal SIGSEGV (Segmentation fault)" when a
  //   signal ended the child, "child exited with status N without a reply"
  //   when it exited without replying, "short reply"/"garbled reply" when
  //   the reply was cut or inconsistent;
  // - FailedPrecondition when the pipe or the child could not be created.
  absl::StatusOr<std::string> payload;
  double wall_s = 0;  // fork to reap
};

// Forks; the child (in its own process group, with default handlers for the
// fatal signals and no core dumps) runs `body` and writes its result to a
// pipe, then _exit(0)s without running atexit handlers or destructors. The
// parent reads the reply with poll() until `deadline_s` passes.
SandboxReply RunInSandbox(const std::function<std::string()>& body, double deadline_s);

// A child that sends a reply per finished item (a batch of runs that share
// one expensive set-up, such as a CUDA context): `body` calls emit once per
// item. Each reply must arrive within `deadline_s` of the previous one (of
// the fork, for the first).
using SandboxEmit = std::function<void(const std::string&)>;
struct SandboxStream {
  std::vector<std::string> replies;  // complete replies, in order
  std::vector<double> reply_wall_s;  // seconds from the previous reply (or the fork) to each
  // OK when the child exited with status 0 after its last reply; otherwise
  // what RunInSandbox would report (DeadlineExceeded, Internal for a
  // signal, an exit status or a reply cut short, FailedPrecondition).
  absl::Status end;
  double tail_wall_s = 0;  // from the last reply (or the fork) to the end
};
SandboxStream RunInSandboxStreaming(const std::function<void(const SandboxEmit&)>& body,
                                    double deadline_s);

// "SIGSEGV (Segmentation fault)".
std::string SignalDescription(int signal);

}  // namespace pruner

#endif  // PRUNER_COMMON_MEASURE_SANDBOX_H_
