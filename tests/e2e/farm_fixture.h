// The fixture the end-to-end tests share: a Farm (farm.h) plus the client
// and hand-driven-worker calls the tests make through it.
#ifndef PRUNER_TESTS_E2E_FARM_FIXTURE_H_
#define PRUNER_TESTS_E2E_FARM_FIXTURE_H_

#include <sys/wait.h>

#include <chrono>
#include <cstdio>
#include <functional>
#include <memory>
#include <set>
#include <string>
#include <thread>
#include <utility>
#include <vector>

#include "common/store/records_store.h"
#include "gtest/gtest.h"
#include "bench/service/local_farm.h"

namespace pruner::e2e {

class FarmTest : public ::testing::Test {
 protected:
  // Runs the `pruner` tool against the farm's server with its token (or
  // the one in `token_file`); appends stdout and stderr to *out and returns
  // the exit code.
  int RunCli(const std::string& args, std::string* out, const std::string& token_file = "") {
    const std::string command = "PRUNER_SERVER=" + farm_->address() + " PRUNER_TOKEN_FILE=" +
                                (token_file.empty() ? farm_->token_file() : token_file) + " " +
                                PRUNER_CLI_BIN + " " + args + " 2>&1";
    FILE* pipe = popen(command.c_str(), "r");
    char buffer[4096];
    size_t n;
    while ((n = fread(buffer, 1, sizeof(buffer), pipe)) > 0) out->append(buffer, n);
    const int status = pclose(pipe);
    return WIFEXITED(status) ? WEXITSTATUS(status) : -1;
  }

  void StartServer(FarmOptions options = {}) {
    farm_ = std::make_unique<Farm>(options);
    std::string error;
    ASSERT_TRUE(farm_->StartServer(0, &error)) << error;
  }

  std::vector<v1::WorkerInfo> Workers() {
    v1::ListWorkersReply reply;
    auto context = farm_->Context(std::chrono::seconds(5));
    grpc::Status status = farm_->Client()->ListWorkers(context.get(), {}, &reply);
    EXPECT_TRUE(status.ok()) << status.error_message();
    return {reply.workers().begin(), reply.workers().end()};
  }

  // Waits until `n` workers are registered; returns their (shared) device key.
  std::string WaitForWorkers(size_t n) {
    std::vector<v1::WorkerInfo> workers;
    const bool ok = Farm::WaitFor(
        [&] {
          workers = Workers();
          return workers.size() >= n;
        },
        std::chrono::seconds(30));
    EXPECT_TRUE(ok) << "workers registered: " << workers.size() << "\nserver log:\n"
                    << farm_->ServerLog();
    return workers.empty() ? "" : workers.front().device().key();
  }

  v1::JobInfo Submit(const v1::JobSpec& spec) {
    v1::SubmitJobRequest request;
    *request.mutable_spec() = spec;
    v1::JobInfo info;
    auto context = farm_->Context(std::chrono::seconds(30));
    grpc::Status status = farm_->Client()->SubmitJob(context.get(), request, &info);
    EXPECT_TRUE(status.ok()) << status.error_message();
    return info;
  }

  grpc::Status TrySubmit(const v1::JobSpec& spec, bool with_token = true) {
    v1::SubmitJobRequest request;
    *request.mutable_spec() = spec;
    v1::JobInfo info;
    auto context = farm_->Context(std::chrono::seconds(30), with_token);
    return farm_->Client()->SubmitJob(context.get(), request, &info);
  }

  v1::JobInfo Get(int64_t job_id) {
    v1::GetJobRequest request;
    request.set_job_id(job_id);
    v1::JobInfo info;
    auto context = farm_->Context(std::chrono::seconds(10));
    grpc::Status status = farm_->Client()->GetJob(context.get(), request, &info);
    EXPECT_TRUE(status.ok()) << status.error_message();
    return info;
  }

  // A worker driven by hand, on the device of the first live worker: it
  // registers as `name` and long-polls for up to `max_candidates` while
  // `submit` runs (so it competes for the new job's first batch).
  struct HandLease {
    std::string worker_id;
    v1::Lease lease;
    grpc::Status status;
  };
  HandLease LeaseByHand(const std::string& name, int max_candidates,
                        const std::function<void()>& submit) {
    HandLease out;
    auto stub = farm_->WorkerStub();
    v1::RegisterRequest reg;
    reg.set_name(name);
    reg.set_slots(1);
    *reg.mutable_device() = Workers().front().device();
    v1::RegisterReply registered;
    auto context = farm_->Context(std::chrono::seconds(5));
    out.status = stub->Register(context.get(), reg, &registered);
    if (!out.status.ok()) return out;
    out.worker_id = registered.worker_id();
    std::thread poller([&] {
      v1::LeaseRequest request;
      request.set_worker_id(out.worker_id);
      request.set_max_candidates(max_candidates);
      request.set_wait_ms(20000);
      auto lease_context = farm_->Context(std::chrono::seconds(30));
      out.status = stub->LeaseBatch(lease_context.get(), request, &out.lease);
    });
    std::this_thread::sleep_for(std::chrono::milliseconds(200));
    submit();
    poller.join();
    return out;
  }

  // Watches the job to its end (or `timeout`); returns the events.
  std::vector<v1::ProgressEvent> Watch(int64_t job_id, std::chrono::seconds timeout) {
    v1::WatchJobRequest request;
    request.set_job_id(job_id);
    auto context = farm_->Context(timeout);
    auto reader = farm_->Client()->WatchJob(context.get(), request);
    std::vector<v1::ProgressEvent> events;
    v1::ProgressEvent event;
    while (reader->Read(&event)) {
      events.push_back(event);
      if (event.final()) break;
    }
    context->TryCancel();
    reader->Finish();
    return events;
  }

  std::vector<StoredRecord> JobRecords(int64_t job_id) {
    auto store = RecordsStore::Open(farm_->db_path());
    EXPECT_TRUE(store.ok()) << store.status();
    if (!store.ok()) return {};
    auto records = (*store)->JobRecords(job_id);
    EXPECT_TRUE(records.ok()) << records.status();
    return records.ok() ? *records : std::vector<StoredRecord>{};
  }

  // No schedule of a task measured twice.
  static void ExpectNoDuplicates(const std::vector<StoredRecord>& records) {
    std::set<std::pair<int, std::string>> seen;
    for (const StoredRecord& r : records) {
      EXPECT_TRUE(seen.emplace(r.task_index, r.steps).second)
          << "task " << r.task_index << " measured twice: " << r.steps;
    }
  }

  std::unique_ptr<Farm> farm_;
};

}  // namespace pruner::e2e

#endif  // PRUNER_TESTS_E2E_FARM_FIXTURE_H_
