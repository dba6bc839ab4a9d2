#include "common/measure/sandbox.h"

#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cerrno>
#include <chrono>
#include <cstdint>
#include <cstring>
#include <mutex>
#include <thread>

#include "absl/status/status.h"
#include "absl/strings/str_cat.h"

namespace pruner {
namespace {

using Clock = std::chrono::steady_clock;

double SecondsSince(Clock::time_point start) {
  return std::chrono::duration<double>(Clock::now() - start).count();
}

// Writes everything or gives up (the parent then sees a short reply).
void WriteAll(int fd, const char* data, size_t size) {
  while (size > 0) {
    const ssize_t n = write(fd, data, size);
    if (n < 0 && errno == EINTR) continue;
    if (n <= 0) return;
    data += n;
    size -= static_cast<size_t>(n);
  }
}

[[noreturn]] void RunChild(int write_fd, const std::function<std::string()>& body) {
  setpgid(0, 0);
  // The parent may have installed handlers (a failure-signal reporter, a
  // test framework's); a faulting kernel must end the child with the signal
  // so that the parent can name it.
  for (int sig : {SIGSEGV, SIGBUS, SIGFPE, SIGILL, SIGABRT, SIGPIPE}) signal(sig, SIG_DFL);
  // A core file per crashing candidate would be slow and fill the disk.
  struct rlimit no_core = {0, 0};
  setrlimit(RLIMIT_CORE, &no_core);

  const std::string reply = body();
  // Length prefix: the parent tells a complete reply from one cut short by
  // a crash in the middle of writing.
  const uint64_t size = reply.size();
  WriteAll(write_fd, reinterpret_cast<const char*>(&size), sizeof(size));
  WriteAll(write_fd, reply.data(), reply.size());
  close(write_fd);
  _exit(0);
}

// Waits until the child has exited or `deadline` passes; false on timeout.
// WNOWAIT leaves the child a zombie, so its pid (and process group id)
// cannot be reused before the caller kills the group and reaps it.
bool WaitForExit(pid_t pid, Clock::time_point deadline) {
  while (true) {
    siginfo_t info = {};
    const int r = waitid(P_PID, static_cast<id_t>(pid), &info, WEXITED | WNOHANG | WNOWAIT);
    if (r == 0 && info.si_pid == pid) return true;
    if (r < 0 && errno != EINTR) return true;  // nothing to wait for
    if (Clock::now() >= deadline) return false;
    std::this_thread::sleep_for(std::chrono::milliseconds(1));
  }
}

// Kills whatever the kernel may have left in the child's group (a kernel
// that forked), then reaps the child.
int KillGroupAndReap(pid_t pid) {
  kill(-pid, SIGKILL);
  int status = 0;
  while (waitpid(pid, &status, 0) < 0 && errno == EINTR) {
  }
  return status;
}

absl::Status ExitStatusError(int status) {
  if (WIFSIGNALED(status)) {
    return absl::InternalError(
        absl::StrCat("killed by signal ", SignalDescription(WTERMSIG(status))));
  }
  if (WIFEXITED(status)) {
    return absl::InternalError(
        absl::StrCat("child exited with status ", WEXITSTATUS(status),
                     " without a reply"));
  }
  return absl::InternalError("child ended in an unknown way");
}

}  // namespace

std::string SignalDescription(int signal) {
  const char* abbrev = sigabbrev_np(signal);
  const char* text = strsignal(signal);
  return absl::StrCat(abbrev != nullptr ? absl::StrCat("SIG", abbrev) : absl::StrCat(signal),
                      " (", text != nullptr ? text : "unknown", ")");
}

SandboxReply RunInSandbox(const std::function<std::string()>& body, double deadline_s) {
  SandboxReply out;
  int fds[2];
  const Clock::time_point start = Clock::now();
  const Clock::time_point deadline =
      start + std::chrono::duration_cast<Clock::duration>(std::chrono::duration<double>(deadline_s));
  pid_t pid = -1;
  {
    // Sandboxes may start from several threads at once (parallel NVRTC
    // children). A child forked while another sandbox's pipe still had its
    // write end open in this process would hold that end too, and the other
    // parent would see EOF only when this child exits. Creating the pipe,
    // forking and closing the write end under one lock keeps every child
    // from inheriting another's write end.
    static std::mutex fork_mutex;
    std::lock_guard<std::mutex> lock(fork_mutex);
    if (pipe2(fds, O_CLOEXEC) != 0) {
      out.payload = absl::FailedPreconditionError(absl::StrCat("pipe: ", std::strerror(errno)));
      return out;
    }
    pid = fork();
    if (pid < 0) {
      out.payload = absl::FailedPreconditionError(absl::StrCat("fork: ", std::strerror(errno)));
      close(fds[0]);
      close(fds[1]);
      return out;
    }
    if (pid == 0) {
      close(fds[0]);
      RunChild(fds[1], body);
    }
    // Also set in the parent, so that a kill(-pid) issued before the child
    // ran its own setpgid still reaches it.
    setpgid(pid, pid);
    close(fds[1]);
  }

  std::string received;
  bool timed_out = false;
  char chunk[1 << 16];
  while (true) {
    // Rounded up: poll's millisecond resolution must not end the wait early.
    const auto left = std::chrono::ceil<std::chrono::milliseconds>(deadline - Clock::now()).count();
    if (left <= 0) {
      timed_out = true;
      break;
    }
    struct pollfd p = {fds[0], POLLIN, 0};
    const int ready = poll(&p, 1, static_cast<int>(left));
    if (ready < 0 && errno == EINTR) continue;
    if (ready == 0) continue;  // re-check the deadline
    const ssize_t n = read(fds[0], chunk, sizeof(chunk));
    if (n < 0 && errno == EINTR) continue;
    if (n <= 0) break;  // EOF: the child finished writing or died
    received.append(chunk, static_cast<size_t>(n));
  }
  close(fds[0]);

  if (timed_out || !WaitForExit(pid, deadline)) {
    KillGroupAndReap(pid);
    out.wall_s = SecondsSince(start);
    out.payload = absl::DeadlineExceededError(
        absl::StrCat("no result after ", deadline_s, " s; child killed"));
    return out;
  }
  const int status = KillGroupAndReap(pid);
  out.wall_s = SecondsSince(start);

  if (!WIFEXITED(status) || WEXITSTATUS(status) != 0) {
    out.payload = ExitStatusError(status);
    return out;
  }
  uint64_t size = 0;
  if (received.size() < sizeof(size)) {
    out.payload = absl::InternalError(
        absl::StrCat("short reply (", received.size(), " bytes) from the child"));
    return out;
  }
  std::memcpy(&size, received.data(), sizeof(size));
  if (received.size() - sizeof(size) != size) {
    out.payload = absl::InternalError(absl::StrCat("garbled reply: ", size,
                                                   " bytes announced, ",
                                                   received.size() - sizeof(size), " received"));
    return out;
  }
  out.payload = received.substr(sizeof(size));
  return out;
}

}  // namespace pruner
