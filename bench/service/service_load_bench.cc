// bench_service_load: the scheduler server under load from many simulated
// workers on loopback.
//
// One PrunerServer runs in this process (records database in a temporary
// directory, no token) with --jobs single-operator tuning jobs (random
// search, --per-round candidates a round, budgets that outlast the run).
// For each worker count W of --workers, W simulated workers (sim_fleet.h:
// each registered on its own, driven by --drivers completion-queue threads)
// lease up to --max-candidates candidates with a --wait-ms long poll, sleep
// --measure-ms per candidate and report synthetic ok results; after
// --warmup seconds the window of --seconds opens. The jobs' own threads
// propose the candidates and write every result to SQLite, which is the
// real ingest path. With a handful of workers the workers' sleep limits the
// rate; with more, only the server does, since the workers cost nothing.
//
// The simulated workers measure nothing: every time they report is made
// up, and the output says "simulated" wherever one could be mistaken for a
// measurement. What the benchmark measures is the server handling them:
// results ingested per second (rows added to the records table, cross-
// checked with the dispatcher's count), the dispatch latency the workers
// see (LeaseBatch round trips that returned work), the dispatcher's queue
// wait, and the process's CPU, threads and memory.
//
// Usage: bench_service_load [--workers 10,100,1000] [--seconds 10] [--warmup 1]
//                           [--jobs 16] [--per-round 64] [--max-candidates 4]
//                           [--wait-ms 1000] [--measure-ms 2] [--connections 0]
//                           [--drivers 2] [--max-rss-mib 8192] [--keep-db] [--quick]
#include <sys/resource.h>

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <set>
#include <string>
#include <vector>

#include "CLI/CLI.hpp"
#include "absl/strings/str_cat.h"
#include "bench/service/job_watcher.h"
#include "bench/service/load_level.h"
#include "bench/service/load_report.h"
#include "bench/service/load_setup.h"
#include "bench/service/process_stats.h"
#include "proto/rpc_credentials.h"
#include "pruner/v1/tuning_service.grpc.pb.h"
#include "pruner/v1/worker_service.grpc.pb.h"
#include "server/pruner_server.h"

namespace pruner::bench {
namespace {

using Clock = std::chrono::steady_clock;

constexpr size_t kWatchedJobs = 16;

struct Options {
  std::vector<int> workers = {10, 100, 1000};
  double seconds = 10;
  double warmup_s = 1;
  LoadJobSettings jobs;
  int max_candidates = 4;
  int wait_ms = 1000;
  double measure_ms = 2;
  int connections = 0;
  int drivers = 2;
  double max_rss_mib = 8192;
  bool keep_db = false;
  bool quick = false;
};

// Two sockets per connection (both ends live here) plus the database:
// make sure a thousand workers do not run into the descriptor limit.
void RaiseFileLimit() {
  rlimit limit{};
  if (getrlimit(RLIMIT_NOFILE, &limit) == 0 && limit.rlim_cur < limit.rlim_max) {
    limit.rlim_cur = limit.rlim_max;
    (void)setrlimit(RLIMIT_NOFILE, &limit);
  }
}

// The temporary directory of the database, removed on every way out unless
// it is to be kept. Declared before the server, so destroyed after it.
class TempDir {
 public:
  explicit TempDir(bool keep) : keep_(keep) {
    std::string pattern = std::filesystem::temp_directory_path() / "pruner-service-load-XXXXXX";
    if (mkdtemp(pattern.data()) != nullptr) path_ = pattern;
  }
  ~TempDir() {
    std::error_code ec;
    if (!path_.empty() && !keep_) std::filesystem::remove_all(path_, ec);
  }
  const std::string& path() const { return path_; }

 private:
  const bool keep_;
  std::string path_;
};

// Registers the simulated device once, so that the jobs can be submitted
// (and start proposing) before the first level's workers exist. This
// registration never leases; the server declares it dead after the lease
// timeout, which changes nothing.
bool RegisterDevice(const std::shared_ptr<grpc::Channel>& channel, const v1::Device& device) {
  auto stub = v1::WorkerService::NewStub(channel);
  v1::RegisterRequest request;
  request.set_name("sim-setup");
  request.set_host("loopback-simulated");
  *request.mutable_device() = device;
  request.set_slots(1);
  v1::RegisterReply reply;
  grpc::ClientContext context;
  context.set_deadline(std::chrono::system_clock::now() + std::chrono::seconds(10));
  const grpc::Status status = stub->Register(&context, request, &reply);
  if (!status.ok()) std::fprintf(stderr, "register: %s\n", status.error_message().c_str());
  return status.ok();
}

std::vector<int64_t> SubmitJobs(const std::shared_ptr<grpc::Channel>& channel,
                                const std::vector<v1::JobSpec>& specs) {
  auto stub = v1::TuningService::NewStub(channel);
  std::vector<int64_t> ids;
  for (const v1::JobSpec& spec : specs) {
    v1::SubmitJobRequest request;
    *request.mutable_spec() = spec;
    v1::JobInfo info;
    grpc::ClientContext context;
    context.set_deadline(std::chrono::system_clock::now() + std::chrono::seconds(30));
    const grpc::Status status = stub->SubmitJob(&context, request, &info);
    if (!status.ok()) {
      std::fprintf(stderr, "submit %s: %s\n", spec.ops(0).c_str(), status.error_message().c_str());
      return {};
    }
    ids.push_back(info.id());
  }
  return ids;
}

void CancelJobs(const std::shared_ptr<grpc::Channel>& channel, const std::vector<int64_t>& ids) {
  auto stub = v1::TuningService::NewStub(channel);
  for (int64_t id : ids) {
    v1::CancelJobRequest request;
    request.set_job_id(id);
    v1::JobInfo info;
    grpc::ClientContext context;
    context.set_deadline(std::chrono::system_clock::now() + std::chrono::seconds(10));
    (void)stub->CancelJob(&context, request, &info);
  }
}

// Records whose (job, task, sentence) appears more than once: a result
// stored twice. The random policy never proposes a schedule it has seen,
// so in a healthy server this is 0.
int64_t RecordsStoredTwice(const RecordsStore& reader, const std::vector<int64_t>& jobs,
                           int64_t* total) {
  int64_t twice = 0;
  for (int64_t id : jobs) {
    auto records = reader.JobRecords(id);
    if (!records.ok()) continue;
    std::set<std::pair<int, std::string>> seen;
    for (const StoredRecord& r : *records) {
      ++*total;
      if (!seen.emplace(r.task_index, r.steps).second) ++twice;
    }
  }
  return twice;
}

int Main(int argc, char** argv) {
  Options opt;
  CLI::App app{"Scheduler server under load from simulated workers on loopback"};
  app.add_option("--workers", opt.workers, "worker counts, one level each")->delimiter(',');
  app.add_option("--seconds", opt.seconds, "steady-state window per level");
  app.add_option("--warmup", opt.warmup_s, "seconds after the workers registered, not counted");
  app.add_option("--jobs", opt.jobs.jobs,
                 "tuning jobs keeping the queue fed (0: enough for the largest level)");
  app.add_option("--per-round", opt.jobs.per_round, "candidates per job round");
  app.add_option("--max-candidates", opt.max_candidates, "per LeaseBatch");
  app.add_option("--wait-ms", opt.wait_ms, "LeaseBatch long poll");
  app.add_option("--measure-ms", opt.measure_ms, "synthetic measurement time per candidate");
  app.add_option("--connections", opt.connections, "gRPC connections (0: one per worker)");
  app.add_option("--drivers", opt.drivers,
                 "threads driving the simulated workers asynchronously (0: a thread per worker)");
  app.add_option("--max-rss-mib", opt.max_rss_mib,
                 "end a window early, and run no further level, past this RSS (0: no cap)");
  app.add_flag("--keep-db", opt.keep_db, "keep the temporary database");
  app.add_flag("--quick", opt.quick, "levels 10,100 for 3 s each");
  CLI11_PARSE(app, argc, argv);
  if (opt.quick) {
    opt.workers = {10, 100};
    opt.seconds = 3;
  }
  if (opt.jobs.jobs <= 0) {
    const int max_workers = *std::max_element(opt.workers.begin(), opt.workers.end());
    opt.jobs.jobs = JobsToKeepBusy(max_workers, opt.max_candidates, opt.jobs.per_round);
  }
  const Clock::time_point start = Clock::now();
  RaiseFileLimit();

  std::printf(
      "bench_service_load: every worker here is SIMULATED: it leases real candidates, "
      "sleeps %.1f ms per candidate instead of measuring, and reports synthetic ok "
      "results. No program is built or run; the rates and latencies below are the "
      "server's handling of them, never kernel measurements.\n",
      opt.measure_ms);
  std::printf(
      "load average at start: %.2f (2 shared cores: rates drop when others run; the "
      "'others' column says how much they took)\n",
      LoadAverage1());

  const TempDir dir(opt.keep_db);
  if (dir.path().empty()) {
    std::fprintf(stderr, "cannot create a temporary directory\n");
    return 1;
  }
  ServerOptions server_options;
  server_options.listen = "127.0.0.1:0";
  server_options.db = dir.path() + "/records.db";
  server_options.jobs.max_running_jobs = opt.jobs.jobs;
  server_options.jobs.max_pending_jobs = std::max(64, opt.jobs.jobs);
  auto server = PrunerServer::Start(server_options);
  if (!server.ok()) {
    std::fprintf(stderr, "server: %s\n", std::string(server.status().message()).c_str());
    return 1;
  }
  auto reader = RecordsStore::Open(server_options.db);
  auto channel = MakeChannel((*server)->address(), ClientSecurity{});
  if (!reader.ok() || !channel.ok()) {
    std::fprintf(stderr, "cannot open the database or a channel\n");
    return 1;
  }
  const v1::Device device = SimulatedDevice();
  if (!RegisterDevice(*channel, device)) return 1;
  const std::vector<int64_t> jobs = SubmitJobs(*channel, LoadJobSpecs(opt.jobs, device.key()));
  if (jobs.empty()) return 1;
  // A sample of the jobs is watched: each stream holds a server thread that
  // wakes five times a second, a cost of the measurement, not of the load.
  JobWatcher watcher(*channel);
  const size_t watched = std::min<size_t>(jobs.size(), kWatchedJobs);
  for (size_t i = 0; i < watched; ++i) watcher.Watch(jobs[i]);
  const MemorySample baseline = SampleMemory();
  std::printf(
      "server on %s, database %s; %zu jobs (random search, %d per round: up to %zu "
      "candidates in flight) on '%s', %zu of them watched; before the first level: RSS "
      "%.0f MiB, %d threads\n",
      (*server)->address().c_str(), server_options.db.c_str(), jobs.size(), opt.jobs.per_round,
      jobs.size() * opt.jobs.per_round, device.key().c_str(), watched, baseline.rss_mib,
      baseline.threads);
  const std::string driven = opt.drivers > 0
                                 ? absl::StrCat(opt.drivers, " completion-queue threads")
                                 : std::string("one thread each");
  const std::string connected = opt.connections > 0
                                    ? absl::StrCat(opt.connections, " connections in all")
                                    : std::string("one connection each");
  std::printf("simulated workers driven by %s, %s\n", driven.c_str(), connected.c_str());

  std::vector<LevelResult> levels;
  for (size_t i = 0; i < opt.workers.size(); ++i) {
    LevelSettings level;
    level.fleet.workers = opt.workers[i];
    level.fleet.connections = opt.connections;
    level.fleet.drivers = opt.drivers;
    level.fleet.name_prefix = absl::StrCat("sim", i);
    level.fleet.worker.device = device;
    level.fleet.worker.max_candidates = opt.max_candidates;
    level.fleet.worker.wait_ms = opt.wait_ms;
    level.fleet.worker.measure_ms = opt.measure_ms;
    level.warmup_s = opt.warmup_s;
    level.seconds = opt.seconds;
    level.max_rss_mib = opt.max_rss_mib;
    levels.push_back(RunLevel(**server, **reader, watcher, level));
    const LevelResult& r = levels.back();
    std::printf(
        "W=%-5d %d registered in %.2f s; %.0f results/s ingested (simulated workers), "
        "dispatch p50 %.2f ms p99 %.2f ms, %lld duplicates, %lld RPC errors, "
        "%lld heartbeats, %lld empty polls, %d threads, RSS %.0f MiB, stopped in %.2f s\n",
        r.workers, r.registered, r.start_s, r.results_per_s, r.dispatch_p50_ms, r.dispatch_p99_ms,
        static_cast<long long>(r.duplicates), static_cast<long long>(r.rpc_errors),
        static_cast<long long>(r.heartbeats), static_cast<long long>(r.empty_polls), r.threads_peak,
        r.rss_peak_mib, r.stop_s);
    std::fflush(stdout);
    if (r.over_memory) {
      std::printf(
          "RSS passed --max-rss-mib %.0f: the window ended after %.1f s and no further "
          "level runs (the jobs keep ~10 KiB per measured candidate)\n",
          opt.max_rss_mib, r.window_s);
      break;
    }
  }

  watcher.Stop();
  CancelJobs(*channel, jobs);
  (*server)->Shutdown();
  const std::vector<std::string> watch_failures = watcher.Failures();
  for (const std::string& f : watch_failures) std::printf("watch stream failed: %s\n", f.c_str());
  int64_t total_records = 0;
  const int64_t twice = RecordsStoredTwice(**reader, jobs, &total_records);
  PrintLevelTables(levels, opt.seconds, opt.warmup_s, opt.measure_ms);
  const MemorySample memory = SampleMemory();
  std::printf("\nrecords stored twice: %lld of %lld (synthetic records; %s)\n",
              static_cast<long long>(twice), static_cast<long long>(total_records),
              opt.keep_db ? absl::StrCat("kept in ", server_options.db).c_str()
                          : "the database is removed");
  std::printf(
      "peak RSS of the process: %.0f MiB (server, jobs and every simulated worker "
      "together); the machine has 24 GiB\n",
      memory.hwm_mib);

  const double wall_s = std::chrono::duration<double>(Clock::now() - start).count();
  int64_t duplicates = twice;
  int64_t errors = 0;
  for (const LevelResult& r : levels) {
    duplicates += r.duplicates;
    errors += r.rpc_errors;
  }
  std::printf("%s\n", ResultLine(levels, duplicates, errors, memory.hwm_mib, wall_s).c_str());

  return duplicates == 0 ? 0 : 1;
}

}  // namespace
}  // namespace pruner::bench

int main(int argc, char** argv) { return pruner::bench::Main(argc, argv); }
