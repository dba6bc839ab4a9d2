// One simulated worker for the service load benchmark: a registered worker
// of its own (its own worker_id, leases and heartbeats) that speaks the real
// WorkerService protocol but measures nothing. It sleeps a synthetic
// "measurement" time per candidate and reports made-up ok results, so the
// server sees a farm whose workers are infinitely cheap and every cost left
// is the server's own: dispatch, the jobs' search, the records database.
//
// Its times are synthetic by construction; nothing it reports is a
// measurement of anything.
#ifndef PRUNER_BENCH_SERVICE_SIM_WORKER_H_
#define PRUNER_BENCH_SERVICE_SIM_WORKER_H_

#include <atomic>
#include <chrono>
#include <cstdint>
#include <map>
#include <memory>
#include <string>
#include <vector>

#include "grpcpp/grpcpp.h"
#include "pruner/v1/worker_service.grpc.pb.h"

namespace pruner::bench {

using SimClock = std::chrono::steady_clock;

struct SimWorkerOptions {
  v1::Device device;       // what it registers (the jobs' target)
  int max_candidates = 4;  // per LeaseBatch
  int wait_ms = 1000;      // LeaseBatch long poll
  double measure_ms = 2;   // synthetic "measurement" time per candidate
  // Added to the long poll (or used alone) as each call's deadline. Generous:
  // on 2 shared cores with a thousand threads a call can queue for a while,
  // and a deadline that fires spuriously would turn load into lost leases.
  std::chrono::milliseconds rpc_margin{10000};
};

// One timed call (a LeaseBatch that returned work, or a ReportResults):
// when it returned and how long it took.
struct CallSample {
  SimClock::time_point at;
  double rtt_ms = 0;
};

// What one worker saw. Filled by its own thread only; read after it ends.
struct SimWorkerStats {
  bool registered = false;
  double register_ms = 0;   // the first Register call
  int64_t leases = 0;       // non-empty LeaseBatch replies
  int64_t empty_polls = 0;  // LeaseBatch that waited wait_ms and got nothing
  int64_t candidates = 0;   // candidates leased
  int64_t accepted = 0;     // ReportReply counts, summed
  int64_t duplicates = 0;
  int64_t unknown = 0;
  int64_t heartbeats = 0;
  int64_t revoked = 0;       // leases a heartbeat said the server no longer holds
  int64_t reregistered = 0;  // the server forgot the worker (declared it dead)
  // Failed calls by "Rpc:CODE", e.g. "LeaseBatch:DEADLINE_EXCEEDED".
  std::map<std::string, int64_t> rpc_errors;
  std::vector<CallSample> lease_samples;
  std::vector<CallSample> report_samples;
};

class SimWorker {
 public:
  SimWorker(std::string name, std::shared_ptr<grpc::Channel> channel, SimWorkerOptions options);

  // Registers, then leases, "measures" and reports until `stop` is set. A
  // lease in hand when `stop` is set is still finished and reported, so
  // stopping loses no candidate. Returns at the latest one long poll plus one
  // batch after `stop`.
  void Run(const std::atomic<bool>& stop);

  const std::string& name() const { return name_; }
  // True once the first Register succeeded (or failed for good).
  bool settled() const { return settled_.load(); }
  const SimWorkerStats& stats() const { return stats_; }

 private:
  bool Register();
  // Heartbeats if heartbeat_interval has passed since the last one.
  void MaybeHeartbeat(const std::string& lease_id);
  // Sleeps the synthetic measurement time, heart-beating as it goes.
  void SimulateMeasurement(const v1::Lease& lease);
  void Report(const v1::Lease& lease);

  const std::string name_;
  std::unique_ptr<v1::WorkerService::Stub> stub_;
  const SimWorkerOptions options_;
  std::string worker_id_;
  std::chrono::milliseconds heartbeat_interval_{1000};
  SimClock::time_point last_heartbeat_;
  std::atomic<bool> settled_{false};
  SimWorkerStats stats_;
};

// Shared with the asynchronous worker (sim_async_worker.h).
//
// A synthetic ok result for one candidate: a made-up mean (0.1 to 1.1 ms,
// fixed by the measurement id) with three raw repeats around it. Labelled
// only by the worker's name; the server cannot tell it from a real one,
// which is the point of the benchmark and why its records are thrown away.
v1::MeasureResult SyntheticResult(const std::string& measurement_id, double run_s);
v1::RegisterRequest SimRegisterRequest(const std::string& name, const SimWorkerOptions& options);
// Every candidate of `lease` with its synthetic result.
v1::ReportRequest SimReportRequest(const std::string& worker_id, const v1::Lease& lease,
                                   const SimWorkerOptions& options);
// Counts a failed call in stats->rpc_errors as "Rpc:CODE".
void CountRpcError(const char* rpc, const grpc::Status& status, SimWorkerStats* stats);
// The synthetic measurement time of a lease.
SimClock::duration SimMeasureTime(const v1::Lease& lease, const SimWorkerOptions& options);

}  // namespace pruner::bench

#endif  // PRUNER_BENCH_SERVICE_SIM_WORKER_H_
