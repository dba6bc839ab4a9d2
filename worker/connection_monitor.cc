#include "worker/connection_monitor.h"

#include "absl/strings/str_cat.h"
#include "absl/strings/str_format.h"
#include "proto/daemon_log.h"
#include "worker/rpc_outcome.h"

namespace pruner {

void ConnectionMonitor::Answered() {
  std::lock_guard<std::mutex> lock(mu_);
  if (state_ == State::kUp) return;
  const double down_s =
      std::chrono::duration<double>(std::chrono::steady_clock::now() - lost_at_).count();
  if (reached_once_) {
    LogInfo(absl::StrFormat("connection to %s restored after %.1f s", server_, down_s));
  } else if (state_ == State::kDown) {
    LogInfo(absl::StrFormat("reached %s after %.1f s", server_, down_s));
  }
  state_ = State::kUp;
  reached_once_ = true;
}

void ConnectionMonitor::Unreachable(const grpc::Status& status) {
  std::lock_guard<std::mutex> lock(mu_);
  if (state_ == State::kDown) return;
  state_ = State::kDown;
  lost_at_ = std::chrono::steady_clock::now();
  LogWarning(absl::StrCat(reached_once_ ? "connection to " : "cannot reach ", server_,
                         reached_once_ ? " lost (" : " (", DescribeRpcStatus(status),
                         "); retrying with backoff"));
}

}  // namespace pruner
