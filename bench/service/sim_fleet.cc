#include "bench/service/sim_fleet.h"

#include <pthread.h>
#include <time.h>

#include <algorithm>

#include "absl/strings/str_format.h"
#include "bench/service/sample_stats.h"

namespace pruner::bench {
namespace {

std::shared_ptr<grpc::Channel> OwnConnection(const std::string& address) {
  grpc::ChannelArguments args;
  // As MakeChannel (proto/rpc_credentials.h): a proxy in the environment
  // must not capture loopback traffic.
  args.SetInt(GRPC_ARG_ENABLE_HTTP_PROXY, 0);
  // A pool of its own: this channel opens its own TCP connection instead of
  // sharing the one every equal channel would share.
  args.SetInt(GRPC_ARG_USE_LOCAL_SUBCHANNEL_POOL, 1);
  return grpc::CreateCustomChannel(address, grpc::InsecureChannelCredentials(), args);
}

// One completion queue's thread: hands each event to its worker until all
// of them are done, then drains the queue.
void Drive(grpc::CompletionQueue* cq, int workers) {
  pthread_setname_np(pthread_self(), "sim-driver");
  int done = 0;
  if (workers == 0) cq->Shutdown();
  void* tag = nullptr;
  bool ok = false;
  while (cq->Next(&tag, &ok)) {
    if (static_cast<AsyncSimWorker*>(tag)->OnEvent(ok) && ++done == workers) cq->Shutdown();
  }
}

}  // namespace

SimFleet::SimFleet(const std::string& address, const FleetSettings& settings) {
  const int n = settings.workers;
  const int n_channels =
      settings.connections <= 0 ? n : std::min(settings.connections, std::max(1, n));
  for (int i = 0; i < n_channels; ++i) channels_.push_back(OwnConnection(address));
  if (settings.drivers > 0) {
    for (int d = 0; d < settings.drivers; ++d) {
      queues_.push_back(std::make_unique<grpc::CompletionQueue>());
    }
    async_workers_.resize(queues_.size());
  }
  for (int i = 0; i < n; ++i) {
    std::string name = absl::StrFormat("%s-w%04d", settings.name_prefix, i);
    const std::shared_ptr<grpc::Channel>& channel = channels_[i % n_channels];
    if (queues_.empty()) {
      workers_.push_back(std::make_unique<SimWorker>(std::move(name), channel, settings.worker));
    } else {
      const size_t q = static_cast<size_t>(i) % queues_.size();
      async_workers_[q].push_back(std::make_unique<AsyncSimWorker>(
          std::move(name), channel, settings.worker, queues_[q].get(), &stop_));
    }
  }
}

SimFleet::~SimFleet() { Stop(); }

bool SimFleet::AllSettled() const {
  for (const auto& w : workers_) {
    if (!w->settled()) return false;
  }
  for (const auto& queue : async_workers_) {
    for (const auto& w : queue) {
      if (!w->settled()) return false;
    }
  }
  return true;
}

int SimFleet::Start(std::chrono::milliseconds timeout) {
  for (auto& worker : workers_) {
    SimWorker* w = worker.get();
    threads_.emplace_back([this, w] { w->Run(stop_); });
  }
  for (size_t q = 0; q < queues_.size(); ++q) {
    for (auto& w : async_workers_[q]) w->Start();
    grpc::CompletionQueue* cq = queues_[q].get();
    const int n = static_cast<int>(async_workers_[q].size());
    threads_.emplace_back([cq, n] { Drive(cq, n); });
  }
  const auto deadline = SimClock::now() + timeout;
  while (SimClock::now() < deadline && !AllSettled()) {
    std::this_thread::sleep_for(std::chrono::milliseconds(20));
  }
  int registered = 0;
  for (const SimWorkerStats* s : AllStats()) registered += s->registered ? 1 : 0;
  return registered;
}

void SimFleet::Stop() {
  stop_.store(true);
  if (threads_.empty()) {
    // Never started: no driver will shut its queue down, and a queue must
    // be shut down and drained before it is destroyed.
    for (auto& queue : queues_) {
      queue->Shutdown();
      void* tag = nullptr;
      bool ok = false;
      while (queue->Next(&tag, &ok)) {
      }
    }
    queues_.clear();
    return;
  }
  for (std::thread& t : threads_) {
    if (t.joinable()) t.join();
  }
}

double SimFleet::ThreadsCpuSeconds() const {
  double total = 0;
  for (const std::thread& t : threads_) {
    clockid_t clock;
    timespec ts{};
    // const_cast: native_handle() is not const; reading the clock changes
    // nothing.
    if (pthread_getcpuclockid(const_cast<std::thread&>(t).native_handle(), &clock) != 0) continue;
    if (clock_gettime(clock, &ts) != 0) continue;
    total += static_cast<double>(ts.tv_sec) + static_cast<double>(ts.tv_nsec) / 1e9;
  }
  return total;
}

std::vector<const SimWorkerStats*> SimFleet::AllStats() const {
  std::vector<const SimWorkerStats*> all;
  for (const auto& w : workers_) all.push_back(&w->stats());
  for (const auto& queue : async_workers_) {
    for (const auto& w : queue) all.push_back(&w->stats());
  }
  return all;
}

FleetStats SimFleet::Stats() const {
  FleetStats out;
  std::vector<double> register_ms;
  for (const SimWorkerStats* s : AllStats()) {
    ++out.workers;
    if (s->registered) {
      ++out.registered;
      register_ms.push_back(s->register_ms);
    }
    out.leases += s->leases;
    out.empty_polls += s->empty_polls;
    out.candidates += s->candidates;
    out.accepted += s->accepted;
    out.duplicates += s->duplicates;
    out.unknown += s->unknown;
    out.heartbeats += s->heartbeats;
    out.revoked += s->revoked;
    out.reregistered += s->reregistered;
    for (const auto& [what, n] : s->rpc_errors) {
      out.rpc_errors[what] += n;
      out.rpc_error_total += n;
    }
    out.lease_samples.insert(out.lease_samples.end(), s->lease_samples.begin(),
                             s->lease_samples.end());
    out.report_samples.insert(out.report_samples.end(), s->report_samples.begin(),
                              s->report_samples.end());
  }
  out.register_p50_ms = Percentile(register_ms, 0.5);
  out.register_max_ms = Percentile(register_ms, 1.0);
  return out;
}

}  // namespace pruner::bench
