// What the worker tests share: the local CPU as a worker sees it, leases of
// a small real matmul with valid random schedules, worker options with
// test-sized timeouts, and a daemon running on its own thread.
#ifndef PRUNER_TESTS_WORKER_WORKER_TEST_UTIL_H_
#define PRUNER_TESTS_WORKER_WORKER_TEST_UTIL_H_

#include <memory>
#include <string>
#include <thread>
#include <vector>

#include "absl/status/status.h"
#include "pruner/v1/worker_service.pb.h"
#include "worker/worker_daemon.h"
#include "worker/worker_device.h"
#include "worker/worker_options.h"

namespace pruner {

// DetectLocalCpu() under its stable key: what `--device cpu` registers.
WorkerDevice LocalCpuDevice();

// `n` valid CPU schedules of matmul:M=64,K=64,N=64 as sentences (sketches
// plus random annotation, seeded).
std::vector<std::string> MatmulSentences(int n, uint64_t seed);

// A lease of that matmul for the local CPU with quick measurement options
// (one call per repeat, one repeat, one kernel thread); candidate i gets
// measurement id "<lease_id>/<i>".
v1::Lease MatmulLease(const std::string& lease_id, const std::vector<std::string>& sentences);

// Options against `address` with short polls and a fast backoff.
WorkerOptions TestWorkerOptions(const std::string& address);

// A WorkerDaemon whose Run() executes on a thread from construction on.
class DaemonThread {
 public:
  DaemonThread(WorkerOptions options, WorkerDevice device);
  ~DaemonThread();  // stops and joins

  WorkerDaemon& daemon() { return *daemon_; }
  // Stop() and join; Run()'s status.
  absl::Status StopAndJoin();
  // Joins without stopping (the daemon must be ending on its own).
  absl::Status Join();

 private:
  std::unique_ptr<WorkerDaemon> daemon_;
  absl::Status status_;
  std::thread thread_;
};

}  // namespace pruner

#endif  // PRUNER_TESTS_WORKER_WORKER_TEST_UTIL_H_
