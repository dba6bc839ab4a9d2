// The dispatcher alone (no gRPC): device matching, lease expiry and
// re-queueing, idempotent results, fairness between jobs, cancellation,
// back-pressure.
#include "server/dispatcher.h"

#include <cmath>
#include <optional>
#include <thread>

#include "gmock/gmock.h"
#include "gtest/gtest.h"

namespace pruner {
namespace {

using std::chrono::milliseconds;

v1::RegisterRequest Worker(const std::string& name, const std::string& device_key) {
  v1::RegisterRequest r;
  r.set_name(name);
  r.mutable_device()->set_key(device_key);
  r.set_slots(1);
  return r;
}

BatchSpec Spec(int64_t job, const std::string& device_key) {
  BatchSpec spec;
  spec.job_id = job;
  spec.task_index = 0;
  spec.workload.set_key("wk");
  spec.target.set_key(device_key);
  return spec;
}

v1::CandidateResult Ok(const std::string& id, double seconds) {
  v1::CandidateResult r;
  r.set_measurement_id(id);
  r.mutable_result()->set_mean_s(seconds);
  r.mutable_result()->add_repeat_costs_s(seconds);
  return r;
}

std::vector<v1::CandidateResult> AllOk(const v1::Lease& lease, double seconds) {
  std::vector<v1::CandidateResult> out;
  for (const v1::Candidate& c : lease.candidates()) out.push_back(Ok(c.measurement_id(), seconds));
  return out;
}

DispatcherOptions FastOptions() {
  DispatcherOptions o;
  o.lease_timeout = milliseconds(200);
  o.heartbeat_interval = milliseconds(50);
  o.max_attempts = 3;
  return o;
}

TEST(DispatcherTest, LeasesOnlyToMatchingDevice) {
  Dispatcher d(FastOptions());
  const std::string cpu = d.RegisterWorker(Worker("cpu-worker", "cpu-x"));
  const std::string gpu = d.RegisterWorker(Worker("gpu-worker", "a100-40gb"));
  auto batch = d.Submit(Spec(1, "a100-40gb"), {"s1", "s2"});
  ASSERT_TRUE(batch.ok());
  bool unknown = false;
  EXPECT_FALSE(d.Lease(cpu, 8, milliseconds(50), &unknown).has_value());
  EXPECT_FALSE(unknown);
  auto lease = d.Lease(gpu, 8, milliseconds(50), &unknown);
  ASSERT_TRUE(lease.has_value());
  EXPECT_EQ(lease->candidates_size(), 2);
  EXPECT_EQ(lease->device().key(), "a100-40gb");
  EXPECT_GT(lease->hard_deadline_unix_ms(), 0);
  ReportOutcome out = d.Report(gpu, lease->lease_id(), AllOk(*lease, 1e-3), "");
  EXPECT_EQ(out.accepted, 2);
  auto results = d.Wait(*batch);
  ASSERT_TRUE(results.ok()) << results.status();
  ASSERT_EQ(results->size(), 2u);
  EXPECT_EQ((*results)[0].result.measured_by(), "gpu-worker");
  EXPECT_GE((*results)[0].result.queue_wait_s(), 0);
}

TEST(DispatcherTest, UnknownWorkerIsToldToRegister) {
  Dispatcher d(FastOptions());
  bool unknown = false;
  EXPECT_FALSE(d.Lease("w-nobody", 1, milliseconds(10), &unknown).has_value());
  EXPECT_TRUE(unknown);
  std::vector<std::string> revoked;
  EXPECT_FALSE(d.Heartbeat("w-nobody", {}, &revoked));
}

TEST(DispatcherTest, DuplicateAndUnknownResultsAreIgnored) {
  Dispatcher d(FastOptions());
  const std::string w = d.RegisterWorker(Worker("w", "cpu-x"));
  auto batch = d.Submit(Spec(1, "cpu-x"), {"s1"});
  ASSERT_TRUE(batch.ok());
  bool unknown = false;
  auto lease = d.Lease(w, 8, milliseconds(50), &unknown);
  ASSERT_TRUE(lease.has_value());
  const std::string id = lease->candidates(0).measurement_id();
  EXPECT_EQ(d.Report(w, lease->lease_id(), {Ok(id, 2e-3)}, "").accepted, 1);
  // The same delivery again (a retried RPC) and a bogus id.
  ReportOutcome again = d.Report(w, lease->lease_id(), {Ok(id, 9e-3), Ok("m-bogus", 1)}, "");
  EXPECT_EQ(again.accepted, 0);
  EXPECT_EQ(again.duplicates, 1);
  EXPECT_EQ(again.unknown, 1);
  auto results = d.Wait(*batch);
  ASSERT_TRUE(results.ok());
  EXPECT_DOUBLE_EQ((*results)[0].result.mean_s(), 2e-3);  // the first one counts
  EXPECT_EQ(d.counters().completed, 1);
  EXPECT_EQ(d.counters().duplicates, 1);
}

TEST(DispatcherTest, SilentWorkerLeaseIsRequeuedToAnotherWorker) {
  Dispatcher d(FastOptions());
  const std::string silent = d.RegisterWorker(Worker("silent", "cpu-x"));
  auto batch = d.Submit(Spec(1, "cpu-x"), {"s1", "s2", "s3"});
  ASSERT_TRUE(batch.ok());
  bool unknown = false;
  auto lost = d.Lease(silent, 8, milliseconds(50), &unknown);
  ASSERT_TRUE(lost.has_value());
  EXPECT_EQ(lost->candidates_size(), 3);
  const auto t0 = Dispatcher::Clock::now();
  // No heartbeat: the reaper expires the lease and declares the worker dead.
  const std::string healthy = d.RegisterWorker(Worker("healthy", "cpu-x"));
  std::optional<v1::Lease> again;
  while (!again.has_value() && Dispatcher::Clock::now() - t0 < std::chrono::seconds(5)) {
    std::vector<std::string> revoked;
    d.Heartbeat(healthy, {}, &revoked);
    again = d.Lease(healthy, 8, milliseconds(50), &unknown);
  }
  ASSERT_TRUE(again.has_value());
  const double requeue_s = std::chrono::duration<double>(Dispatcher::Clock::now() - t0).count();
  std::printf("re-queued after %.3f s (lease timeout 0.200 s)\n", requeue_s);
  EXPECT_LT(requeue_s, 0.2 * 2 + 0.5);  // one timeout plus reaper period and slack
  EXPECT_EQ(again->candidates_size(), 3);
  // Same measurement ids: a candidate keeps its id across leases.
  for (int i = 0; i < 3; ++i) {
    bool found = false;
    for (const auto& c : lost->candidates()) found |= c.measurement_id() == again->candidates(i).measurement_id();
    EXPECT_TRUE(found);
  }
  // The silent worker wakes up and reports late: its results count (they
  // are real measurements); the healthy worker's then are duplicates.
  EXPECT_EQ(d.Report(silent, lost->lease_id(), AllOk(*lost, 1e-3), "").accepted, 3);
  EXPECT_EQ(d.Report(healthy, again->lease_id(), AllOk(*again, 5e-3), "").duplicates, 3);
  auto results = d.Wait(*batch);
  ASSERT_TRUE(results.ok());
  for (const DispatchedResult& r : *results) EXPECT_DOUBLE_EQ(r.result.mean_s(), 1e-3);
  EXPECT_EQ(d.counters().completed, 3);
  EXPECT_EQ(d.counters().given_up, 0);
  std::vector<std::string> revoked;
  EXPECT_FALSE(d.Heartbeat(silent, {lost->lease_id()}, &revoked)) << "declared dead";
}

TEST(DispatcherTest, HeartbeatKeepsLeaseAlive) {
  Dispatcher d(FastOptions());
  const std::string w = d.RegisterWorker(Worker("w", "cpu-x"));
  auto batch = d.Submit(Spec(1, "cpu-x"), {"s1"});
  ASSERT_TRUE(batch.ok());
  bool unknown = false;
  auto lease = d.Lease(w, 8, milliseconds(50), &unknown);
  ASSERT_TRUE(lease.has_value());
  for (int i = 0; i < 12; ++i) {  // 600 ms: three lease timeouts
    std::vector<std::string> revoked;
    ASSERT_TRUE(d.Heartbeat(w, {lease->lease_id()}, &revoked));
    EXPECT_TRUE(revoked.empty());
    std::this_thread::sleep_for(milliseconds(50));
  }
  EXPECT_EQ(d.counters().expired_leases, 0);
  EXPECT_EQ(d.Report(w, lease->lease_id(), AllOk(*lease, 1e-3), "").accepted, 1);
}

TEST(DispatcherTest, CandidateThatKeepsLosingLeasesIsGivenUp) {
  DispatcherOptions o = FastOptions();
  o.max_attempts = 2;
  Dispatcher d(o);
  auto batch = d.Submit(Spec(1, "cpu-x"), {"crashes-its-worker"});
  ASSERT_TRUE(batch.ok());
  for (int attempt = 0; attempt < 2; ++attempt) {
    const std::string w = d.RegisterWorker(Worker("w" + std::to_string(attempt), "cpu-x"));
    bool unknown = false;
    auto lease = d.Lease(w, 8, milliseconds(2000), &unknown);
    ASSERT_TRUE(lease.has_value()) << attempt;
    // The worker dies with it: no heartbeat, no report.
  }
  auto results = d.Wait(*batch);
  ASSERT_TRUE(results.ok());
  EXPECT_EQ((*results)[0].result.error(), v1::MEASURE_ERROR_RUN_ERROR);
  EXPECT_EQ((*results)[0].result.phase(), "dispatch");
  EXPECT_EQ(d.counters().given_up, 1);
}

TEST(DispatcherTest, InfrastructureErrorRequeuesUnreportedCandidates) {
  Dispatcher d(FastOptions());
  const std::string w = d.RegisterWorker(Worker("w", "cpu-x"));
  auto batch = d.Submit(Spec(1, "cpu-x"), {"s1", "s2"});
  ASSERT_TRUE(batch.ok());
  bool unknown = false;
  auto lease = d.Lease(w, 8, milliseconds(50), &unknown);
  ASSERT_TRUE(lease.has_value());
  // One result, then the disk filled up.
  d.Report(w, lease->lease_id(), {Ok(lease->candidates(0).measurement_id(), 1e-3)}, "disk full");
  auto retry = d.Lease(w, 8, milliseconds(50), &unknown);
  ASSERT_TRUE(retry.has_value());
  ASSERT_EQ(retry->candidates_size(), 1);
  EXPECT_EQ(retry->candidates(0).measurement_id(), lease->candidates(1).measurement_id());
  d.Report(w, retry->lease_id(), AllOk(*retry, 2e-3), "");
  auto results = d.Wait(*batch);
  ASSERT_TRUE(results.ok());
  EXPECT_TRUE((*results)[1].result.error() == v1::MEASURE_ERROR_NONE);
}

// A 32x32x32 matmul on a 234 GFLOP/s CPU: 1e-30 s is 6.5e16 GFLOP/s.
BatchSpec MatmulSpec() {
  BatchSpec spec = Spec(1, "cpu-x");
  spec.flops = 65536;
  spec.peak_gflops = 234;
  return spec;
}

TEST(DispatcherTest, ImplausibleResultIsMeasuredAgainWithoutCostingAnAttempt) {
  DispatcherOptions o = FastOptions();
  o.max_attempts = 2;
  Dispatcher d(o);
  const std::string rogue = d.RegisterWorker(Worker("rogue", "cpu-x"));
  auto batch = d.Submit(MatmulSpec(), {"s1"});
  ASSERT_TRUE(batch.ok());
  bool unknown = false;
  // Twice a time no CPU can reach: refused, re-queued, and the candidate has
  // not used up its two attempts (it did nothing wrong).
  for (int i = 0; i < 2; ++i) {
    auto lease = d.Lease(rogue, 8, milliseconds(50), &unknown);
    ASSERT_TRUE(lease.has_value()) << i;
    const ReportOutcome out = d.Report(rogue, lease->lease_id(), AllOk(*lease, 1e-30), "");
    EXPECT_EQ(out.implausible, 1);
    EXPECT_EQ(out.accepted, 0);
  }
  const std::string honest = d.RegisterWorker(Worker("honest", "cpu-x"));
  auto lease = d.Lease(honest, 8, milliseconds(50), &unknown);
  ASSERT_TRUE(lease.has_value());
  EXPECT_EQ(d.Report(honest, lease->lease_id(), AllOk(*lease, 2e-6), "").accepted, 1);
  auto results = d.Wait(*batch);
  ASSERT_TRUE(results.ok());
  EXPECT_EQ((*results)[0].result.error(), v1::MEASURE_ERROR_NONE);
  EXPECT_EQ((*results)[0].result.mean_s(), 2e-6);
  EXPECT_EQ((*results)[0].result.measured_by(), "honest");
  EXPECT_EQ(d.counters().implausible, 2);
  EXPECT_EQ(d.counters().given_up, 0);
}

// A dispatcher whose worker "rogue" holds a lease of a two-candidate
// matmul batch; quarantine after `strikes` implausible results.
struct RogueHoldsALease {
  explicit RogueHoldsALease(int strikes) : d([strikes] {
    DispatcherOptions o = FastOptions();
    o.quarantine_after = strikes;
    return o;
  }()) {
    rogue = d.RegisterWorker(Worker("rogue", "cpu-x"));
    absl::StatusOr<std::shared_ptr<BatchHandle>> submitted = d.Submit(MatmulSpec(), {"s1", "s2"});
    EXPECT_TRUE(submitted.ok());
    if (submitted.ok()) batch = *submitted;
    bool unknown = false;
    std::optional<v1::Lease> leased = d.Lease(rogue, 8, milliseconds(50), &unknown);
    EXPECT_TRUE(leased.has_value() && leased->candidates_size() == 2);
    if (leased.has_value()) lease = *leased;
  }
  Dispatcher d;
  std::string rogue;
  std::shared_ptr<BatchHandle> batch;
  v1::Lease lease;
};

TEST(DispatcherTest, RepeatOffenderIsQuarantinedEvenAfterReRegistering) {
  RogueHoldsALease r(2);
  ASSERT_EQ(r.lease.candidates_size(), 2);
  Dispatcher& d = r.d;
  const std::string& rogue = r.rogue;
  const v1::Lease* lease = &r.lease;
  bool unknown = false;
  // NaN for the first and infinity for the second: two strikes, quarantined.
  std::vector<v1::CandidateResult> garbage = AllOk(*lease, std::nan(""));
  garbage[1].mutable_result()->set_mean_s(1e300);
  garbage[1].mutable_result()->set_repeat_costs_s(0, 1e300);
  EXPECT_EQ(d.Report(rogue, lease->lease_id(), garbage, "").implausible, 2);
  EXPECT_EQ(d.counters().quarantined, 1);
  // No more work for it, alive or re-registered under its name.
  EXPECT_FALSE(d.Lease(rogue, 8, milliseconds(50), &unknown).has_value());
  EXPECT_FALSE(unknown);
  const std::string again = d.RegisterWorker(Worker("rogue", "cpu-x"));
  EXPECT_FALSE(d.Lease(again, 8, milliseconds(50), &unknown).has_value());
  bool shown = false;
  for (const WorkerSnapshot& w : d.Workers()) {
    if (w.info.worker_id() != rogue) continue;
    shown = w.info.quarantined();
    EXPECT_EQ(w.info.implausible_reports(), 2);
    EXPECT_THAT(w.info.quarantine_reason(), testing::HasSubstr("2 implausible results; last: "
                                                               "worker rogue: implausible result"));
  }
  EXPECT_TRUE(shown);
  // Both candidates wait for an honest worker.
  const std::string honest = d.RegisterWorker(Worker("honest", "cpu-x"));
  auto retry = d.Lease(honest, 8, milliseconds(50), &unknown);
  ASSERT_TRUE(retry.has_value());
  EXPECT_EQ(retry->candidates_size(), 2);
  d.Report(honest, retry->lease_id(), AllOk(*retry, 1e-6), "");
  auto results = d.Wait(r.batch);
  ASSERT_TRUE(results.ok());
  for (const DispatchedResult& result : *results) EXPECT_EQ(result.result.measured_by(), "honest");
}

TEST(DispatcherTest, ReleasedWorkerGetsLeasesAgainWithItsStrikesCleared) {
  RogueHoldsALease r(1);
  ASSERT_EQ(r.lease.candidates_size(), 2);
  Dispatcher& d = r.d;
  EXPECT_EQ(d.WorkerName(r.rogue), "rogue");
  EXPECT_EQ(d.WorkerName("w-nobody"), std::nullopt);
  EXPECT_FALSE(d.ReleaseWorker("rogue")) << "not quarantined yet";
  std::vector<v1::CandidateResult> garbage = AllOk(r.lease, -1);
  EXPECT_EQ(d.Report(r.rogue, r.lease.lease_id(), garbage, "").implausible, 2);
  bool unknown = false;
  EXPECT_FALSE(d.Lease(r.rogue, 8, milliseconds(50), &unknown).has_value());

  // An admin looked at it (a bad driver, since fixed) and lets it back in.
  EXPECT_TRUE(d.ReleaseWorker("rogue"));
  auto retry = d.Lease(r.rogue, 8, milliseconds(50), &unknown);
  ASSERT_TRUE(retry.has_value());
  EXPECT_EQ(retry->candidates_size(), 2);
  for (const WorkerSnapshot& w : d.Workers()) {
    EXPECT_FALSE(w.info.quarantined());
    EXPECT_EQ(w.info.implausible_reports(), 0);
  }
  // A new registration under the name is no longer quarantined either.
  const std::string again = d.RegisterWorker(Worker("rogue", "cpu-x"));
  for (const WorkerSnapshot& w : d.Workers()) {
    if (w.info.worker_id() == again) EXPECT_FALSE(w.info.quarantined());
  }
  EXPECT_FALSE(d.ReleaseWorker("nobody"));
}

TEST(DispatcherTest, ASecondMeasurementGoesToAnotherWorkerWhenThereIsOne) {
  Dispatcher d(FastOptions());
  const std::string first = d.RegisterWorker(Worker("first", "cpu-x"));
  BatchSpec spec = Spec(1, "cpu-x");
  spec.avoid_worker = "first";
  auto batch = d.Submit(spec, {"s1"});
  ASSERT_TRUE(batch.ok());
  bool unknown = false;
  // Alone, "first" measures it: a second opinion from the same worker
  // beats none.
  auto alone = d.Lease(first, 8, milliseconds(50), &unknown);
  ASSERT_TRUE(alone.has_value());
  d.Report(first, alone->lease_id(), AllOk(*alone, 1e-4), "");
  ASSERT_TRUE(d.Wait(*batch).ok());

  // With another worker of the device alive, "first" passes it over.
  const std::string second = d.RegisterWorker(Worker("second", "cpu-x"));
  auto again = d.Submit(spec, {"s2"});
  ASSERT_TRUE(again.ok());
  EXPECT_FALSE(d.Lease(first, 8, milliseconds(50), &unknown).has_value());
  auto other = d.Lease(second, 8, milliseconds(50), &unknown);
  ASSERT_TRUE(other.has_value());
  d.Report(second, other->lease_id(), AllOk(*other, 1e-4), "");
  auto results = d.Wait(*again);
  ASSERT_TRUE(results.ok());
  EXPECT_EQ((*results)[0].result.measured_by(), "second");
}

TEST(DispatcherTest, NothingAQuarantinedWorkerReportsCounts) {
  RogueHoldsALease r(1);
  ASSERT_EQ(r.lease.candidates_size(), 2);
  Dispatcher& d = r.d;
  const std::string& rogue = r.rogue;
  const v1::Lease* lease = &r.lease;
  bool unknown = false;
  // The first result is impossible; the second looks fine but comes from a
  // worker that has just been caught.
  std::vector<v1::CandidateResult> mixed = AllOk(*lease, 1e-6);
  mixed[0].mutable_result()->set_mean_s(-1);
  const ReportOutcome out = d.Report(rogue, lease->lease_id(), mixed, "");
  EXPECT_EQ(out.accepted, 0);
  EXPECT_EQ(out.implausible, 2);
  const std::string honest = d.RegisterWorker(Worker("honest", "cpu-x"));
  auto retry = d.Lease(honest, 8, milliseconds(50), &unknown);
  ASSERT_TRUE(retry.has_value());
  EXPECT_EQ(retry->candidates_size(), 2);
}

TEST(DispatcherTest, AWorkerCannotReportAnotherWorkersCandidates) {
  Dispatcher d(FastOptions());
  const std::string owner = d.RegisterWorker(Worker("owner", "cpu-x"));
  const std::string stranger = d.RegisterWorker(Worker("stranger", "cpu-x"));
  auto batch = d.Submit(Spec(1, "cpu-x"), {"s1"});
  ASSERT_TRUE(batch.ok());
  bool unknown = false;
  auto lease = d.Lease(owner, 8, milliseconds(50), &unknown);
  ASSERT_TRUE(lease.has_value());
  // The stranger knows the ids (say, from a leaked log) and the lease id.
  ReportOutcome out = d.Report(stranger, lease->lease_id(), AllOk(*lease, 5e-4), "");
  EXPECT_EQ(out.accepted, 0);
  EXPECT_EQ(out.foreign, 1);
  // The lease is still the owner's, and the owner's result counts.
  out = d.Report(owner, lease->lease_id(), AllOk(*lease, 1e-3), "");
  EXPECT_EQ(out.accepted, 1);
  auto results = d.Wait(*batch);
  ASSERT_TRUE(results.ok());
  EXPECT_EQ((*results)[0].result.mean_s(), 1e-3);
  EXPECT_EQ((*results)[0].result.measured_by(), "owner");
  EXPECT_EQ(d.counters().foreign, 1);
}

TEST(DispatcherTest, JobsShareWorkersRoundRobin) {
  Dispatcher d(FastOptions());
  const std::string w = d.RegisterWorker(Worker("w", "cpu-x"));
  auto big = d.Submit(Spec(1, "cpu-x"), std::vector<std::string>(40, "s"));
  auto small = d.Submit(Spec(2, "cpu-x"), std::vector<std::string>(4, "t"));
  ASSERT_TRUE(big.ok() && small.ok());
  bool unknown = false;
  std::vector<int64_t> served;
  for (int i = 0; i < 4; ++i) {
    auto lease = d.Lease(w, 4, milliseconds(50), &unknown);
    ASSERT_TRUE(lease.has_value());
    served.push_back(lease->job_id());
    d.Report(w, lease->lease_id(), AllOk(*lease, 1e-3), "");
  }
  // Job 2 is served second, not after all of job 1's 40 candidates.
  EXPECT_EQ(served[0], 1);
  EXPECT_EQ(served[1], 2);
  ASSERT_TRUE(d.Wait(*small).ok());
}

TEST(DispatcherTest, CancelEndsTheWaitAndRefusesMoreWork) {
  Dispatcher d(FastOptions());
  const std::string w = d.RegisterWorker(Worker("w", "cpu-x"));
  auto batch = d.Submit(Spec(7, "cpu-x"), {"s1", "s2"});
  ASSERT_TRUE(batch.ok());
  bool unknown = false;
  auto lease = d.Lease(w, 1, milliseconds(50), &unknown);
  ASSERT_TRUE(lease.has_value());
  std::thread canceller([&] {
    std::this_thread::sleep_for(milliseconds(50));
    d.CancelJob(7);
  });
  auto results = d.Wait(*batch);
  canceller.join();
  EXPECT_EQ(results.status().code(), absl::StatusCode::kCancelled);
  // The worker's lease is revoked; its late report is ignored.
  std::vector<std::string> revoked;
  EXPECT_TRUE(d.Heartbeat(w, {lease->lease_id()}, &revoked));
  EXPECT_EQ(revoked.size(), 1u);
  EXPECT_EQ(d.Report(w, lease->lease_id(), AllOk(*lease, 1e-3), "").unknown, 1);
  EXPECT_EQ(d.Submit(Spec(7, "cpu-x"), {"s3"}).status().code(), absl::StatusCode::kCancelled);
  EXPECT_EQ(d.QueueStats(7).queued + d.QueueStats(7).leased, 0);
}

TEST(DispatcherTest, FullQueueRefusesWithResourceExhausted) {
  DispatcherOptions o = FastOptions();
  o.max_queued_candidates = 10;
  Dispatcher d(o);
  ASSERT_TRUE(d.Submit(Spec(1, "cpu-x"), std::vector<std::string>(8, "s")).ok());
  auto refused = d.Submit(Spec(2, "cpu-x"), std::vector<std::string>(3, "s"));
  EXPECT_EQ(refused.status().code(), absl::StatusCode::kResourceExhausted);
  EXPECT_NE(refused.status().message().find("queue full"), std::string::npos);
}

TEST(DispatcherTest, ShutdownEndsWaitsWithUnavailable) {
  Dispatcher d(FastOptions());
  auto batch = d.Submit(Spec(1, "cpu-x"), {"s1"});
  ASSERT_TRUE(batch.ok());
  std::thread stopper([&] {
    std::this_thread::sleep_for(milliseconds(50));
    d.Shutdown();
  });
  auto results = d.Wait(*batch);
  stopper.join();
  EXPECT_EQ(results.status().code(), absl::StatusCode::kUnavailable);
  EXPECT_EQ(d.Submit(Spec(1, "cpu-x"), {"s"}).status().code(), absl::StatusCode::kUnavailable);
}

}  // namespace
}  // namespace pruner
