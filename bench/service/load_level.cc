#include "bench/service/load_level.h"

#include <algorithm>
#include <atomic>
#include <thread>

#include "bench/service/process_stats.h"
#include "bench/service/sample_stats.h"
#include "bench/service/sim_fleet.h"

namespace pruner::bench {
namespace {

using Clock = std::chrono::steady_clock;

double SecondsBetween(Clock::time_point a, Clock::time_point b) {
  return std::chrono::duration<double>(b - a).count();
}

int64_t CountOrZero(const RecordsStore& reader) {
  auto n = reader.CountRecords();
  return n.ok() ? *n : 0;
}

// Samples memory (the whole level), the queue depth and the records table
// (the window only) every 100 ms on its own thread, so that peaks between
// the window's ends are seen. The depth comes from the dispatcher's
// counters (one lock, O(1)), not from per-job queue stats, which walk every
// pending candidate under the dispatcher's lock and would slow the very
// thing measured. The table is counted every 200 ms on the second store's
// own connection (a few ms per count).
class Sampler {
 public:
  Sampler(Dispatcher& dispatcher, const RecordsStore& reader, double max_rss_mib)
      : dispatcher_(dispatcher), reader_(reader), max_rss_mib_(max_rss_mib) {
    thread_ = std::thread([this] { Loop(); });
  }
  ~Sampler() { Stop(); }

  void SetInWindow(bool in) { in_window_.store(in); }
  bool over_memory() const { return over_memory_.load(); }
  void Stop() {
    stop_.store(true);
    if (thread_.joinable()) thread_.join();
  }

  int threads_peak = 0;
  double rss_peak_mib = 0;
  double vm_peak_mib = 0;
  std::vector<double> queued;
  std::vector<std::pair<Clock::time_point, int64_t>> records;

 private:
  void Loop() {
    for (int64_t tick = 0; !stop_.load(); ++tick) {
      const MemorySample m = SampleMemory();
      threads_peak = std::max(threads_peak, m.threads);
      rss_peak_mib = std::max(rss_peak_mib, m.rss_mib);
      vm_peak_mib = std::max(vm_peak_mib, m.vm_mib);
      if (max_rss_mib_ > 0 && m.rss_mib > max_rss_mib_) over_memory_.store(true);
      if (in_window_.load()) {
        // Every submitted or re-queued candidate waits until it is leased.
        // Exact while nothing is cancelled and no late result arrives for
        // a re-queued candidate; the level reports both.
        const Dispatcher::Counters c = dispatcher_.counters();
        queued.push_back(static_cast<double>(c.submitted + c.requeued - c.leased));
        if (tick % 2 == 0) records.emplace_back(Clock::now(), CountOrZero(reader_));
      }
      std::this_thread::sleep_for(std::chrono::milliseconds(100));
    }
  }

  Dispatcher& dispatcher_;
  const RecordsStore& reader_;
  const double max_rss_mib_;
  std::atomic<bool> over_memory_{false};
  std::atomic<bool> stop_{false};
  std::atomic<bool> in_window_{false};
  std::thread thread_;
};

// Sleeps `seconds`, or less if the process outgrows its memory cap.
void SleepUnlessOverMemory(double seconds, const Sampler& sampler) {
  const Clock::time_point end = Clock::now() + std::chrono::duration_cast<Clock::duration>(
                                                   std::chrono::duration<double>(seconds));
  while (Clock::now() < end && !sampler.over_memory()) {
    std::this_thread::sleep_until(std::min(end, Clock::now() + std::chrono::milliseconds(50)));
  }
}

}  // namespace

LevelResult RunLevel(PrunerServer& server, const RecordsStore& reader, const JobWatcher& watcher,
                     const LevelSettings& settings) {
  LevelResult r;
  r.workers = settings.fleet.workers;
  const Dispatcher::Counters before = server.dispatcher().counters();
  r.rss_before_mib = SampleMemory().rss_mib;
  Sampler sampler(server.dispatcher(), reader, settings.max_rss_mib);

  SimFleet fleet(server.address(), settings.fleet);
  const Clock::time_point started = Clock::now();
  r.registered = fleet.Start(std::chrono::seconds(60));
  r.start_s = SecondsBetween(started, Clock::now());

  SleepUnlessOverMemory(settings.warmup_s, sampler);

  // The window. Its two ends read the same things in the same order.
  const Clock::time_point t0 = Clock::now();
  const int64_t records0 = CountOrZero(reader);
  const int64_t completed0 = server.dispatcher().counters().completed;
  const ProcessCpu cpu0 = SampleProcessCpu();
  const double busy0 = MachineBusySeconds();
  const double sim_cpu0 = fleet.ThreadsCpuSeconds();
  sampler.SetInWindow(true);
  SleepUnlessOverMemory(settings.seconds, sampler);
  sampler.SetInWindow(false);
  r.over_memory = sampler.over_memory();
  const Clock::time_point t1 = Clock::now();
  const int64_t records1 = CountOrZero(reader);
  const int64_t completed1 = server.dispatcher().counters().completed;
  const ProcessCpu cpu1 = SampleProcessCpu();
  const double busy1 = MachineBusySeconds();
  const double sim_cpu1 = fleet.ThreadsCpuSeconds();

  const Clock::time_point stopping = Clock::now();
  fleet.Stop();
  r.stop_s = SecondsBetween(stopping, Clock::now());
  sampler.Stop();
  const Dispatcher::Counters after = server.dispatcher().counters();

  r.window_s = SecondsBetween(t0, t1);
  r.db_records = records1 - records0;
  // The jobs write whole rounds, and the dispatcher's round-robin makes
  // their rounds end together when the workers are the bottleneck, so the
  // table grows in steps of up to jobs x per-round rows; see StepwiseRate.
  std::vector<CountSample> counts = {{0, records0}};
  for (const auto& [at, n] : sampler.records) {
    counts.push_back({SecondsBetween(t0, at), n});
  }
  counts.push_back({r.window_s, records1});
  r.results_per_s = StepwiseRate(counts);
  r.completed = completed1 - completed0;
  r.completed_per_s = static_cast<double>(r.completed) / r.window_s;
  r.cpu_cores = (cpu1.user_s + cpu1.system_s - cpu0.user_s - cpu0.system_s) / r.window_s;
  r.others_cores = std::max(0.0, (busy1 - busy0) / r.window_s - r.cpu_cores);
  r.system_cores = (cpu1.system_s - cpu0.system_s) / r.window_s;
  r.context_switches_per_s =
      static_cast<double>(cpu1.context_switches - cpu0.context_switches) / r.window_s;
  r.sim_cpu_cores = (sim_cpu1 - sim_cpu0) / r.window_s;
  r.rounds = watcher.Window(t0, t1);

  const FleetStats fs = fleet.Stats();
  r.register_p50_ms = fs.register_p50_ms;
  r.register_max_ms = fs.register_max_ms;
  auto in_window = [&](const std::vector<CallSample>& samples) {
    std::vector<double> ms;
    for (const CallSample& s : samples) {
      if (s.at >= t0 && s.at < t1) ms.push_back(s.rtt_ms);
    }
    return ms;
  };
  const std::vector<double> rtts = in_window(fs.lease_samples);
  const std::vector<double> reports = in_window(fs.report_samples);
  r.report_p50_ms = Percentile(reports, 0.50);
  r.report_p99_ms = Percentile(reports, 0.99);
  r.leases = static_cast<int64_t>(rtts.size());
  r.dispatch_p50_ms = Percentile(rtts, 0.50);
  r.dispatch_p99_ms = Percentile(rtts, 0.99);
  r.dispatch_max_ms = Percentile(rtts, 1.0);
  r.empty_polls = fs.empty_polls;
  r.queued_mean = Mean(sampler.queued);
  if (!sampler.queued.empty()) {
    const auto dry = std::count(sampler.queued.begin(), sampler.queued.end(), 0.0);
    r.dry_fraction = static_cast<double>(dry) / static_cast<double>(sampler.queued.size());
  }

  r.duplicates = after.duplicates - before.duplicates;
  r.report_duplicates = fs.duplicates;
  r.report_unknown = fs.unknown;
  r.expired_leases = after.expired_leases - before.expired_leases;
  r.requeued = after.requeued - before.requeued;
  r.given_up = after.given_up - before.given_up;
  r.heartbeats = fs.heartbeats;
  r.reregistered = fs.reregistered;
  r.rpc_errors = fs.rpc_error_total;
  r.rpc_error_kinds = fs.rpc_errors;
  r.threads_peak = sampler.threads_peak;
  r.rss_peak_mib = sampler.rss_peak_mib;
  r.vm_peak_mib = sampler.vm_peak_mib;
  return r;
}

}  // namespace pruner::bench
