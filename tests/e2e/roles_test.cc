// Roles end to end (server/access_control.h): a real server with a
// credentials file, a real worker under its own credential, and calls by
// hand with each role's token. Each hole of the one-token design is shown
// closed: a worker token cannot touch jobs, a client token cannot register
// a worker, a worker cannot act for another, tokens are revoked by editing
// the file, and only an admin purges a worker's records.
#include <sys/wait.h>

#include <array>
#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <iterator>
#include <string>

#include "common/store/records_store.h"
#include "gtest/gtest.h"
#include "openssl/evp.h"
#include "tests/e2e/farm_fixture.h"

namespace pruner::e2e {
namespace {

using std::chrono::seconds;

const std::string kClientToken = "client-alice-0123456789abcdef";
const std::string kWorkerToken = "worker-edge01-0123456789abcdef";
const std::string kOtherWorkerToken = "worker-edge02-0123456789abcdef";
const std::string kAdminToken = "admin-ops-0123456789abcdef";

std::string Sha256Hex(const std::string& text) {
  std::array<unsigned char, EVP_MAX_MD_SIZE> digest{};
  unsigned int length = 0;
  EVP_Digest(text.data(), text.size(), digest.data(), &length, EVP_sha256(), nullptr);
  std::string hex;
  for (unsigned int i = 0; i < length; ++i) {
    char byte[3];
    std::snprintf(byte, sizeof(byte), "%02x", digest[i]);
    hex += byte;
  }
  return hex;
}

// edge-02's token is given as its hash, as an admin who keeps no plain
// tokens on the server would.
std::string Credentials(bool with_client) {
  std::string text = "# role   name     token\n";
  if (with_client) text += "client alice " + kClientToken + "\n";
  text += "worker edge-01 " + kWorkerToken + "   # the board by the window\n";
  text += "worker edge-02 sha256:" + Sha256Hex(kOtherWorkerToken) + "\n";
  text += "admin ops " + kAdminToken + "\n";
  return text;
}

// Replaces the file in one step, as an admin's editor or script should.
void RewriteCredentials(const std::string& path, const std::string& text) {
  const std::string tmp = path + ".new";
  std::ofstream(tmp) << text;
  std::filesystem::rename(tmp, path);
}

class RolesTest : public FarmTest {
 protected:
  void StartWithCredentials() {
    FarmOptions options;
    options.credentials = Credentials(/*with_client=*/true);
    StartServer(options);
  }

  grpc::Status ListJobsAs(const std::string& token) {
    v1::ListJobsReply reply;
    auto context = farm_->ContextWithToken(seconds(5), token);
    return farm_->Client()->ListJobs(context.get(), {}, &reply);
  }

  grpc::Status RegisterAs(const std::string& token, const std::string& name,
                          const v1::Device& device, std::string* worker_id = nullptr) {
    v1::RegisterRequest request;
    request.set_name(name);
    request.set_slots(1);
    *request.mutable_device() = device;
    v1::RegisterReply reply;
    auto context = farm_->ContextWithToken(seconds(5), token);
    grpc::Status status = farm_->WorkerStub()->Register(context.get(), request, &reply);
    if (worker_id != nullptr) *worker_id = reply.worker_id();
    return status;
  }

  // The workers as the admin sees them (the fixture's Workers() uses the
  // shared token, which this server does not know).
  std::vector<v1::WorkerInfo> WorkersAsAdmin() {
    v1::ListWorkersReply reply;
    auto context = farm_->ContextWithToken(seconds(5), kAdminToken);
    grpc::Status status = farm_->Client()->ListWorkers(context.get(), {}, &reply);
    EXPECT_TRUE(status.ok()) << status.error_message();
    return {reply.workers().begin(), reply.workers().end()};
  }

  v1::Device WaitForDevice() {
    std::vector<v1::WorkerInfo> workers;
    EXPECT_TRUE(Farm::WaitFor(
        [&] {
          workers = WorkersAsAdmin();
          return !workers.empty();
        },
        seconds(30)))
        << farm_->ServerLog();
    return workers.empty() ? v1::Device() : workers.front().device();
  }
};

TEST_F(RolesTest, EachRoleOnlyItsCallsWorkersOnlyThemselvesAndTokensRevocable) {
  StartWithCredentials();
  farm_->StartWorker("edge-01", {"--token-file", farm_->WriteTokenFile("edge-01", kWorkerToken)},
                     /*with_token=*/false);
  const v1::Device device = WaitForDevice();
  ASSERT_FALSE(device.key().empty());

  // A client reads and submits, but cannot be a worker or an admin.
  EXPECT_TRUE(ListJobsAs(kClientToken).ok());
  grpc::Status status = RegisterAs(kClientToken, "edge-01", device);
  EXPECT_EQ(status.error_code(), grpc::StatusCode::PERMISSION_DENIED) << status.error_message();
  std::printf("client registering a worker: %s\n", status.error_message().c_str());
  {
    v1::ReleaseWorkerRequest request;
    request.set_worker_name("edge-01");
    v1::ReleaseWorkerReply reply;
    auto context = farm_->ContextWithToken(seconds(5), kClientToken);
    status = farm_->AdminStub()->ReleaseWorker(context.get(), request, &reply);
    EXPECT_EQ(status.error_code(), grpc::StatusCode::PERMISSION_DENIED);
  }

  // A worker cannot read or cancel jobs.
  status = ListJobsAs(kWorkerToken);
  EXPECT_EQ(status.error_code(), grpc::StatusCode::PERMISSION_DENIED);
  {
    v1::CancelJobRequest request;
    request.set_job_id(1);
    v1::JobInfo reply;
    auto context = farm_->ContextWithToken(seconds(5), kWorkerToken);
    status = farm_->Client()->CancelJob(context.get(), request, &reply);
    EXPECT_EQ(status.error_code(), grpc::StatusCode::PERMISSION_DENIED);
    EXPECT_NE(status.error_message().find("needs a client credential"), std::string::npos)
        << status.error_message();
    std::printf("worker cancelling a job: %s\n", status.error_message().c_str());
  }

  // A worker credential is one worker: it registers only under its name...
  std::string edge01_id, edge02_id;
  EXPECT_TRUE(RegisterAs(kWorkerToken, "edge-01", device, &edge01_id).ok());
  status = RegisterAs(kWorkerToken, "edge-99", device);
  EXPECT_EQ(status.error_code(), grpc::StatusCode::PERMISSION_DENIED);
  std::printf("worker registering under another name: %s\n", status.error_message().c_str());
  // ...and acts only for its own registrations (edge-02's token is stored hashed).
  ASSERT_TRUE(RegisterAs(kOtherWorkerToken, "edge-02", device, &edge02_id).ok());
  auto stub = farm_->WorkerStub();
  {
    v1::HeartbeatRequest request;
    request.set_worker_id(edge01_id);
    v1::HeartbeatReply reply;
    auto context = farm_->ContextWithToken(seconds(5), kOtherWorkerToken);
    status = stub->Heartbeat(context.get(), request, &reply);
    EXPECT_EQ(status.error_code(), grpc::StatusCode::PERMISSION_DENIED);
  }
  {
    v1::LeaseRequest request;
    request.set_worker_id(edge01_id);
    request.set_max_candidates(1);
    v1::Lease reply;
    auto context = farm_->ContextWithToken(seconds(5), kOtherWorkerToken);
    status = stub->LeaseBatch(context.get(), request, &reply);
    EXPECT_EQ(status.error_code(), grpc::StatusCode::PERMISSION_DENIED);
  }
  {
    v1::ReportRequest request;
    request.set_worker_id(edge01_id);
    request.set_lease_id("any");
    request.add_results()->set_measurement_id("m-1");
    v1::ReportReply reply;
    auto context = farm_->ContextWithToken(seconds(5), kOtherWorkerToken);
    status = stub->ReportResults(context.get(), request, &reply);
    EXPECT_EQ(status.error_code(), grpc::StatusCode::PERMISSION_DENIED);
    std::printf("worker reporting for another: %s\n", status.error_message().c_str());
  }
  {
    v1::HeartbeatRequest request;
    request.set_worker_id(edge02_id);
    v1::HeartbeatReply reply;
    auto context = farm_->ContextWithToken(seconds(5), kOtherWorkerToken);
    EXPECT_TRUE(stub->Heartbeat(context.get(), request, &reply).ok());
    EXPECT_TRUE(reply.known());
  }

  // The admin does what a client does, and housekeeping; it is no worker.
  EXPECT_TRUE(ListJobsAs(kAdminToken).ok());
  EXPECT_EQ(RegisterAs(kAdminToken, "ops", device).error_code(),
            grpc::StatusCode::PERMISSION_DENIED);
  {
    v1::PurgeWorkerRecordsRequest request;
    request.set_worker_name("edge-02");
    request.set_dry_run(true);
    v1::PurgeWorkerRecordsReply reply;
    auto context = farm_->ContextWithToken(seconds(5), kAdminToken);
    status = farm_->AdminStub()->PurgeWorkerRecords(context.get(), request, &reply);
    EXPECT_TRUE(status.ok()) << status.error_message();
    EXPECT_EQ(reply.records(), 0);
  }
  EXPECT_EQ(ListJobsAs("not-a-token-of-this-server").error_code(),
            grpc::StatusCode::UNAUTHENTICATED);

  // Revoking alice is deleting her line: no restart.
  RewriteCredentials(farm_->credentials_file(), Credentials(/*with_client=*/false));
  status = ListJobsAs(kClientToken);
  EXPECT_EQ(status.error_code(), grpc::StatusCode::UNAUTHENTICATED) << status.error_message();
  std::printf("revoked client: %s\n", status.error_message().c_str());
  EXPECT_TRUE(ListJobsAs(kAdminToken).ok());

  // A broken edit leaves the last good table in force (alice stays out,
  // the admin stays in) and is logged.
  RewriteCredentials(farm_->credentials_file(), "client alice short\n");
  EXPECT_EQ(ListJobsAs(kClientToken).error_code(), grpc::StatusCode::UNAUTHENTICATED);
  EXPECT_TRUE(ListJobsAs(kAdminToken).ok());
  EXPECT_NE(farm_->ServerLog().find("previous credentials stay in force"), std::string::npos)
      << farm_->ServerLog();
}

TEST_F(RolesTest, WorkerMeasuresUnderItsCredentialAndOnlyAnAdminPurgesItsRecords) {
  StartWithCredentials();
  const std::string client_file = farm_->WriteTokenFile("alice", kClientToken);
  const std::string admin_file = farm_->WriteTokenFile("ops", kAdminToken);
  const std::string worker_file = farm_->WriteTokenFile("edge-01", kWorkerToken);

  // A worker holding a client's token, or another worker's name, stops at
  // once instead of retrying.
  Process wrong_role = farm_->StartWorker("edge-01", {"--token-file", client_file}, false);
  Process wrong_name = farm_->StartWorker("edge-77", {"--token-file", worker_file}, false);
  for (Process* p : {&wrong_role, &wrong_name}) {
    const int exit_status = farm_->WaitExit(*p, seconds(20));
    ASSERT_NE(exit_status, -1) << "a worker refused by the server must stop";
    EXPECT_TRUE(WIFEXITED(exit_status) && WEXITSTATUS(exit_status) != 0);
    EXPECT_NE(farm_->Log(*p).find("refused"), std::string::npos) << farm_->Log(*p);
  }

  farm_->StartWorker("edge-01", {"--token-file", worker_file}, false);
  const v1::Device device = WaitForDevice();
  ASSERT_FALSE(device.key().empty());
  v1::JobInfo job;
  {
    v1::SubmitJobRequest request;
    *request.mutable_spec() = SmallJob(device.key(), {"matmul:M=32,K=32,N=32"}, 12, 6);
    auto context = farm_->ContextWithToken(seconds(30), kClientToken);
    grpc::Status status = farm_->Client()->SubmitJob(context.get(), request, &job);
    ASSERT_TRUE(status.ok()) << status.error_message();
  }
  ASSERT_TRUE(Farm::WaitFor(
      [&] {
        v1::GetJobRequest request;
        request.set_job_id(job.id());
        v1::JobInfo info;
        auto context = farm_->ContextWithToken(seconds(5), kClientToken);
        return farm_->Client()->GetJob(context.get(), request, &info).ok() &&
               info.status() == "done";
      },
      seconds(240)))
      << farm_->ServerLog();
  const std::vector<StoredRecord> records = JobRecords(job.id());
  ASSERT_EQ(records.size(), 12u);
  for (const StoredRecord& r : records) EXPECT_EQ(r.measured_by, "edge-01");
  // Its bests were measured twice (by itself: it is the only worker), and
  // the second measurements are records of their own, outside the job.
  int64_t all_records = 0;
  {
    auto store = RecordsStore::Open(farm_->db_path());
    ASSERT_TRUE(store.ok());
    auto count = (*store)->CountRecords();
    ASSERT_TRUE(count.ok());
    all_records = *count;
  }
  EXPECT_GT(all_records, 12);
  const std::string n = std::to_string(all_records);

  // A client may not purge; the refusal says why.
  std::string out;
  EXPECT_NE(RunCli("admin purge-worker edge-01 --dry-run", &out, client_file), 0);
  EXPECT_NE(out.find("needs an admin credential"), std::string::npos) << out;
  EXPECT_NE(out.find("hint:"), std::string::npos) << out;

  // The admin's dry run removes nothing; the purge removes them all.
  out.clear();
  EXPECT_EQ(RunCli("admin purge-worker edge-01 --dry-run", &out, admin_file), 0) << out;
  EXPECT_NE(out.find("would remove " + n + " records of worker 'edge-01'"), std::string::npos)
      << out;
  EXPECT_NE(out.find("1 of their bests would change"), std::string::npos) << out;
  EXPECT_EQ(JobRecords(job.id()).size(), 12u);
  out.clear();
  EXPECT_EQ(RunCli("admin purge-worker edge-01", &out, admin_file), 0) << out;
  EXPECT_NE(out.find("removed " + n + " records"), std::string::npos) << out;
  std::printf("%s", out.c_str());
  EXPECT_TRUE(JobRecords(job.id()).empty());
}

// The way an admin is told to make credentials (deploy/README.md): the
// script keeps only hashes in the file and hands out token files; the
// server takes them, and --revoke takes one back while it runs.
TEST_F(RolesTest, CredentialsMadeByTheDeployScriptWork) {
  const std::string dir = ::testing::TempDir() + "/pruner-add-credential";
  std::filesystem::remove_all(dir);
  std::filesystem::create_directories(dir);
  const std::string script = std::string(PRUNER_SOURCE_DIR) + "/deploy/add-credential.sh";
  const std::string file = dir + "/credentials";
  for (const char* who : {"client alice", "worker edge-01", "admin ops"}) {
    const std::string command =
        script + " " + file + " " + who + " " + dir + "/tokens > /dev/null";
    ASSERT_EQ(std::system(command.c_str()), 0) << command;
  }
  std::ifstream in(file);
  const std::string text((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
  std::string alice_token;
  std::ifstream(dir + "/tokens/alice.token") >> alice_token;
  ASSERT_EQ(alice_token.size(), 64u);
  EXPECT_EQ(text.find(alice_token), std::string::npos) << "the file must hold hashes only";

  FarmOptions options;
  options.credentials = text;
  StartServer(options);
  EXPECT_TRUE(ListJobsAs(alice_token).ok());
  std::string out;
  EXPECT_EQ(RunCli("jobs", &out, dir + "/tokens/alice.token"), 0) << out;
  const std::string revoke =
      script + " --revoke " + farm_->credentials_file() + " client alice > /dev/null";
  ASSERT_EQ(std::system(revoke.c_str()), 0);
  EXPECT_EQ(ListJobsAs(alice_token).error_code(), grpc::StatusCode::UNAUTHENTICATED);
  std::filesystem::remove_all(dir);
}

}  // namespace
}  // namespace pruner::e2e
