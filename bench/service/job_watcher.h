// Follows the benchmark's jobs through TuningService.WatchJob, one stream
// (and thread) per job, and keeps every round's progress event with the
// time it arrived. That is where the server-side numbers come from: the
// mean queue wait of each round's candidates (enqueue to lease, measured by
// the dispatcher) and where each job thread's round went (search, waiting
// for the measurements, the records database).
#ifndef PRUNER_BENCH_SERVICE_JOB_WATCHER_H_
#define PRUNER_BENCH_SERVICE_JOB_WATCHER_H_

#include <chrono>
#include <cstdint>
#include <memory>
#include <mutex>
#include <string>
#include <thread>
#include <vector>

#include "grpcpp/grpcpp.h"
#include "pruner/v1/tuning_service.grpc.pb.h"

namespace pruner::bench {

// The rounds that ended inside a window, over all jobs.
struct RoundStats {
  int64_t rounds = 0;
  int64_t measured = 0;      // candidates those rounds measured
  int64_t not_ok = 0;        // of which the server recorded as failed
  double queue_wait_ms = 0;  // mean over candidates
  // Means per round (ms) of the job thread's time.
  double search_ms = 0;   // proposing the round's candidates
  double measure_ms = 0;  // submit to the last result (includes the queue wait)
  double db_ms = 0;       // writing the round's records
};

class JobWatcher {
 public:
  explicit JobWatcher(std::shared_ptr<grpc::Channel> channel);
  ~JobWatcher();  // Stop()

  void Watch(int64_t job_id);
  // Cancels every stream and joins the threads.
  void Stop();

  RoundStats Window(std::chrono::steady_clock::time_point from,
                    std::chrono::steady_clock::time_point to) const;
  // Streams that ended with an error before Stop(), e.g. "job 3: UNAVAILABLE".
  std::vector<std::string> Failures() const;

 private:
  struct Event {
    std::chrono::steady_clock::time_point at;
    int measured = 0;
    int ok = 0;
    double queue_wait_s = 0;
    double search_s = 0;
    double measure_s = 0;
    double db_s = 0;
  };
  void Follow(int64_t job_id, grpc::ClientContext* context);

  std::unique_ptr<v1::TuningService::Stub> stub_;
  mutable std::mutex mu_;
  std::vector<Event> events_;
  std::vector<std::string> failures_;
  bool stopping_ = false;
  std::vector<std::unique_ptr<grpc::ClientContext>> contexts_;
  std::vector<std::thread> threads_;
};

}  // namespace pruner::bench

#endif  // PRUNER_BENCH_SERVICE_JOB_WATCHER_H_
