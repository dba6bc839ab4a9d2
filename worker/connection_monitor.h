// Tracks whether the server answers, and logs only the transitions:
// "connection to S lost (<why>)" at the first failed call and "connection to
// S restored after N s" at the first answered one after that ("cannot reach
// S" / "reached S" when the server was never reached yet). Every thread
// of the daemon (heartbeat, slots, report flushing) reports its calls here,
// so an outage gives two log lines however many calls failed in between.
#ifndef PRUNER_WORKER_CONNECTION_MONITOR_H_
#define PRUNER_WORKER_CONNECTION_MONITOR_H_

#include <chrono>
#include <mutex>
#include <string>

#include "grpcpp/grpcpp.h"

namespace pruner {

class ConnectionMonitor {
 public:
  explicit ConnectionMonitor(std::string server) : server_(std::move(server)) {}

  // The server answered a call (OK or an error of its own).
  void Answered();
  // A call got no answer (see rpc_outcome.h).
  void Unreachable(const grpc::Status& status);

 private:
  const std::string server_;
  std::mutex mu_;
  enum class State { kNeverReached, kUp, kDown };
  State state_ = State::kNeverReached;
  bool reached_once_ = false;
  std::chrono::steady_clock::time_point lost_at_;
};

}  // namespace pruner

#endif  // PRUNER_WORKER_CONNECTION_MONITOR_H_
