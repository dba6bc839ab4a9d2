#include "bench/service/chaos_driver.h"

#include <signal.h>

#include <cmath>
#include <cstdio>
#include <random>
#include <utility>

namespace pruner::chaos {

using std::chrono::milliseconds;

ChaosDriver::ChaosDriver(e2e::Farm* farm, std::vector<std::string> worker_names,
                         ChaosOptions options)
    : farm_(farm), names_(std::move(worker_names)), options_(std::move(options)) {}

ChaosDriver::~ChaosDriver() {
  Stop();
  {
    std::lock_guard<std::mutex> lock(mu_);
    exit_ = true;
  }
  cv_.notify_all();
  if (faults_.joinable()) faults_.join();
}

void ChaosDriver::StartWorkers() {
  workers_.clear();
  for (const std::string& name : names_) {
    workers_.push_back(farm_->StartWorker(name, options_.worker_flags));
  }
}

void ChaosDriver::Start(const v1::Device& device) {
  {
    std::lock_guard<std::mutex> lock(mu_);
    running_ = true;
    idle_ = false;
  }
  cv_.notify_all();
  if (!faults_.joinable()) faults_ = std::thread([this] { FaultLoop(); });
  garbage_ = std::thread([this, device] { GarbageLoop(device); });
}

void ChaosDriver::Stop() {
  {
    std::unique_lock<std::mutex> lock(mu_);
    running_ = false;
    cv_.notify_all();
    cv_.wait(lock, [this] { return idle_; });
  }
  if (garbage_.joinable()) garbage_.join();
}

ChaosCounts ChaosDriver::counts() const {
  std::lock_guard<std::mutex> lock(mu_);
  return counts_;
}

bool ChaosDriver::SleepFor(milliseconds d) {
  std::unique_lock<std::mutex> lock(mu_);
  return !cv_.wait_for(lock, d, [this] { return !Running(); });
}

void ChaosDriver::FaultLoop() {
  std::mt19937_64 rng(options_.seed);
  std::uniform_int_distribution<int64_t> gap(options_.min_gap.count(), options_.max_gap.count());
  std::uniform_real_distribution<double> unit(0, 1);
  while (true) {
    {
      std::unique_lock<std::mutex> lock(mu_);
      idle_ = true;
      cv_.notify_all();
      cv_.wait(lock, [this] { return running_ || exit_; });
      if (exit_) return;
      idle_ = false;
    }
    RunFaults(rng, gap, unit);
  }
}

void ChaosDriver::RunFaults(std::mt19937_64& rng, std::uniform_int_distribution<int64_t>& gap,
                            std::uniform_real_distribution<double>& unit) {
  while (SleepFor(milliseconds(gap(rng)))) {
    const double pick = unit(rng);
    if (pick < options_.server_kill_share) {
      // The server dies mid-round; jobs resume from the database on restart.
      const int port = farm_->port();
      farm_->KillServer(SIGKILL);
      {
        std::lock_guard<std::mutex> lock(mu_);
        ++counts_.server_kills;
      }
      std::this_thread::sleep_for(options_.down_for);
      std::string error;
      if (!farm_->StartServer(port, &error)) {
        std::fprintf(stderr, "chaos: the server did not come back on port %d:\n%s\n", port,
                     error.c_str());
        std::abort();
      }
      std::lock_guard<std::mutex> lock(mu_);
      ++counts_.server_restarts;
      continue;
    }
    const size_t w = std::uniform_int_distribution<size_t>(0, workers_.size() - 1)(rng);
    if (pick < options_.server_kill_share + (1 - options_.server_kill_share) / 2) {
      farm_->Kill(workers_[w], SIGKILL);
      {
        std::lock_guard<std::mutex> lock(mu_);
        ++counts_.worker_kills;
      }
      std::this_thread::sleep_for(options_.down_for);
      workers_[w] = farm_->StartWorker(names_[w], options_.worker_flags);
      std::lock_guard<std::mutex> lock(mu_);
      ++counts_.worker_restarts;
    } else {
      // A hung host: alive, silent past the lease timeout, then back with
      // results for leases the server has already given to others.
      e2e::Farm::Signal(workers_[w], SIGSTOP);
      std::this_thread::sleep_for(options_.stop_for);
      e2e::Farm::Signal(workers_[w], SIGCONT);
      std::lock_guard<std::mutex> lock(mu_);
      ++counts_.stops;
    }
  }
}

void ChaosDriver::GarbageLoop(v1::Device device) {
  const double lies[] = {std::nan(""), 1e-30, -1e-3};
  std::string worker_id;
  int next_lie = 0;
  while (SleepFor(milliseconds(100))) {
    auto stub = farm_->WorkerStub();
    if (worker_id.empty()) {
      v1::RegisterRequest request;
      request.set_name("garbage");
      request.set_slots(1);
      *request.mutable_device() = device;
      v1::RegisterReply reply;
      auto context = farm_->Context(milliseconds(2000));
      if (!stub->Register(context.get(), request, &reply).ok()) continue;
      worker_id = reply.worker_id();
    }
    v1::LeaseRequest request;
    request.set_worker_id(worker_id);
    request.set_max_candidates(4);
    request.set_wait_ms(1000);
    v1::Lease lease;
    auto context = farm_->Context(milliseconds(3000));
    const grpc::Status status = stub->LeaseBatch(context.get(), request, &lease);
    if (!status.ok()) {
      // A restarted server forgot us (NOT_FOUND), or is down: register again.
      worker_id.clear();
      continue;
    }
    if (lease.candidates().empty()) continue;
    v1::ReportRequest report;
    report.set_worker_id(worker_id);
    report.set_lease_id(lease.lease_id());
    for (const v1::Candidate& c : lease.candidates()) {
      v1::CandidateResult* r = report.add_results();
      r->set_measurement_id(c.measurement_id());
      const double lie = lies[next_lie++ % 3];
      r->mutable_result()->set_mean_s(lie);
      r->mutable_result()->add_repeat_costs_s(lie);
    }
    v1::ReportReply reply;
    auto report_context = farm_->Context(milliseconds(3000));
    if (!stub->ReportResults(report_context.get(), report, &reply).ok()) continue;
    std::lock_guard<std::mutex> lock(mu_);
    counts_.garbage_reports += report.results_size();
    counts_.garbage_refused += reply.implausible();
  }
}

}  // namespace pruner::chaos
