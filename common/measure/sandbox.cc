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
#include "common/base/clock.h"

namespace pruner {
namespace {

using Clock = SteadyClock;

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

// One length-prefixed reply: the parent tells a complete reply from one
// cut short by a crash in the middle of writing.
void WriteFrame(int fd, const std::string& reply) {
  const uint64_t size = reply.size();
  WriteAll(fd, reinterpret_cast<const char*>(&size), sizeof(size));
  WriteAll(fd, reply.data(), reply.size());
}

[[noreturn]] void RunChild(int write_fd, const std::function<void(int)>& body) {
  setpgid(0, 0);
  // The parent may have installed handlers (a failure-signal reporter, a
  // test framework's); a faulting kernel must end the child with the signal
  // so that the parent can name it.
  for (int sig : {SIGSEGV, SIGBUS, SIGFPE, SIGILL, SIGABRT, SIGPIPE}) signal(sig, SIG_DFL);
  // A core file per crashing candidate would be slow and fill the disk.
  struct rlimit no_core = {0, 0};
  setrlimit(RLIMIT_CORE, &no_core);
  body(write_fd);
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

namespace {

struct Child {
  pid_t pid = -1;
  int read_fd = -1;
};

// Forks a child that runs body(write_fd) in its own process group (see
// RunChild) and returns its pid and the read end of its pipe.
absl::StatusOr<Child> StartChild(const std::function<void(int)>& body) {
  // Sandboxes may start from several threads at once (parallel NVRTC
  // children). A child forked while another sandbox's pipe still had its
  // write end open in this process would hold that end too, and the other
  // parent would see EOF only when this child exits. Creating the pipe,
  // forking and closing the write end under one lock keeps every child
  // from inheriting another's write end.
  static std::mutex fork_mutex;
  std::lock_guard<std::mutex> lock(fork_mutex);
  int fds[2];
  if (pipe2(fds, O_CLOEXEC) != 0) {
    return absl::FailedPreconditionError(absl::StrCat("pipe: ", std::strerror(errno)));
  }
  const pid_t pid = fork();
  if (pid < 0) {
    close(fds[0]);
    close(fds[1]);
    return absl::FailedPreconditionError(absl::StrCat("fork: ", std::strerror(errno)));
  }
  if (pid == 0) {
    close(fds[0]);
    RunChild(fds[1], body);
  }
  // Also set in the parent, so that a kill(-pid) issued before the child
  // ran its own setpgid still reaches it.
  setpgid(pid, pid);
  close(fds[1]);
  return Child{pid, fds[0]};
}

// Reads what is available on `fd` into `received` until `deadline`; false
// on timeout, true on data or EOF (*eof set).
bool ReadSome(int fd, Clock::time_point deadline, std::string* received, bool* eof) {
  char chunk[1 << 16];
  while (true) {
    // Rounded up: poll's millisecond resolution must not end the wait early.
    const auto left = std::chrono::ceil<std::chrono::milliseconds>(deadline - Clock::now()).count();
    if (left <= 0) return false;
    struct pollfd p = {fd, POLLIN, 0};
    const int ready = poll(&p, 1, static_cast<int>(left));
    if (ready < 0 && errno == EINTR) continue;
    if (ready == 0) continue;  // re-check the deadline
    const ssize_t n = read(fd, chunk, sizeof(chunk));
    if (n < 0 && errno == EINTR) continue;
    if (n <= 0) {
      *eof = true;  // the child finished writing or died
      return true;
    }
    received->append(chunk, static_cast<size_t>(n));
    return true;
  }
}

// Takes complete frames off the front of `received`.
void TakeFrames(std::string* received, std::vector<std::string>* frames) {
  while (received->size() >= sizeof(uint64_t)) {
    uint64_t size = 0;
    std::memcpy(&size, received->data(), sizeof(size));
    if (received->size() - sizeof(size) < size) return;
    frames->push_back(received->substr(sizeof(size), size));
    received->erase(0, sizeof(size) + size);
  }
}

Clock::time_point After(Clock::time_point t, double seconds) {
  return t + std::chrono::duration_cast<Clock::duration>(std::chrono::duration<double>(seconds));
}

}  // namespace

SandboxStream RunInSandboxStreaming(const std::function<void(const SandboxEmit&)>& body,
                                    double deadline_s) {
  SandboxStream out;
  Clock::time_point last = Clock::now();
  absl::StatusOr<Child> child = StartChild([&](int fd) {
    body([fd](const std::string& reply) { WriteFrame(fd, reply); });
  });
  if (!child.ok()) {
    out.end = child.status();
    return out;
  }
  std::string received;
  bool eof = false, timed_out = false;
  while (!eof) {
    if (!ReadSome(child->read_fd, After(last, deadline_s), &received, &eof)) {
      timed_out = true;
      break;
    }
    const size_t before = out.replies.size();
    TakeFrames(&received, &out.replies);
    for (size_t k = before; k < out.replies.size(); ++k) {
      const Clock::time_point now = Clock::now();
      out.reply_wall_s.push_back(std::chrono::duration<double>(now - last).count());
      last = now;
    }
  }
  close(child->read_fd);
  if (timed_out || !WaitForExit(child->pid, After(last, deadline_s))) {
    KillGroupAndReap(child->pid);
    out.tail_wall_s = SecondsSince(last);
    out.end = absl::DeadlineExceededError(
        absl::StrCat("no result after ", deadline_s, " s; child killed"));
    return out;
  }
  const int status = KillGroupAndReap(child->pid);
  out.tail_wall_s = SecondsSince(last);
  if (!WIFEXITED(status) || WEXITSTATUS(status) != 0) {
    out.end = ExitStatusError(status);
  } else if (!received.empty()) {
    out.end = absl::InternalError(
        absl::StrCat("short reply (", received.size(), " bytes) from the child"));
  }
  return out;
}

SandboxReply RunInSandbox(const std::function<std::string()>& body, double deadline_s) {
  SandboxStream stream = RunInSandboxStreaming(
      [&](const SandboxEmit& emit) { emit(body()); }, deadline_s);
  SandboxReply out;
  out.wall_s = stream.tail_wall_s;
  for (double s : stream.reply_wall_s) out.wall_s += s;
  if (!stream.end.ok()) {
    out.payload = stream.end;
  } else if (stream.replies.size() != 1) {
    out.payload = absl::InternalError(
        absl::StrCat("child exited with status 0 without a reply"));
  } else {
    out.payload = std::move(stream.replies[0]);
  }
  return out;
}

}  // namespace pruner
