// What the in-process commands share: how an error ends a command (its
// message on stderr, exit code 2, as the service commands' refusals), and a
// stop flag that Ctrl-C (SIGINT) or SIGTERM sets so that long work (tuning,
// dataset collection) ends between rounds instead of mid-measurement.
#ifndef PRUNER_CLIENT_COMMAND_EXIT_H_
#define PRUNER_CLIENT_COMMAND_EXIT_H_

#include <atomic>
#include <csignal>
#include <iostream>

#include "absl/status/status.h"

namespace pruner {

inline int FailCommand(const absl::Status& status) {
  std::cerr << "error: " << status.message() << "\n";
  return 2;
}

inline std::atomic<bool>& StopRequested() {
  static std::atomic<bool> requested{false};  // lock-free: safe to set from a handler
  return requested;
}

// Installs the handlers; the flag becomes true at the first signal.
inline const std::atomic<bool>* StopOnSignals() {
  std::atomic<bool>* flag = &StopRequested();
  std::signal(SIGINT, [](int) { StopRequested().store(true); });
  std::signal(SIGTERM, [](int) { StopRequested().store(true); });
  return flag;
}

}  // namespace pruner

#endif  // PRUNER_CLIENT_COMMAND_EXIT_H_
