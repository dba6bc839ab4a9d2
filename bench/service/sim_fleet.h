// A fleet of simulated workers, spread over a number of gRPC connections,
// driven one of two ways:
//
// - threads (drivers = 0): one thread per worker, blocking calls
//   (sim_worker.h). Simple, and what a real worker does, but every call is
//   a thread waking up.
// - async (drivers = N): N threads, each running a completion queue that
//   carries its share of the workers as state machines
//   (sim_async_worker.h). The same protocol and counters with far fewer
//   threads and wake-ups.
//
// Real workers run on other machines; here their client half shares the
// two cores with the server, so the fleet's own CPU time is measured
// (ThreadsCpuSeconds) and the lighter driver is the default: at 1000
// workers the thread-per-worker fleet's threads took 0.43 of a core and
// 1000 more threads (RSS +100 MiB), two drivers 0.12 (bench/README.md).
//
// Connections: gRPC shares one TCP connection among channels with equal
// arguments to the same address (its global subchannel pool), so a
// thousand channels made the usual way would be one HTTP/2 connection.
// Real workers are separate processes with a connection each; each channel
// here gets a local subchannel pool, hence a connection of its own.
#ifndef PRUNER_BENCH_SERVICE_SIM_FLEET_H_
#define PRUNER_BENCH_SERVICE_SIM_FLEET_H_

#include <atomic>
#include <chrono>
#include <map>
#include <memory>
#include <string>
#include <thread>
#include <vector>

#include "bench/service/sim_async_worker.h"
#include "bench/service/sim_worker.h"

namespace pruner::bench {

// The stats of every worker of a fleet, summed; samples concatenated.
struct FleetStats {
  int workers = 0;
  int registered = 0;
  double register_p50_ms = 0;
  double register_max_ms = 0;
  int64_t leases = 0;
  int64_t empty_polls = 0;
  int64_t candidates = 0;
  int64_t accepted = 0;
  int64_t duplicates = 0;
  int64_t unknown = 0;
  int64_t heartbeats = 0;
  int64_t revoked = 0;
  int64_t reregistered = 0;
  std::map<std::string, int64_t> rpc_errors;
  int64_t rpc_error_total = 0;
  std::vector<CallSample> lease_samples;
  std::vector<CallSample> report_samples;
};

struct FleetSettings {
  int workers = 10;
  int connections = 0;              // <= 0: one per worker; worker i uses i % connections
  int drivers = 2;                  // completion-queue threads; 0: a thread per worker
  std::string name_prefix = "sim";  // worker i is "<prefix>-w<i>"
  SimWorkerOptions worker;
};

class SimFleet {
 public:
  SimFleet(const std::string& address, const FleetSettings& settings);
  ~SimFleet();  // Stop()

  // Starts every worker and waits (up to `timeout`) until each has
  // registered or given up. Returns how many registered.
  int Start(std::chrono::milliseconds timeout);
  // Asks every worker to stop after its current lease and joins the threads.
  void Stop();

  // CPU seconds the fleet's own threads used so far (their thread CPU
  // clocks; what gRPC does for them on its own threads is not included).
  // Call while the threads run. Not from /proc/self/task/*/stat: on this
  // kernel those stay near zero for threads that run in bursts shorter than
  // a tick, which is exactly what these threads do.
  double ThreadsCpuSeconds() const;
  int threads() const { return static_cast<int>(threads_.size()); }

  // Valid after Stop().
  FleetStats Stats() const;

 private:
  bool AllSettled() const;
  std::vector<const SimWorkerStats*> AllStats() const;

  std::vector<std::shared_ptr<grpc::Channel>> channels_;
  std::vector<std::unique_ptr<SimWorker>> workers_;                          // threads mode
  std::vector<std::unique_ptr<grpc::CompletionQueue>> queues_;               // async mode
  std::vector<std::vector<std::unique_ptr<AsyncSimWorker>>> async_workers_;  // per queue
  std::vector<std::thread> threads_;
  std::atomic<bool> stop_{false};
};

}  // namespace pruner::bench

#endif  // PRUNER_BENCH_SERVICE_SIM_FLEET_H_
