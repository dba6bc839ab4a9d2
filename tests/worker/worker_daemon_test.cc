// The real WorkerDaemon against a scripted in-process server: registration,
// real measurement of leased matmul schedules, bad leases, a server that
// forgets the worker, restarts, revokes a lease or wants a token, and a
// graceful stop in the middle of a batch.
#include "worker/worker_daemon.h"

#include <chrono>
#include <string>
#include <vector>

#include "absl/time/clock.h"
#include "absl/time/time.h"
#include "gtest/gtest.h"
#include "proto/wire_convert.h"
#include "tests/worker/fake_worker_service.h"
#include "tests/worker/worker_test_util.h"

namespace pruner {
namespace {

using std::chrono::milliseconds;
using std::chrono::seconds;

// Generous: kernels are compiled by g++ on a shared 2-core machine.
constexpr milliseconds kMeasureWait = seconds(60);
constexpr milliseconds kRpcWait = seconds(10);

std::unique_ptr<FakeServer> StartServer(FakeServiceConfig config = {}) {
  auto server = FakeServer::Start(std::move(config));
  EXPECT_NE(server, nullptr);
  return server;
}

// The reports the server received for `lease_id`.
std::vector<v1::ReportRequest> ReportsFor(const FakeWorkerService& service,
                                          const std::string& lease_id) {
  std::vector<v1::ReportRequest> out;
  for (const v1::ReportRequest& report : service.reports()) {
    if (report.lease_id() == lease_id) out.push_back(report);
  }
  return out;
}

bool HasReport(const FakeWorkerService& service, const std::string& lease_id) {
  return !ReportsFor(service, lease_id).empty();
}

void ExpectMeasuredOk(const v1::CandidateResult& r, int64_t not_before_ms) {
  SCOPED_TRACE(r.measurement_id());
  EXPECT_EQ(r.result().error(), v1::MEASURE_ERROR_NONE) << r.result().message();
  EXPECT_EQ(r.result().repeat_costs_s_size(), 1);
  EXPECT_GT(r.result().mean_s(), 0);
  EXPECT_GT(r.result().build_s(), 0);
  EXPECT_GT(r.result().run_s(), 0);
  EXPECT_EQ(r.result().measured_by(), "test-worker");
  EXPECT_GE(r.result().measured_at_unix_ms(), not_before_ms);
  EXPECT_LE(r.result().measured_at_unix_ms(), absl::ToUnixMillis(absl::Now()));
  // The wire result is one the server can turn back into a record.
  EXPECT_TRUE(MeasureResultFromWire(r.result()).ok());
}

TEST(WorkerDaemonTest, RegistersTheDetectedDeviceAndHeartbeats) {
  auto server = StartServer();
  WorkerOptions options = TestWorkerOptions(server->address());
  options.slots = 2;
  options.wait_ms = 5000;  // long polls in flight when it stops
  DaemonThread worker(options, LocalCpuDevice());
  ASSERT_TRUE(WaitUntil([&] { return server->service().heartbeats().size() >= 2; }, kRpcWait));

  const std::vector<v1::RegisterRequest> registers = server->service().registers();
  ASSERT_EQ(registers.size(), 1u);
  const v1::RegisterRequest& r = registers[0];
  const DeviceProfile expected = LocalCpuDevice().profile;
  EXPECT_EQ(r.device().key(), expected.name);
  EXPECT_EQ(r.device().key().rfind("cpu-", 0), 0u) << "a CPU is keyed by what it is";
  EXPECT_EQ(r.device().kind(), v1::DEVICE_KIND_CPU);
  EXPECT_EQ(r.device().num_cores(), expected.num_cores);
  EXPECT_EQ(r.device().vector_isa(), expected.vector_isa);
  auto profile = DeviceFromWire(r.device());
  ASSERT_TRUE(profile.ok()) << profile.status();
  EXPECT_EQ(*profile, expected);
  EXPECT_EQ(r.slots(), 2);
  EXPECT_EQ(r.name(), "test-worker");
  EXPECT_FALSE(r.host().empty());
  EXPECT_EQ(r.version(), kWorkerVersion);

  const std::string id = server->service().issued_worker_ids()[0];
  for (const v1::HeartbeatRequest& h : server->service().heartbeats()) {
    EXPECT_EQ(h.worker_id(), id);
    EXPECT_EQ(h.lease_ids_size(), 0);
  }
  EXPECT_EQ(worker.daemon().Stats().worker_id, id);

  // Stopping cancels the 5-second long polls instead of waiting them out.
  const auto start = std::chrono::steady_clock::now();
  EXPECT_TRUE(worker.StopAndJoin().ok());
  EXPECT_LT(std::chrono::steady_clock::now() - start, seconds(2));
}

TEST(WorkerDaemonTest, MeasuresALeaseAndReportsEveryCandidate) {
  FakeServiceConfig config;
  config.heartbeat_interval_ms = 50;
  auto server = StartServer(config);
  const std::vector<std::string> sentences = MatmulSentences(3, 11);
  ASSERT_EQ(sentences.size(), 3u);
  server->service().AddLease(MatmulLease("lease-a", sentences));
  const int64_t start_ms = absl::ToUnixMillis(absl::Now());
  DaemonThread worker(TestWorkerOptions(server->address()), LocalCpuDevice());
  ASSERT_TRUE(WaitUntil([&] { return HasReport(server->service(), "lease-a"); }, kMeasureWait));

  const std::vector<v1::ReportRequest> reports = ReportsFor(server->service(), "lease-a");
  ASSERT_EQ(reports.size(), 1u);
  const v1::ReportRequest& report = reports[0];
  EXPECT_EQ(report.worker_id(), server->service().issued_worker_ids()[0]);
  EXPECT_EQ(report.infrastructure_error(), "");
  ASSERT_EQ(report.results_size(), 3);
  for (int i = 0; i < 3; ++i) {
    EXPECT_EQ(report.results(i).measurement_id(), "lease-a/" + std::to_string(i));
    ExpectMeasuredOk(report.results(i), start_ms);
  }

  // While it measured, the heartbeats said it held the lease.
  bool listed = false;
  for (const v1::HeartbeatRequest& h : server->service().heartbeats()) {
    for (const std::string& lease_id : h.lease_ids()) listed |= lease_id == "lease-a";
  }
  EXPECT_TRUE(listed);
  EXPECT_TRUE(worker.StopAndJoin().ok());
  const WorkerStats stats = worker.daemon().Stats();
  EXPECT_EQ(stats.leases, 1);
  EXPECT_EQ(stats.reports_answered, 1);
  EXPECT_EQ(stats.reports_waiting, 0u);
}

TEST(WorkerDaemonTest, UnparsableSentenceIsAnInvalidScheduleAndTheOthersMeasure) {
  auto server = StartServer();
  std::vector<std::string> sentences = MatmulSentences(2, 12);
  ASSERT_EQ(sentences.size(), 2u);
  sentences.insert(sentences.begin() + 1, "SP 2 0 64 [banana]; XX 1");
  server->service().AddLease(MatmulLease("lease-b", sentences));
  const int64_t start_ms = absl::ToUnixMillis(absl::Now());
  DaemonThread worker(TestWorkerOptions(server->address()), LocalCpuDevice());
  ASSERT_TRUE(WaitUntil([&] { return HasReport(server->service(), "lease-b"); }, kMeasureWait));

  const v1::ReportRequest report = ReportsFor(server->service(), "lease-b")[0];
  EXPECT_EQ(report.infrastructure_error(), "");
  ASSERT_EQ(report.results_size(), 3);
  ExpectMeasuredOk(report.results(0), start_ms);
  ExpectMeasuredOk(report.results(2), start_ms);
  const v1::CandidateResult& bad = report.results(1);
  EXPECT_EQ(bad.measurement_id(), "lease-b/1");
  EXPECT_EQ(bad.result().error(), v1::MEASURE_ERROR_INVALID_SCHEDULE);
  EXPECT_EQ(bad.result().phase(), "replay");
  EXPECT_NE(bad.result().message().find("does not parse"), std::string::npos)
      << bad.result().message();
  EXPECT_EQ(bad.result().repeat_costs_s_size(), 0);
  EXPECT_EQ(bad.result().measured_by(), "test-worker");
}

TEST(WorkerDaemonTest, WorkloadThatDoesNotHashToItsKeyIsAnInfrastructureError) {
  auto server = StartServer();
  v1::Lease lease = MatmulLease("lease-c", MatmulSentences(1, 13));
  lease.mutable_workload()->set_key(std::string(64, 'f'));
  server->service().AddLease(lease);
  DaemonThread worker(TestWorkerOptions(server->address()), LocalCpuDevice());
  ASSERT_TRUE(WaitUntil([&] { return HasReport(server->service(), "lease-c"); }, kRpcWait));

  const v1::ReportRequest report = ReportsFor(server->service(), "lease-c")[0];
  EXPECT_EQ(report.results_size(), 0) << "nothing is recorded against the candidates";
  EXPECT_NE(report.infrastructure_error().find("hashes to"), std::string::npos)
      << report.infrastructure_error();
  EXPECT_NE(report.infrastructure_error().find("test-worker"), std::string::npos);
}

TEST(WorkerDaemonTest, UnknownAtHeartbeatRegistersAgainAndKeepsWorking) {
  auto server = StartServer();
  DaemonThread worker(TestWorkerOptions(server->address()), LocalCpuDevice());
  ASSERT_TRUE(WaitUntil([&] { return server->service().heartbeats().size() >= 1; }, kRpcWait));
  server->service().ForgetWorkersAtNextHeartbeat();
  ASSERT_TRUE(WaitUntil([&] { return server->service().registers().size() >= 2; }, kRpcWait));

  const std::vector<std::string> ids = server->service().issued_worker_ids();
  ASSERT_EQ(ids.size(), 2u);
  EXPECT_NE(ids[0], ids[1]);
  ASSERT_TRUE(WaitUntil([&] { return server->service().heartbeats().back().worker_id() == ids[1]; },
                        kRpcWait));
  EXPECT_EQ(worker.daemon().Stats().registrations, 2);

  // Work leased under the new id is reported under it.
  server->service().AddLease(MatmulLease("lease-d", MatmulSentences(1, 14)));
  ASSERT_TRUE(WaitUntil([&] { return HasReport(server->service(), "lease-d"); }, kMeasureWait));
  const v1::ReportRequest report = ReportsFor(server->service(), "lease-d")[0];
  EXPECT_EQ(report.worker_id(), ids[1]);
  ASSERT_EQ(report.results_size(), 1);
  EXPECT_EQ(report.results(0).result().error(), v1::MEASURE_ERROR_NONE)
      << report.results(0).result().message();
}

TEST(WorkerDaemonTest, ServerRestartOnTheSamePortGetsTheUnreportedResults) {
  auto first = StartServer();
  const int port = first->port();
  first->service().AddLease(MatmulLease("lease-e", MatmulSentences(2, 15)));
  DaemonThread worker(TestWorkerOptions(first->address()), LocalCpuDevice());
  ASSERT_TRUE(WaitUntil([&] { return worker.daemon().Stats().leases == 1; }, kRpcWait));
  // The server goes away while the worker compiles and runs the batch.
  first->Stop();
  ASSERT_TRUE(WaitUntil(
      [&] {
        const WorkerStats s = worker.daemon().Stats();
        return s.reports_waiting == 1 && s.report_attempts_unanswered >= 1;
      },
      kMeasureWait));
  EXPECT_TRUE(first->service().reports().empty());

  FakeServiceConfig config;
  config.id_prefix = "second-life-";
  auto second = FakeServer::Start(config, port);
  ASSERT_NE(second, nullptr) << "port " << port << " could not be bound again";
  ASSERT_TRUE(WaitUntil([&] { return HasReport(second->service(), "lease-e"); }, kRpcWait));

  // The worker registered with the new server and re-sent under its new id.
  const std::vector<std::string> ids = second->service().issued_worker_ids();
  ASSERT_FALSE(ids.empty());
  const v1::ReportRequest report = ReportsFor(second->service(), "lease-e")[0];
  EXPECT_EQ(report.worker_id(), ids.back());
  ASSERT_EQ(report.results_size(), 2);
  EXPECT_EQ(report.results(0).measurement_id(), "lease-e/0");
  EXPECT_EQ(report.results(1).measurement_id(), "lease-e/1");
  for (const v1::CandidateResult& r : report.results()) {
    EXPECT_EQ(r.result().error(), v1::MEASURE_ERROR_NONE) << r.result().message();
  }
  ASSERT_TRUE(WaitUntil([&] { return worker.daemon().Stats().reports_waiting == 0; }, kRpcWait));
  EXPECT_EQ(worker.daemon().Stats().registrations, 2);
  EXPECT_TRUE(worker.StopAndJoin().ok());
}

TEST(WorkerDaemonTest, RevokedLeaseResultsAreNotReported) {
  FakeServiceConfig config;
  config.heartbeat_interval_ms = 30;
  auto server = StartServer(config);
  server->service().RevokeLease("lease-f");
  server->service().AddLease(MatmulLease("lease-f", MatmulSentences(6, 16)));
  server->service().AddLease(MatmulLease("lease-g", MatmulSentences(1, 17)));
  DaemonThread worker(TestWorkerOptions(server->address()), LocalCpuDevice());
  // lease-g is leased only after lease-f is finished or dropped (one slot).
  ASSERT_TRUE(WaitUntil([&] { return HasReport(server->service(), "lease-g"); }, kMeasureWait));
  EXPECT_TRUE(worker.StopAndJoin().ok());

  EXPECT_FALSE(HasReport(server->service(), "lease-f"));
  EXPECT_EQ(worker.daemon().Stats().leases_dropped, 1);
  EXPECT_EQ(ReportsFor(server->service(), "lease-g")[0].results_size(), 1);
}

TEST(WorkerDaemonTest, StopInTheMiddleOfABatchReportsWhatWasMeasured) {
  auto server = StartServer();
  server->service().AddLease(MatmulLease("lease-h", MatmulSentences(8, 18)));
  DaemonThread worker(TestWorkerOptions(server->address()), LocalCpuDevice());
  ASSERT_TRUE(WaitUntil([&] { return worker.daemon().Stats().leases == 1; }, kRpcWait));

  const auto start = std::chrono::steady_clock::now();
  EXPECT_TRUE(worker.StopAndJoin().ok());
  const double stop_s =
      std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  std::printf("stopped %.2f s after Stop() in the middle of an 8-candidate batch\n", stop_s);
  EXPECT_LT(stop_s, 20) << "at most one chunk (two candidates) is finished";

  // The rest goes back to the queue: the report says why.
  const std::vector<v1::ReportRequest> reports = ReportsFor(server->service(), "lease-h");
  ASSERT_EQ(reports.size(), 1u);
  EXPECT_LT(reports[0].results_size(), 8);
  EXPECT_NE(reports[0].infrastructure_error().find("stopping"), std::string::npos)
      << reports[0].infrastructure_error();
}

TEST(WorkerDaemonTest, TokenProtectedServerRefusesAWorkerWithoutTheRightToken) {
  FakeServiceConfig config;
  config.token = "s3cret-token";
  auto server = StartServer(config);
  for (const std::string token : {"", "guessed"}) {
    SCOPED_TRACE("token '" + token + "'");
    WorkerOptions options = TestWorkerOptions(server->address());
    options.security.token = token;
    DaemonThread worker(options, LocalCpuDevice());
    // The daemon stops on its own: retrying cannot fix credentials.
    const absl::Status status = worker.Join();
    EXPECT_TRUE(absl::IsUnauthenticated(status)) << status;
    EXPECT_NE(status.message().find("token"), std::string::npos) << status;
  }
  EXPECT_EQ(server->service().refused_calls(), 2);
  EXPECT_TRUE(server->service().registers().empty());
}

TEST(WorkerDaemonTest, TokenProtectedServerAcceptsAWorkerWithTheToken) {
  FakeServiceConfig config;
  config.token = "s3cret-token";
  auto server = StartServer(config);
  WorkerOptions options = TestWorkerOptions(server->address());
  options.security.token = "s3cret-token";
  DaemonThread worker(options, LocalCpuDevice());
  ASSERT_TRUE(WaitUntil([&] { return server->service().heartbeats().size() >= 1; }, kRpcWait));
  EXPECT_EQ(server->service().registers().size(), 1u);
  EXPECT_EQ(server->service().refused_calls(), 0);
  EXPECT_TRUE(worker.StopAndJoin().ok());
}

}  // namespace
}  // namespace pruner
