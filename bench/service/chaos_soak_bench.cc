// Chaos soak: a multi-job workload on a local farm of the real binaries
// (pruner-server, several pruner-worker processes) for a fixed time, first
// calm, then under chaos (chaos_driver.h: workers and the server SIGKILLed
// and restarted, workers SIGSTOPped past the lease timeout, one worker
// reporting garbage). Each phase keeps the same number of jobs in flight
// and then lets them finish; afterwards the records database must satisfy
// chaos_invariants.h. Prints what the faults cost in throughput (trials per
// minute, chaos against calm, measured in this run) and ends with
//   RESULT chaos kills=... restarts=... records_lost=... duplicates=... implausible_stored=...
// Exit status 1 when an invariant fails.
#include <sys/wait.h>

#include <chrono>
#include <cstdio>
#include <map>
#include <set>
#include <string>
#include <thread>
#include <vector>

#include "CLI/CLI.hpp"
#include "absl/strings/str_cat.h"
#include "absl/time/clock.h"
#include "bench/service/chaos_driver.h"
#include "bench/service/chaos_invariants.h"
#include "bench/service/local_farm.h"

namespace pruner::chaos {
namespace {

using Clock = std::chrono::steady_clock;
using std::chrono::milliseconds;
using std::chrono::seconds;

struct SoakFlags {
  int workers = 3;
  int jobs_in_flight = 3;
  int calm_s = 90;
  int chaos_s = 180;
  int drain_s = 300;  // after a phase's window: how long its jobs may take to finish
  int64_t budget = 24;
  int per_round = 8;
  uint64_t seed = 7;
};

struct PhaseResult {
  std::vector<int64_t> jobs;
  int64_t trials = 0;  // of the jobs that finished
  int unfinished = 0;
  double wall_s = 0;
  double TrialsPerMinute() const { return wall_s > 0 ? trials / wall_s * 60 : 0; }
};

// Two operators per job, rotating over a few small ones.
v1::JobSpec JobFor(int index, const std::string& target, const SoakFlags& flags) {
  static const char* kOps[] = {"matmul:M=64,K=64,N=64", "dense:M=16,K=64,N=32",
                               "matmul:M=32,K=64,N=48", "dense:M=32,K=128,N=64,bias=1,act=relu"};
  v1::JobSpec spec = e2e::SmallJob(target, {kOps[index % 4], kOps[(index + 1) % 4]}, flags.budget,
                                   flags.per_round);
  spec.set_name(absl::StrCat("soak-", index));
  spec.set_seed(static_cast<uint64_t>(index) + 1);
  return spec;
}

// Keeps `jobs_in_flight` jobs running until the window ends (calls that
// fail while the server is down are retried on the next tick), then waits
// for them to finish. `on_window_end` runs once, when the window ends.
PhaseResult RunPhase(e2e::Farm& farm, const std::string& target, const SoakFlags& flags,
                     int window_s, int* next_index, const std::function<void()>& on_window_end) {
  PhaseResult out;
  const Clock::time_point start = Clock::now();
  const Clock::time_point window_end = start + seconds(window_s);
  std::set<int64_t> in_flight;
  bool window_over = false;
  while (true) {
    const Clock::time_point now = Clock::now();
    if (!window_over && now >= window_end) {
      window_over = true;
      if (on_window_end) on_window_end();
    }
    while (!window_over && static_cast<int>(in_flight.size()) < flags.jobs_in_flight) {
      v1::SubmitJobRequest request;
      *request.mutable_spec() = JobFor(*next_index, target, flags);
      v1::JobInfo info;
      auto context = farm.Context(seconds(10));
      if (!farm.Client()->SubmitJob(context.get(), request, &info).ok()) break;
      ++*next_index;
      in_flight.insert(info.id());
      out.jobs.push_back(info.id());
    }
    for (auto it = in_flight.begin(); it != in_flight.end();) {
      v1::GetJobRequest request;
      request.set_job_id(*it);
      v1::JobInfo info;
      auto context = farm.Context(seconds(5));
      const bool answered = farm.Client()->GetJob(context.get(), request, &info).ok();
      const bool ended = answered && (info.status() == "done" || info.status() == "failed" ||
                                      info.status() == "cancelled");
      if (ended) {
        out.trials += info.trials();
        it = in_flight.erase(it);
      } else {
        ++it;
      }
    }
    if (window_over && in_flight.empty()) break;
    if (window_over && now > window_end + seconds(flags.drain_s)) {
      out.unfinished = static_cast<int>(in_flight.size());
      // Say what they wait for: the server's view of them and of the workers.
      for (int64_t id : in_flight) {
        v1::GetJobRequest request;
        request.set_job_id(id);
        v1::JobInfo info;
        auto context = farm.Context(seconds(5));
        (void)farm.Client()->GetJob(context.get(), request, &info);
        std::printf("unfinished job %lld: %s, %lld/%lld trials, %d queued, %d leased; %s\n",
                    static_cast<long long>(id), info.status().c_str(),
                    static_cast<long long>(info.trials()),
                    static_cast<long long>(info.trial_budget()), info.queued_candidates(),
                    info.leased_candidates(), info.message().c_str());
      }
      v1::ListWorkersReply workers;
      auto context = farm.Context(seconds(5));
      (void)farm.Client()->ListWorkers(context.get(), {}, &workers);
      for (const v1::WorkerInfo& w : workers.workers()) {
        std::printf("worker %s (%s): %d active leases, last heartbeat %lld ms ago%s\n",
                    w.name().c_str(), w.worker_id().c_str(), w.active_leases(),
                    static_cast<long long>(absl::ToUnixMillis(absl::Now()) -
                                           w.last_heartbeat_unix_ms()),
                    w.quarantined() ? ", quarantined" : "");
      }
      break;
    }
    std::this_thread::sleep_for(milliseconds(500));
  }
  out.wall_s = std::chrono::duration<double>(Clock::now() - start).count();
  return out;
}

std::string WaitForDevice(e2e::Farm& farm, size_t workers, v1::Device* device) {
  const bool up = e2e::Farm::WaitFor(
      [&] {
        v1::ListWorkersReply reply;
        auto context = farm.Context(seconds(5));
        if (!farm.Client()->ListWorkers(context.get(), {}, &reply).ok()) return false;
        if (static_cast<size_t>(reply.workers_size()) < workers) return false;
        *device = reply.workers(0).device();
        return true;
      },
      seconds(60));
  return up ? device->key() : "";
}

int Main(int argc, char** argv) {
  SoakFlags flags;
  CLI::App app{"chaos soak: a multi-job workload on a local farm under faults, then invariants"};
  app.add_option("--workers", flags.workers, "pruner-worker processes")->capture_default_str();
  app.add_option("--jobs-in-flight", flags.jobs_in_flight, "jobs kept running")
      ->capture_default_str();
  app.add_option("--calm", flags.calm_s, "seconds of the calm phase (the baseline)")
      ->capture_default_str();
  app.add_option("--chaos", flags.chaos_s, "seconds of the chaos phase")->capture_default_str();
  app.add_option("--drain", flags.drain_s, "seconds a phase's jobs may take to finish after it")
      ->capture_default_str();
  app.add_option("--budget", flags.budget, "trials per job")->capture_default_str();
  app.add_option("--per-round", flags.per_round, "trials per round")->capture_default_str();
  app.add_option("--seed", flags.seed, "the chaos driver's seed")->capture_default_str();
  CLI11_PARSE(app, argc, argv);

  e2e::FarmOptions options;
  options.lease_timeout_ms = 2000;
  options.heartbeat_ms = 200;
  options.max_running_jobs = flags.jobs_in_flight + 1;
  // A candidate may lose many leases to chaos; only a program that takes
  // its worker down this often is given up.
  options.max_attempts = 50;
  e2e::Farm farm(options);
  std::string error;
  if (!farm.StartServer(0, &error)) {
    std::fprintf(stderr, "the server did not start:\n%s\n", error.c_str());
    return 2;
  }
  std::vector<std::string> names;
  for (int i = 0; i < flags.workers; ++i) names.push_back(absl::StrCat("soak-", i));
  ChaosOptions chaos_options;
  chaos_options.seed = flags.seed;
  chaos_options.stop_for = milliseconds(options.lease_timeout_ms + 1000);
  ChaosDriver chaos(&farm, names, chaos_options);
  chaos.StartWorkers();
  v1::Device device;
  const std::string target = WaitForDevice(farm, names.size(), &device);
  if (target.empty()) {
    std::fprintf(stderr, "the workers did not register:\n%s\n", farm.ServerLog().c_str());
    return 2;
  }
  std::printf("farm: server + %d workers on %s, %d jobs in flight, %lld trials per job; "
              "calm %d s, chaos %d s\n",
              flags.workers, target.c_str(), flags.jobs_in_flight,
              static_cast<long long>(flags.budget), flags.calm_s, flags.chaos_s);
  std::fflush(stdout);

  int next_index = 0;
  const PhaseResult calm = RunPhase(farm, target, flags, flags.calm_s, &next_index, nullptr);
  std::printf("calm:  %zu jobs, %lld trials in %.0f s: %.1f trials/min (%d unfinished)\n",
              calm.jobs.size(), static_cast<long long>(calm.trials), calm.wall_s,
              calm.TrialsPerMinute(), calm.unfinished);
  std::fflush(stdout);
  chaos.Start(device);
  const PhaseResult wild =
      RunPhase(farm, target, flags, flags.chaos_s, &next_index, [&] { chaos.Stop(); });
  chaos.Stop();
  const ChaosCounts c = chaos.counts();
  std::printf("chaos: %zu jobs, %lld trials in %.0f s: %.1f trials/min (%d unfinished)\n",
              wild.jobs.size(), static_cast<long long>(wild.trials), wild.wall_s,
              wild.TrialsPerMinute(), wild.unfinished);
  std::printf("faults: %d worker kills (%d restarts), %d server kills (%d restarts), %d hung "
              "workers; the garbage worker sent %d results, %d refused\n",
              c.worker_kills, c.worker_restarts, c.server_kills, c.server_restarts, c.stops,
              c.garbage_reports, c.garbage_refused);

  std::vector<int64_t> all = calm.jobs;
  all.insert(all.end(), wild.jobs.begin(), wild.jobs.end());
  auto invariants = CheckSoakInvariants(farm.db_path(), all, /*run_timeout_s=*/10);
  if (!invariants.ok()) {
    std::fprintf(stderr, "cannot check the database: %s\n",
                 std::string(invariants.status().message()).c_str());
    return 2;
  }
  const SoakInvariants& inv = *invariants;
  std::printf("database: %lld jobs, %lld records, %lld second measurements (%lld disputed); "
              "lost %lld, extra %lld, duplicates %lld, dispatch failures %lld, implausible %lld, "
              "unfinished %lld, integrity %s\n",
              static_cast<long long>(inv.jobs), static_cast<long long>(inv.records),
              static_cast<long long>(inv.second_measurements),
              static_cast<long long>(inv.disputed), static_cast<long long>(inv.records_lost),
              static_cast<long long>(inv.extra_records), static_cast<long long>(inv.duplicates),
              static_cast<long long>(inv.dispatch_failures),
              static_cast<long long>(inv.implausible_stored),
              static_cast<long long>(inv.unfinished), inv.integrity.c_str());
  const double ratio =
      calm.TrialsPerMinute() > 0 ? wild.TrialsPerMinute() / calm.TrialsPerMinute() : 0;
  std::printf("invariants %s\n", inv.Hold() ? "hold" : "FAILED");
  std::printf(
      "RESULT chaos kills=%d restarts=%d hung=%d server_kills=%d garbage_refused=%d/%d jobs=%lld "
      "records_lost=%lld duplicates=%lld implausible_stored=%lld dispatch_failures=%lld "
      "unfinished=%lld integrity=%s calm_trials_per_min=%.1f chaos_trials_per_min=%.1f "
      "throughput_ratio=%.2f\n",
      c.worker_kills + c.server_kills, c.worker_restarts + c.server_restarts, c.stops,
      c.server_kills, c.garbage_refused, c.garbage_reports, static_cast<long long>(inv.jobs),
      static_cast<long long>(inv.records_lost), static_cast<long long>(inv.duplicates),
      static_cast<long long>(inv.implausible_stored),
      static_cast<long long>(inv.dispatch_failures), static_cast<long long>(inv.unfinished),
      inv.integrity.c_str(), calm.TrialsPerMinute(), wild.TrialsPerMinute(), ratio);
  return inv.Hold() ? 0 : 1;
}

}  // namespace
}  // namespace pruner::chaos

int main(int argc, char** argv) { return pruner::chaos::Main(argc, argv); }
