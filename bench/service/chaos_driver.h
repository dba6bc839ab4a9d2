// The chaos soak's driver: while it runs, at random moments (seeded) it
// SIGKILLs a worker and restarts it, SIGSTOPs a worker for longer than the
// lease timeout (a hung host) and continues it, or SIGKILLs the server and
// restarts it on the same port. Beside that, one in-process worker reports
// garbage for everything it leases (NaN, 1e-30 s, negative times), until
// the server quarantines it. Stop() ends the chaos with every worker
// running and the server up, so the jobs can finish.
#ifndef PRUNER_BENCH_SERVICE_CHAOS_DRIVER_H_
#define PRUNER_BENCH_SERVICE_CHAOS_DRIVER_H_

#include <atomic>
#include <chrono>
#include <condition_variable>
#include <cstdint>
#include <mutex>
#include <random>
#include <string>
#include <thread>
#include <vector>

#include "bench/service/local_farm.h"

namespace pruner::chaos {

struct ChaosCounts {
  int worker_kills = 0;
  int worker_restarts = 0;
  int stops = 0;  // SIGSTOP ... SIGCONT
  int server_kills = 0;
  int server_restarts = 0;
  int garbage_reports = 0;  // results the garbage worker sent
  int garbage_refused = 0;  // of those, refused as implausible
};

struct ChaosOptions {
  uint64_t seed = 1;
  std::chrono::milliseconds min_gap{2000};  // between two faults
  std::chrono::milliseconds max_gap{5000};
  std::chrono::milliseconds down_for{1000};  // a killed process stays down this long
  std::chrono::milliseconds stop_for{3000};  // a stopped worker: longer than the lease timeout
  double server_kill_share = 0.2;  // of the faults
  std::vector<std::string> worker_flags;  // extra pruner-worker flags
};

class ChaosDriver {
 public:
  // `farm` has its server up; the driver starts the named workers.
  ChaosDriver(e2e::Farm* farm, std::vector<std::string> worker_names, ChaosOptions options);
  ~ChaosDriver();  // Stop(); then the processes it restarted die with it

  void StartWorkers();
  // Faults and the garbage worker run until Stop().
  void Start(const v1::Device& device);
  // Returns once the fault in progress is over (a stopped worker continued,
  // a killed process restarted).
  void Stop();
  ChaosCounts counts() const;

 private:
  void FaultLoop();
  // Faults at random gaps until Stop().
  void RunFaults(std::mt19937_64& rng, std::uniform_int_distribution<int64_t>& gap,
                 std::uniform_real_distribution<double>& unit);
  void GarbageLoop(v1::Device device);
  // Sleeps up to `d`; false when stopping.
  bool SleepFor(std::chrono::milliseconds d);
  bool Running() const { return running_ && !exit_; }  // mu_ held

  e2e::Farm* const farm_;
  const std::vector<std::string> names_;
  const ChaosOptions options_;
  std::vector<e2e::Process> workers_;
  mutable std::mutex mu_;
  std::condition_variable cv_;
  // The fault thread outlives Stop(): it forks the restarted server and
  // workers, and a child made with PR_SET_PDEATHSIG (local_farm.h) dies
  // when the *thread* that forked it ends. It ends with the driver.
  bool running_ = false;
  bool idle_ = true;  // the fault thread is between faults, waiting
  bool exit_ = false;
  ChaosCounts counts_;
  std::thread faults_, garbage_;
};

}  // namespace pruner::chaos

#endif  // PRUNER_BENCH_SERVICE_CHAOS_DRIVER_H_
