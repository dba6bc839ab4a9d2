// End to end on 127.0.0.1: the real server binary, real worker binaries that
// build and run every candidate in their sandbox, and a client over gRPC.
// The fault tests kill processes with SIGKILL and print what they measured.
#include <dlfcn.h>
#include <signal.h>
#include <sys/wait.h>

#include <chrono>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <map>
#include <set>
#include <cmath>
#include <functional>
#include <thread>

#include "absl/strings/str_cat.h"
#include "common/store/records_store.h"
#include "grpcpp/generic/generic_stub.h"
#include "gtest/gtest.h"
#include "nlohmann/json.hpp"
#include "proto/rpc_credentials.h"
#include "tests/e2e/farm_fixture.h"

namespace pruner::e2e {
namespace {

using std::chrono::milliseconds;
using std::chrono::seconds;
using Clock = std::chrono::steady_clock;

const std::vector<std::string> kTwoOps = {"matmul:M=64,K=64,N=64", "dense:M=16,K=64,N=32"};

TEST_F(FarmTest, SubmitWatchExportAndEveryRecordInTheDatabase) {
  StartServer();
  farm_->StartWorker("w1");
  farm_->StartWorker("w2");
  const std::string device = WaitForWorkers(2);
  ASSERT_FALSE(device.empty());

  const v1::JobInfo submitted = Submit(SmallJob(device, kTwoOps, 24, 8));
  ASSERT_GT(submitted.id(), 0);
  EXPECT_EQ(submitted.tasks_size(), 2);
  const auto events = Watch(submitted.id(), seconds(240));
  ASSERT_FALSE(events.empty());
  const v1::ProgressEvent& last = events.back();
  ASSERT_TRUE(last.final()) << "no final event; server log:\n" << farm_->ServerLog();
  EXPECT_EQ(last.job().status(), "done") << last.job().message();
  EXPECT_EQ(last.job().trials(), 24);
  int rounds = 0;
  for (const v1::ProgressEvent& e : events) rounds += e.round() > 0 ? 1 : 0;
  EXPECT_EQ(rounds, 3) << "one event per round of 8";
  for (const v1::TaskInfo& t : last.job().tasks()) {
    EXPECT_GT(t.best_cost_s(), 0) << t.name();
  }

  // Every record is in the database, measured by one of the two workers.
  const auto records = JobRecords(submitted.id());
  EXPECT_EQ(records.size(), 24u);
  std::set<std::string> measured_by;
  int ok = 0;
  for (const StoredRecord& r : records) {
    measured_by.insert(r.measured_by);
    ok += r.result.ok() ? 1 : 0;
  }
  ExpectNoDuplicates(records);
  EXPECT_GT(ok, 12);
  for (const std::string& who : measured_by) {
    EXPECT_TRUE(who == "w1" || who == "w2") << who;
  }
  std::printf("24 trials: %d ok, measured by %zu workers\n", ok, measured_by.size());

  // Best records and the export.
  v1::BestRecordsRequest best_request;
  best_request.set_job_id(submitted.id());
  v1::BestRecordsReply best;
  auto context = farm_->Context(seconds(10));
  ASSERT_TRUE(farm_->Client()->BestRecords(context.get(), best_request, &best).ok());
  EXPECT_EQ(best.records_size(), 2);
  v1::ExportJobRequest export_request;
  export_request.set_job_id(submitted.id());
  v1::ExportJobReply exported;
  context = farm_->Context(seconds(30));
  grpc::Status st = farm_->Client()->ExportJob(context.get(), export_request, &exported);
  ASSERT_TRUE(st.ok()) << st.error_message();
  auto manifest = nlohmann::json::parse(exported.manifest_json());
  ASSERT_EQ(manifest["kernels"].size(), 2u);
  std::map<std::string, std::string> files;
  for (const v1::ExportedFile& f : exported.files()) files[f.path()] = f.content();
  // Per kernel its C++ source and the LLVM backend's object (this x86 CPU's
  // ISA level), then the runtime the objects link with.
  ASSERT_EQ(files.size(), 6u);
  ASSERT_TRUE(manifest.contains("build")) << manifest.dump(2);
  const std::filesystem::path dir = std::filesystem::temp_directory_path() /
                                    ("pruner_export_" + std::to_string(getpid()));
  std::filesystem::create_directories(dir);
  for (const auto& [path, content] : files) {
    std::ofstream(dir / path, std::ios::binary) << content;
  }
  std::vector<std::string> symbols;
  for (const auto& kernel : manifest["kernels"]) {
    const std::string symbol = kernel["symbol"];
    symbols.push_back(symbol);
    EXPECT_NE(files[kernel["file"]].find(symbol), std::string::npos);
    EXPECT_TRUE(files.count(kernel["object"].get<std::string>())) << kernel.dump();
  }
  // The manifest's own command links one library of both kernels.
  const std::string build = manifest["build"];
  ASSERT_EQ(std::system(("cd " + dir.string() + " && " + build).c_str()), 0) << build;
  void* library = dlopen((dir / manifest["library"].get<std::string>()).c_str(), RTLD_NOW | RTLD_LOCAL);
  ASSERT_NE(library, nullptr) << dlerror();
  for (const std::string& symbol : symbols) EXPECT_NE(dlsym(library, symbol.c_str()), nullptr) << symbol;
  dlclose(library);
  std::filesystem::remove_all(dir);
}

TEST_F(FarmTest, KilledWorkerLosesNothingAndItsLeaseIsRequeued) {
  FarmOptions options;
  options.lease_timeout_ms = 1500;
  StartServer(options);
  Process victim = farm_->StartWorker("victim", {"--max-candidates", "4"});
  const std::string device = WaitForWorkers(1);
  // Slow candidates (several timed repeats each) so that the kill lands
  // mid-batch.
  v1::JobSpec spec = SmallJob(device, {"matmul:M=64,K=64,N=64"}, 16, 8);
  spec.mutable_measure()->set_min_repeat_ms(100);
  spec.mutable_measure()->set_repeat(3);
  const v1::JobInfo job = Submit(spec);
  ASSERT_TRUE(Farm::WaitFor([&] { return Get(job.id()).leased_candidates() > 0; }, seconds(60)));
  std::this_thread::sleep_for(milliseconds(300));
  const auto killed_at = Clock::now();
  farm_->Kill(victim, SIGKILL);
  // The dead worker's lease goes back to the queue when the server declares
  // it dead, after one lease timeout.
  ASSERT_TRUE(Farm::WaitFor([&] { return Workers().empty(); }, seconds(10)));
  const double requeued_s = std::chrono::duration<double>(Clock::now() - killed_at).count();
  const v1::JobInfo after = Get(job.id());
  EXPECT_EQ(after.leased_candidates(), 0);
  EXPECT_GT(after.queued_candidates(), 0);
  std::printf("worker killed mid-batch: lease re-queued after %.2f s (lease timeout %.2f s); "
              "%d candidates back in the queue\n",
              requeued_s, options.lease_timeout_ms / 1000.0, after.queued_candidates());
  EXPECT_LT(requeued_s, options.lease_timeout_ms / 1000.0 + 1.0);

  farm_->StartWorker("rescuer");
  const auto events = Watch(job.id(), seconds(240));
  ASSERT_FALSE(events.empty());
  EXPECT_EQ(events.back().job().status(), "done") << farm_->ServerLog();
  const auto records = JobRecords(job.id());
  EXPECT_EQ(records.size(), 16u) << "nothing lost, nothing counted twice";
  ExpectNoDuplicates(records);
  int dispatch_errors = 0;
  for (const StoredRecord& r : records) dispatch_errors += r.result.phase == "dispatch" ? 1 : 0;
  EXPECT_EQ(dispatch_errors, 0) << "a lost worker is never a program failure";
}

TEST_F(FarmTest, KilledServerResumesTheJobOnRestart) {
  StartServer();
  farm_->StartWorker("w1");
  const std::string device = WaitForWorkers(1);
  const v1::JobInfo job = Submit(SmallJob(device, kTwoOps, 32, 8));
  ASSERT_TRUE(Farm::WaitFor([&] { return Get(job.id()).trials() >= 8; }, seconds(120)));
  const int port = farm_->port();
  const int64_t trials_before = Get(job.id()).trials();
  farm_->KillServer(SIGKILL);
  const int64_t stored_before = static_cast<int64_t>(JobRecords(job.id()).size());

  std::string error;
  ASSERT_TRUE(farm_->StartServer(port, &error)) << error;
  EXPECT_NE(farm_->ServerLog().find("resumed job"), std::string::npos) << farm_->ServerLog();
  // The worker reconnects by itself (backoff) and the job finishes.
  const auto events = Watch(job.id(), seconds(240));
  ASSERT_FALSE(events.empty());
  EXPECT_EQ(events.back().job().status(), "done") << farm_->ServerLog();
  const auto records = JobRecords(job.id());
  EXPECT_EQ(records.size(), 32u);
  ExpectNoDuplicates(records);
  std::printf("server killed at %lld reported / %lld stored trials; after restart the job "
              "finished with %zu records, none measured twice\n",
              static_cast<long long>(trials_before), static_cast<long long>(stored_before),
              records.size());
}

TEST_F(FarmTest, SilentWorkerAndDuplicateDeliveryAreHarmless) {
  FarmOptions options;
  options.lease_timeout_ms = 1000;
  StartServer(options);
  // The honest worker takes two candidates at a time, so a batch of eight
  // leaves work for the other one.
  farm_->StartWorker("honest", {"--max-candidates", "2"});
  const std::string device = WaitForWorkers(1);
  // A hand-driven worker on the same device: it takes a lease and goes
  // silent. It long-polls before the job exists, so both workers wait for
  // its batch.
  v1::JobInfo job;
  const HandLease silent = LeaseByHand("silent", 2, [&] {
    job = Submit(SmallJob(device, {"matmul:M=64,K=64,N=64"}, 16, 8));
  });
  ASSERT_TRUE(silent.status.ok()) << silent.status.error_message();
  const v1::Lease& lease = silent.lease;
  ASSERT_FALSE(lease.lease_id().empty()) << "the silent worker should get some work";
  const auto leased_at = Clock::now();

  const auto events = Watch(job.id(), seconds(240));
  ASSERT_FALSE(events.empty());
  EXPECT_EQ(events.back().job().status(), "done");
  std::printf("a silent worker held %d candidates; the job finished %.1f s later\n",
              lease.candidates_size(),
              std::chrono::duration<double>(Clock::now() - leased_at).count());

  // The silent worker delivers late, twice: nothing is counted.
  auto stub = farm_->WorkerStub();
  v1::ReportRequest report;
  report.set_worker_id(silent.worker_id);
  report.set_lease_id(lease.lease_id());
  for (const v1::Candidate& c : lease.candidates()) {
    v1::CandidateResult* r = report.add_results();
    r->set_measurement_id(c.measurement_id());
    r->mutable_result()->set_mean_s(1e-9);  // would be a record-breaking time
    r->mutable_result()->add_repeat_costs_s(1e-9);
  }
  for (int delivery = 0; delivery < 2; ++delivery) {
    v1::ReportReply reply;
    auto context = farm_->Context(seconds(5));
    ASSERT_TRUE(stub->ReportResults(context.get(), report, &reply).ok());
    EXPECT_EQ(reply.accepted(), 0) << "delivery " << delivery;
    EXPECT_EQ(reply.duplicates() + reply.unknown(), lease.candidates_size());
  }
  const auto records = JobRecords(job.id());
  EXPECT_EQ(records.size(), 16u);
  ExpectNoDuplicates(records);
  for (const StoredRecord& r : records) EXPECT_NE(r.result.mean_s, 1e-9);
}

// Issue 16's rogue: a worker with the farm's token reports a 32x32x32
// matmul in 1e-30 s, in 1e300 s and as NaN, with a 100,000-byte message.
// Nothing of it is stored, its candidates are measured by the honest
// worker, and it ends quarantined.
TEST_F(FarmTest, RogueWorkerCannotPoisonTheRecords) {
  StartServer(FarmOptions{});
  farm_->StartWorker("honest", {"--max-candidates", "2"});
  const std::string device = WaitForWorkers(1);
  v1::JobInfo job;
  const HandLease rogue = LeaseByHand("rogue", 3, [&] {
    job = Submit(SmallJob(device, {"matmul:M=32,K=32,N=32"}, 16, 8));
  });
  ASSERT_TRUE(rogue.status.ok()) << rogue.status.error_message();
  const v1::Lease& lease = rogue.lease;
  ASSERT_EQ(lease.candidates_size(), 3) << "the rogue should get three candidates";

  auto stub = farm_->WorkerStub();
  v1::ReportRequest report;
  report.set_worker_id(rogue.worker_id);
  report.set_lease_id(lease.lease_id());
  const double lies[] = {1e-30, 1e300, std::nan("")};
  for (int i = 0; i < 3; ++i) {
    v1::CandidateResult* r = report.add_results();
    r->set_measurement_id(lease.candidates(i).measurement_id());
    r->mutable_result()->set_mean_s(lies[i]);
    r->mutable_result()->add_repeat_costs_s(lies[i]);
    r->mutable_result()->set_message(std::string(100000, 'x'));
  }
  v1::ReportReply reply;
  auto context = farm_->Context(seconds(5));
  ASSERT_TRUE(stub->ReportResults(context.get(), report, &reply).ok());
  EXPECT_EQ(reply.accepted(), 0);
  EXPECT_EQ(reply.implausible(), 3);

  const auto events = Watch(job.id(), seconds(240));
  ASSERT_FALSE(events.empty());
  EXPECT_EQ(events.back().job().status(), "done");
  const auto records = JobRecords(job.id());
  EXPECT_EQ(records.size(), 16u);
  ExpectNoDuplicates(records);
  for (const StoredRecord& r : records) {
    EXPECT_LT(r.result.message.size(), 5000u);
    if (r.result.ok()) {
      EXPECT_GT(r.result.mean_s, 1e-9);
      EXPECT_LT(r.result.mean_s, 10);
    }
  }
  bool quarantined = false;
  for (const v1::WorkerInfo& w : Workers()) {
    if (w.name() == "rogue") quarantined = w.quarantined() && w.implausible_reports() == 3;
  }
  EXPECT_TRUE(quarantined);

  // The server keeps the name: after a restart, the rogue registering again
  // is still out.
  const v1::Device rogue_device = Workers().front().device();
  const int port = farm_->port();
  farm_->KillServer(SIGKILL);
  std::string error;
  ASSERT_TRUE(farm_->StartServer(port, &error)) << error;
  v1::RegisterRequest again;
  again.set_name("rogue");
  again.set_slots(1);
  *again.mutable_device() = rogue_device;
  v1::RegisterReply registered;
  grpc::Status status;
  ASSERT_TRUE(Farm::WaitFor(
      [&] {
        auto register_context = farm_->Context(seconds(5));
        status = farm_->WorkerStub()->Register(register_context.get(), again, &registered);
        return status.ok();
      },
      seconds(20)))
      << status.error_message();
  quarantined = false;
  for (const v1::WorkerInfo& w : Workers()) {
    if (w.worker_id() == registered.worker_id()) quarantined = w.quarantined();
  }
  EXPECT_TRUE(quarantined) << "a restart must not let a quarantined worker back in";
}

// A subtler liar: times that pass every plausibility check (exactly the
// device's peak), for a whole lease. Each would become the task's best;
// each is measured again by the honest worker, disputed, and counted at the
// honest time, so no lie is ever the job's best.
TEST_F(FarmTest, PlausibleLiesAreMeasuredAgainElsewhereAndNeverBecomeTheBest) {
  StartServer(FarmOptions{});
  farm_->StartWorker("honest", {"--max-candidates", "2"});
  const std::string device = WaitForWorkers(1);
  double peak_gflops = 0;
  {
    auto store = RecordsStore::Open(farm_->db_path());
    ASSERT_TRUE(store.ok());
    auto profile = (*store)->GetDevice(device);
    ASSERT_TRUE(profile.ok()) << profile.status();
    peak_gflops = profile->peak_gflops;
  }
  ASSERT_GT(peak_gflops, 0);
  const double lie_s = 2.0 * 32 * 32 * 32 / (peak_gflops * 1e9);  // matmul 32^3 at peak
  v1::JobInfo job;
  const HandLease liar = LeaseByHand("liar", 3, [&] {
    job = Submit(SmallJob(device, {"matmul:M=32,K=32,N=32"}, 16, 8));
  });
  ASSERT_TRUE(liar.status.ok()) << liar.status.error_message();
  ASSERT_EQ(liar.lease.candidates_size(), 3);
  v1::ReportRequest report;
  report.set_worker_id(liar.worker_id);
  report.set_lease_id(liar.lease.lease_id());
  for (int i = 0; i < 3; ++i) {
    v1::CandidateResult* r = report.add_results();
    r->set_measurement_id(liar.lease.candidates(i).measurement_id());
    const double t = lie_s * (1 + 0.01 * i);
    r->mutable_result()->set_mean_s(t);
    r->mutable_result()->add_repeat_costs_s(t);
    r->mutable_result()->add_repeat_costs_s(t);
  }
  v1::ReportReply reply;
  auto context = farm_->Context(seconds(5));
  ASSERT_TRUE(farm_->WorkerStub()->ReportResults(context.get(), report, &reply).ok());
  ASSERT_EQ(reply.accepted(), 3) << "these lies are plausible: only a second measurement shows them";

  const auto events = Watch(job.id(), seconds(240));
  ASSERT_FALSE(events.empty());
  EXPECT_EQ(events.back().job().status(), "done");
  int lines = 0;
  for (const v1::ProgressEvent& e : events) {
    if (e.verification().find("(liar) re-measured") != std::string::npos) {
      ++lines;
      std::printf("%s\n", e.verification().c_str());
      EXPECT_NE(e.verification().find("(honest): disputed"), std::string::npos)
          << e.verification();
    }
  }
  EXPECT_GE(lines, 1);

  // In the database: every lie disputed by the honest worker, and the best
  // is an honest time (the liar's records count at the honest one's).
  auto store = RecordsStore::Open(farm_->db_path());
  ASSERT_TRUE(store.ok());
  int disputed = 0;
  for (const StoredRecord& r : JobRecords(job.id())) {
    if (r.measured_by != "liar") continue;
    EXPECT_EQ(r.verdict, Verdict::kDisputed) << r.steps;
    ASSERT_NE(r.check_record_id, 0);
    auto check = (*store)->GetRecord(r.check_record_id);
    ASSERT_TRUE(check.ok());
    EXPECT_EQ(check->measured_by, "honest");
    EXPECT_GT(TrustedCost(r), 1.5 * r.result.mean_s);
    ++disputed;
  }
  EXPECT_EQ(disputed, 3);
  const std::string key = JobRecords(job.id()).front().workload_key;
  auto best = (*store)->BestRecord(key, device);
  ASSERT_TRUE(best.ok()) << best.status();
  EXPECT_GT(TrustedCost(*best), 1.5 * lie_s);
  std::printf("lie %.3g s; best %.3g s (%s by %s)\n", lie_s, TrustedCost(*best),
              VerdictName(best->verdict), best->measured_by.c_str());
  std::string out;
  EXPECT_EQ(RunCli(absl::StrCat("best ", job.id()), &out), 0) << out;
  std::printf("%s", out.c_str());
}

TEST_F(FarmTest, UnauthenticatedClientAndWorkerRefused) {
  StartServer();
  v1::ListJobsReply jobs;
  auto context = farm_->Context(seconds(5), /*with_token=*/false);
  grpc::Status status = farm_->Client()->ListJobs(context.get(), {}, &jobs);
  EXPECT_EQ(status.error_code(), grpc::StatusCode::UNAUTHENTICATED) << status.error_message();
  std::printf("client without token: %s\n", status.error_message().c_str());

  auto bad = std::make_unique<grpc::ClientContext>();
  bad->AddMetadata("authorization", "Bearer not-the-token");
  status = farm_->Client()->ListJobs(bad.get(), {}, &jobs);
  EXPECT_EQ(status.error_code(), grpc::StatusCode::UNAUTHENTICATED);

  Process worker = farm_->StartWorker("intruder", {}, /*with_token=*/false);
  const int exit_status = farm_->WaitExit(worker, seconds(20));
  ASSERT_NE(exit_status, -1) << "a worker without credentials must stop, not retry for ever";
  EXPECT_TRUE(WIFEXITED(exit_status));
  EXPECT_NE(WEXITSTATUS(exit_status), 0);
  std::printf("worker without token exited with %d: %s\n", WEXITSTATUS(exit_status),
              farm_->Log(worker).c_str());
  EXPECT_TRUE(Workers().empty());
}

TEST_F(FarmTest, BadJobsRefusedWithClearMessages) {
  StartServer();
  farm_->StartWorker("w1");
  const std::string device = WaitForWorkers(1);
  struct Case {
    v1::JobSpec spec;
    grpc::StatusCode code;
    std::string needle;
  };
  std::vector<Case> cases;
  cases.push_back({SmallJob("tpu-v9", kTwoOps, 10, 8), grpc::StatusCode::INVALID_ARGUMENT,
                   "unknown target 'tpu-v9'"});
  cases.push_back({SmallJob(device, kTwoOps, 0, 8), grpc::StatusCode::INVALID_ARGUMENT,
                   "trial_budget must be > 0"});
  cases.push_back({SmallJob(device, kTwoOps, int64_t{1} << 40, 8),
                   grpc::StatusCode::INVALID_ARGUMENT, "more than this server allows"});
  cases.push_back({SmallJob(device, {"fft:N=8"}, 10, 8), grpc::StatusCode::INVALID_ARGUMENT,
                   "fft"});
  cases.push_back({SmallJob(device, {"matmul:M=0,K=4,N=4"}, 10, 8),
                   grpc::StatusCode::INVALID_ARGUMENT, "matmul:M=0"});
  cases.push_back({SmallJob(device, {}, 10, 8), grpc::StatusCode::INVALID_ARGUMENT,
                   "nothing to tune"});
  for (const Case& c : cases) {
    grpc::Status status = TrySubmit(c.spec);
    EXPECT_EQ(status.error_code(), c.code) << c.needle << ": " << status.error_message();
    EXPECT_NE(status.error_message().find(c.needle), std::string::npos)
        << "message: " << status.error_message();
    std::printf("refused: %s\n", status.error_message().c_str());
  }
  v1::GetJobRequest missing;
  missing.set_job_id(999);
  v1::JobInfo info;
  auto context = farm_->Context(seconds(5));
  EXPECT_EQ(farm_->Client()->GetJob(context.get(), missing, &info).error_code(),
            grpc::StatusCode::NOT_FOUND);
}

TEST_F(FarmTest, SubmissionFloodIsRefusedAndCancelWorks) {
  FarmOptions options;
  options.max_running_jobs = 1;
  options.max_pending_jobs = 2;
  StartServer(options);
  // Jobs for a GPU no worker has: they wait, so the queue fills.
  v1::JobSpec spec = SmallJob("a100", {"matmul:M=64,K=64,N=64"}, 8, 8);
  std::vector<int64_t> ids;
  int refused = 0;
  std::string message;
  for (int i = 0; i < 6; ++i) {
    v1::SubmitJobRequest request;
    *request.mutable_spec() = spec;
    v1::JobInfo info;
    auto context = farm_->Context(seconds(30));
    grpc::Status status = farm_->Client()->SubmitJob(context.get(), request, &info);
    if (status.ok()) {
      ids.push_back(info.id());
    } else {
      EXPECT_EQ(status.error_code(), grpc::StatusCode::RESOURCE_EXHAUSTED);
      message = status.error_message();
      ++refused;
    }
  }
  EXPECT_EQ(ids.size(), 3u) << "one running, two waiting";
  EXPECT_EQ(refused, 3);
  std::printf("6 submissions: %zu accepted, %d refused: %s\n", ids.size(), refused,
              message.c_str());
  const v1::JobInfo running = Get(ids[0]);
  EXPECT_NE(running.message().find("waiting for a worker"), std::string::npos)
      << running.message();
  for (int64_t id : ids) {
    v1::CancelJobRequest cancel;
    cancel.set_job_id(id);
    v1::JobInfo info;
    auto context = farm_->Context(seconds(30));
    ASSERT_TRUE(farm_->Client()->CancelJob(context.get(), cancel, &info).ok());
  }
  for (int64_t id : ids) {
    ASSERT_TRUE(Farm::WaitFor([&] { return Get(id).status() == "cancelled"; }, seconds(30)))
        << "job " << id << " is " << Get(id).status();
  }
  // Cancelling twice is a clear refusal, not a crash.
  v1::CancelJobRequest again;
  again.set_job_id(ids[0]);
  v1::JobInfo info;
  auto context = farm_->Context(seconds(10));
  EXPECT_EQ(farm_->Client()->CancelJob(context.get(), again, &info).error_code(),
            grpc::StatusCode::FAILED_PRECONDITION);
}

// Standard gRPC tools (grpcurl, grpc_cli) discover services through the
// reflection service: ask it, with a hand-encoded request, to list them.
TEST_F(FarmTest, ReflectionListsBothServices) {
  StartServer();
  auto channel = MakeChannel(farm_->address(), ClientSecurity{});
  ASSERT_TRUE(channel.ok());
  grpc::GenericStub stub(*channel);
  grpc::CompletionQueue cq;
  auto context = farm_->Context(seconds(10));
  auto call = stub.PrepareCall(context.get(),
                               "/grpc.reflection.v1alpha.ServerReflection/ServerReflectionInfo",
                               &cq);
  void* tag = nullptr;
  bool ok = false;
  call->StartCall(reinterpret_cast<void*>(1));
  ASSERT_TRUE(cq.Next(&tag, &ok) && ok);
  // ServerReflectionRequest { list_services: "*" } (field 7, length-delimited).
  const std::string request("\x3a\x01*", 3);
  grpc::Slice slice(request);
  grpc::ByteBuffer out(&slice, 1);
  call->Write(out, reinterpret_cast<void*>(2));
  ASSERT_TRUE(cq.Next(&tag, &ok) && ok);
  grpc::ByteBuffer in;
  call->Read(&in, reinterpret_cast<void*>(3));
  ASSERT_TRUE(cq.Next(&tag, &ok) && ok) << "no reflection reply";
  std::vector<grpc::Slice> slices;
  ASSERT_TRUE(in.Dump(&slices).ok());
  std::string reply;
  for (const grpc::Slice& s : slices) reply.append(reinterpret_cast<const char*>(s.begin()), s.size());
  EXPECT_NE(reply.find("pruner.v1.TuningService"), std::string::npos);
  EXPECT_NE(reply.find("pruner.v1.WorkerService"), std::string::npos);
  context->TryCancel();
  grpc::Status finished;
  call->Finish(&finished, reinterpret_cast<void*>(4));
  cq.Shutdown();
  while (cq.Next(&tag, &ok)) {
  }
}

// The `pruner` binary as a user runs it: submit with --watch, then best and
// export, with the server address and token from the environment; then the
// same job read from the records database in process (--db), which prints
// what the server printed.
TEST_F(FarmTest, CommandLineSubmitWatchBestExport) {
  StartServer();
  farm_->StartWorker("w1");
  ASSERT_FALSE(WaitForWorkers(1).empty());
  auto run = [&](const std::string& args, std::string* out) { return RunCli(args, out); };
  std::string submitted;
  ASSERT_EQ(run("submit --op matmul:M=64,K=64,N=64 --target cpu --trials 8 --per-round 4 "
                "--strategy random --repeat 2 --min-repeat-ms 1 --threads 1 --watch",
                &submitted),
            0)
      << submitted;
  EXPECT_NE(submitted.find("submitted job 1"), std::string::npos) << submitted;
  EXPECT_NE(submitted.find("done"), std::string::npos) << submitted;
  std::string best;
  ASSERT_EQ(run("best 1", &best), 0) << best;
  EXPECT_NE(best.find("GFLOP/s"), std::string::npos) << best;
  const std::string out_dir = farm_->dir() + "/kernels";
  std::string exported;
  ASSERT_EQ(run("export 1 --out " + out_dir, &exported), 0) << exported;
  std::ifstream manifest(out_dir + "/manifest.json");
  ASSERT_TRUE(manifest.good()) << exported;
  auto parsed = nlohmann::json::parse(manifest);
  ASSERT_EQ(parsed["kernels"].size(), 1u);
  std::ifstream source(out_dir + "/" + parsed["kernels"][0]["file"].get<std::string>());
  EXPECT_TRUE(source.good());
  std::string json_jobs;
  ASSERT_EQ(run("jobs --json", &json_jobs), 0) << json_jobs;
  EXPECT_NE(json_jobs.find("\"status\":\"done\""), std::string::npos) << json_jobs;

  const std::string db = " --db " + farm_->db_path();
  std::string local_best;
  ASSERT_EQ(run("best 1" + db, &local_best), 0) << local_best;
  EXPECT_EQ(local_best, best);
  std::string local_jobs;
  ASSERT_EQ(run("jobs --json" + db, &local_jobs), 0) << local_jobs;
  EXPECT_NE(local_jobs.find("\"status\":\"done\""), std::string::npos) << local_jobs;
  const std::string local_dir = farm_->dir() + "/kernels-local";
  std::string local_export;
  ASSERT_EQ(run("export 1 --out " + local_dir + db, &local_export), 0) << local_export;
  std::ifstream local_manifest(local_dir + "/manifest.json");
  ASSERT_TRUE(local_manifest.good()) << local_export;
  EXPECT_EQ(nlohmann::json::parse(local_manifest), parsed);
  std::string missing;
  EXPECT_EQ(run("best 1 --db " + farm_->dir() + "/no-such.db", &missing), 2);
  EXPECT_NE(missing.find("no records database"), std::string::npos) << missing;
}

// `pruner dataset collect --target`: the dataset's networks as server jobs
// (only the tasks no earlier dataset job lists), measured by a real worker;
// the server's database then reads as a dataset (`dataset stats --db`), and
// every record carries the worker's host-contention sample.
TEST_F(FarmTest, CommandLineDatasetCollectOverTheFarm) {
  StartServer();
  farm_->StartWorker("w1");
  const std::string device = WaitForWorkers(1);
  ASSERT_FALSE(device.empty());
  const std::string collect = "dataset collect --target " + device +
                              " --network bert-tiny:seq=8 --network bert-tiny:batch=2,seq=4"
                              " --per-task 2 --per-round 2 --threads 1";
  std::string out;
  ASSERT_EQ(RunCli(collect, &out), 0) << out;
  EXPECT_NE(out.find("job 1: 8 of 8 tasks new, 16 trials"), std::string::npos) << out;
  EXPECT_NE(out.find("job 2: 3 of 8 tasks new, 6 trials"), std::string::npos) << out;
  for (int64_t id : {1, 2}) {
    EXPECT_TRUE(Farm::WaitFor([&] { return Get(id).status() == "done"; },
                              std::chrono::seconds(180)))
        << "job " << id << ": " << Get(id).DebugString() << farm_->ServerLog();
  }
  std::string again;
  ASSERT_EQ(RunCli(collect, &again), 0) << again;
  EXPECT_NE(again.find("job 1 on the server already"), std::string::npos) << again;
  EXPECT_NE(again.find("0 jobs submitted"), std::string::npos) << again;

  std::string stats;
  ASSERT_EQ(RunCli("dataset stats --db " + farm_->db_path(), &stats), 0) << stats;
  EXPECT_NE(stats.find("schedules  22 of 22 planned: 22 ok"), std::string::npos) << stats;
  EXPECT_NE(stats.find("workloads  11 with an ok record"), std::string::npos) << stats;
  auto store = RecordsStore::Open(farm_->db_path());
  ASSERT_TRUE(store.ok()) << store.status();
  auto records = (*store)->JobRecords(1);
  ASSERT_TRUE(records.ok()) << records.status();
  ASSERT_EQ(records->size(), 16u);
  for (const StoredRecord& r : *records) EXPECT_GE(r.result.host_busy_cores, 0) << r.steps;
}

// The README's main job in small: a model exported by PyTorch submitted
// through the farm as its tasks, compiled from the job's best records (asked
// from the server, and read from the database), run and checked against
// PyTorch's output.
TEST_F(FarmTest, ModelSubmittedCompiledFromTheJobAndRunAgainstPyTorch) {
  StartServer();
  farm_->StartWorker("w1");
  ASSERT_FALSE(WaitForWorkers(1).empty());
  auto run = [&](const std::string& args, std::string* out) { return RunCli(args, out); };
  const std::string models = PRUNER_TEST_MODELS_DIR;
  std::string submitted;
  ASSERT_EQ(run("submit --model " + models + "/encoder.onnx --target cpu --trials 16 "
                "--per-round 8 --repeat 2 --min-repeat-ms 1 --threads 1 --watch",
                &submitted),
            0)
      << submitted;
  EXPECT_NE(submitted.find("submitted job 1 (8 tasks"), std::string::npos) << submitted;
  const std::string lib = farm_->dir() + "/encoder.so";
  std::string compiled;
  ASSERT_EQ(run("compile --model " + models + "/encoder.onnx --job 1 --out " + lib, &compiled), 0)
      << compiled;
  EXPECT_NE(compiled.find("records: job 1 on"), std::string::npos) << compiled;
  EXPECT_NE(compiled.find("tuned"), std::string::npos) << compiled;
  std::string ran;
  ASSERT_EQ(run("run " + lib + " --input " + models + "/encoder.input.npy --expect " + models +
                    "/encoder.output.npy --threads 1",
                &ran),
            0)
      << ran;
  EXPECT_NE(ran.find("match"), std::string::npos) << ran;
  // The same from the database file, and a wrong input refused clearly.
  const std::string lib_db = farm_->dir() + "/encoder_db.so";
  std::string from_db;
  ASSERT_EQ(run("compile --model " + models + "/encoder.onnx --db " + farm_->db_path() +
                    " --out " + lib_db,
                &from_db),
            0)
      << from_db;
  EXPECT_NE(from_db.find("(8 tuned, 0 default)"), std::string::npos) << from_db;
  std::string wrong;
  EXPECT_EQ(run("run " + lib_db + " --input " + models + "/convnet.input.npy", &wrong), 2);
  EXPECT_NE(wrong.find("input 'input' must have shape [1, 16, 64], got [1, 3, 32, 32]"),
            std::string::npos)
      << wrong;
}

}  // namespace
}  // namespace pruner::e2e
