// The service commands against a real gRPC server in the test process:
// what they send, what they print, and their exit codes.
#include "client/service_commands.h"

#include <unistd.h>

#include <atomic>
#include <filesystem>
#include <fstream>
#include <map>
#include <sstream>
#include <thread>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_split.h"
#include "gmock/gmock.h"
#include "google/protobuf/util/json_util.h"
#include "google/protobuf/util/message_differencer.h"
#include "gtest/gtest.h"
#include "tests/client/fake_tuning_service.h"

namespace pruner {
namespace {

using ::testing::ElementsAre;
using ::testing::HasSubstr;
using ::testing::IsEmpty;
using ::testing::Not;

constexpr int64_t kJob = FakeTuningService::kJobId;

std::filesystem::path TestPath(const std::string& what) {
  return std::filesystem::temp_directory_path() /
         absl::StrCat("pruner_client_test_", getpid(), "_",
                      testing::UnitTest::GetInstance()->current_test_info()->name(), "_", what);
}

std::string WriteTemp(const std::string& what, const std::string& content) {
  const std::filesystem::path path = TestPath(what);
  std::ofstream(path) << content;
  return path.string();
}

v1::ProgressEvent Event(int round, const std::string& status, bool final) {
  v1::ProgressEvent event;
  *event.mutable_job() = FakeTuningService::SampleJob(status);
  event.mutable_job()->set_trials(40 + 16 * round);
  event.set_round(round);
  event.set_task(round % 2);
  event.set_measured(round > 0 ? 16 : 0);
  event.set_ok(round > 0 ? 15 : 0);
  event.set_final(final);
  return event;
}

// A watch that starts with the snapshot, runs `rounds` rounds and ends with
// the job in `final_status`.
std::vector<v1::ProgressEvent> Script(int rounds, const std::string& final_status) {
  std::vector<v1::ProgressEvent> events = {Event(0, "running", false)};
  for (int round = 1; round < rounds; ++round) events.push_back(Event(round, "running", false));
  events.push_back(Event(rounds, final_status, true));
  return events;
}

int CountOf(const std::string& text, const std::string& needle) {
  int count = 0;
  for (size_t at = text.find(needle); at != std::string::npos; at = text.find(needle, at + 1)) {
    ++count;
  }
  return count;
}

class ServiceCommandsTest : public testing::Test {
 protected:
  ServiceCommandsTest() : server_(&service_) {
    flags_.server = server_.address();
    flags_.rpc_timeout_s = 10;
  }
  CommandStreams io() { return CommandStreams{out_, err_}; }

  FakeTuningService service_;
  FakeServer server_;
  ServiceFlags flags_;
  std::ostringstream out_;
  std::ostringstream err_;
};

TEST_F(ServiceCommandsTest, SubmitSendsTheSpecFromFlags) {
  SubmitFlags submit;
  submit.ops = {"dense:M=512,K=512,N=512", "softmax:M=16,N=100"};
  submit.target = "cpu-test";
  submit.name = "two ops";
  submit.strategy = "ansor-random";
  submit.scheduler = "round-robin";
  submit.trials = 256;
  submit.per_round = 16;
  submit.seed = 42;
  submit.number = 1;
  submit.repeat = 3;
  submit.min_repeat_ms = 20;
  submit.threads = 2;
  submit.run_timeout_s = 5;
  submit.build_timeout_s = 60;

  ASSERT_EQ(RunSubmit(flags_, submit, io()), kExitOk) << err_.str();
  const v1::JobSpec spec = service_.last_spec();
  EXPECT_THAT(spec.ops(), ElementsAre("dense:M=512,K=512,N=512", "softmax:M=16,N=100"));
  EXPECT_TRUE(spec.network().empty());
  EXPECT_EQ(spec.target(), "cpu-test");
  EXPECT_EQ(spec.name(), "two ops");
  EXPECT_EQ(spec.strategy(), "ansor-random");
  EXPECT_EQ(spec.scheduler(), "round-robin");
  EXPECT_EQ(spec.trial_budget(), 256);
  EXPECT_EQ(spec.measures_per_round(), 16);
  EXPECT_EQ(spec.seed(), 42u);
  EXPECT_EQ(spec.measure().number(), 1);
  EXPECT_EQ(spec.measure().repeat(), 3);
  EXPECT_DOUBLE_EQ(spec.measure().min_repeat_ms(), 20);
  EXPECT_EQ(spec.measure().num_threads(), 2);
  EXPECT_DOUBLE_EQ(spec.measure().run_timeout_s(), 5);
  EXPECT_DOUBLE_EQ(spec.measure().build_timeout_s(), 60);
  EXPECT_EQ(out_.str(), "submitted job 7 (2 tasks, target cpu-test)\n");
  EXPECT_THAT(err_.str(), IsEmpty());
}

TEST_F(ServiceCommandsTest, SubmitReadsTheSpecFileAndFlagsWin) {
  SubmitFlags submit;
  submit.spec_file = WriteTemp("spec.json", R"({"network": "bert-tiny", "target": "cpu-test",
      "trialBudget": 100, "measure": {"repeat": 5}})");
  submit.trials = 900;
  ASSERT_EQ(RunSubmit(flags_, submit, io()), kExitOk) << err_.str();
  std::filesystem::remove(submit.spec_file);
  const v1::JobSpec spec = service_.last_spec();
  EXPECT_EQ(spec.network(), "bert-tiny");
  EXPECT_EQ(spec.trial_budget(), 900);
  EXPECT_EQ(spec.measure().repeat(), 5);
  EXPECT_EQ(out_.str(), "submitted job 7 (8 tasks, target cpu-test)\n");
}

TEST_F(ServiceCommandsTest, SubmitUsageErrorsNeverReachTheServer) {
  SubmitFlags no_target;
  no_target.network = "bert-tiny";
  EXPECT_EQ(RunSubmit(flags_, no_target, io()), kExitRefused);
  EXPECT_THAT(err_.str(), HasSubstr("error: no target"));

  SubmitFlags missing_file;
  missing_file.spec_file = TestPath("does-not-exist.json").string();
  EXPECT_EQ(RunSubmit(flags_, missing_file, io()), kExitRefused);
  EXPECT_THAT(err_.str(), HasSubstr("does-not-exist.json"));

  SubmitFlags bad_file;
  bad_file.spec_file = WriteTemp("bad.json", R"({"network": "bert-tiny", "budget": 1})");
  EXPECT_EQ(RunSubmit(flags_, bad_file, io()), kExitRefused);
  std::filesystem::remove(bad_file.spec_file);
  EXPECT_THAT(err_.str(), HasSubstr("budget"));

  EXPECT_EQ(service_.submit_calls(), 0);
}

TEST_F(ServiceCommandsTest, ServerRefusalIsPrintedAsIs) {
  SubmitFlags submit;
  submit.network = "bert-tiny";
  submit.target = "tpu";
  EXPECT_EQ(RunSubmit(flags_, submit, io()), kExitRefused);
  EXPECT_EQ(err_.str(), "error: unknown target 'tpu'\n");
  EXPECT_THAT(out_.str(), IsEmpty());
}

TEST_F(ServiceCommandsTest, SubmitJsonPrintsTheReply) {
  flags_.json = true;
  SubmitFlags submit;
  submit.network = "bert-tiny";
  submit.target = "cpu-test";
  ASSERT_EQ(RunSubmit(flags_, submit, io()), kExitOk) << err_.str();
  v1::JobInfo job;
  ASSERT_TRUE(google::protobuf::util::JsonStringToMessage(out_.str(), &job).ok()) << out_.str();
  EXPECT_EQ(job.id(), kJob);
  EXPECT_EQ(job.tasks_size(), 8);
  EXPECT_EQ(CountOf(out_.str(), "\n"), 1);
}

TEST_F(ServiceCommandsTest, WatchPrintsRoundsAndTablesAndExitsZeroWhenDone) {
  service_.watch_events = Script(12, "done");
  ASSERT_EQ(RunWatch(flags_, kJob, io()), kExitOk) << err_.str();
  const std::string text = out_.str();
  EXPECT_THAT(text, HasSubstr("job 7 \"bert-tiny\": running on cpu-test, 2 tasks"));
  for (int round = 1; round <= 12; ++round) {
    EXPECT_THAT(text, HasSubstr(absl::StrCat("round ", round, "  task ", round % 2)));
  }
  EXPECT_THAT(text, HasSubstr("+16 (15 ok)"));
  EXPECT_THAT(text, HasSubstr("trials 232/200"));  // round 12: 40 + 16·12
  EXPECT_THAT(text, HasSubstr("errors: build error 3, run timeout 1"));
  // After round 10 and at the end.
  EXPECT_EQ(CountOf(text, "latency (ms)"), 2);
  EXPECT_THAT(text, HasSubstr("|       0.5000 |   536.9 |"));
  EXPECT_THAT(text, HasSubstr("job 7 \"bert-tiny\": done on cpu-test"));
  EXPECT_THAT(err_.str(), IsEmpty());
}

TEST_F(ServiceCommandsTest, WatchExitsOneWhenTheJobFailedOrWasCancelled) {
  for (const std::string status : {"failed", "cancelled"}) {
    service_.watch_events = Script(2, status);
    service_.watch_events.back().mutable_job()->set_message("no worker for device tpu-v9");
    out_.str("");
    EXPECT_EQ(RunWatch(flags_, kJob, io()), kExitJobFailed) << status;
    EXPECT_THAT(out_.str(), HasSubstr(absl::StrCat("\"bert-tiny\": ", status, " on cpu-test")));
    EXPECT_THAT(out_.str(), HasSubstr("no worker for device tpu-v9"));
  }
}

TEST_F(ServiceCommandsTest, WatchJsonIsOneEventPerLine) {
  flags_.json = true;
  service_.watch_events = Script(3, "done");
  ASSERT_EQ(RunWatch(flags_, kJob, io()), kExitOk) << err_.str();
  std::vector<std::string> lines = absl::StrSplit(out_.str(), '\n', absl::SkipEmpty());
  ASSERT_EQ(lines.size(), 4u);
  for (size_t i = 0; i < lines.size(); ++i) {
    v1::ProgressEvent event;
    ASSERT_TRUE(google::protobuf::util::JsonStringToMessage(lines[i], &event).ok()) << lines[i];
    EXPECT_EQ(event.round(), static_cast<int>(i));
    EXPECT_EQ(event.final(), i == 3);
  }
}

TEST_F(ServiceCommandsTest, WatchStreamEndingWithoutFinalEventIsAnError) {
  service_.watch_events = {Event(0, "running", false), Event(1, "running", false)};
  EXPECT_EQ(RunWatch(flags_, kJob, io()), kExitRefused);
  EXPECT_THAT(err_.str(), HasSubstr("closed the stream before job 7 ended"));
}

TEST_F(ServiceCommandsTest, InterruptStopsWatchingNotTheJob) {
  service_.watch_events = {Event(0, "running", false), Event(1, "running", false)};
  service_.hold_watch_open = true;
  std::atomic<bool> stop{false};
  std::thread interrupter([&] {
    std::this_thread::sleep_for(std::chrono::milliseconds(300));
    stop.store(true);
  });
  const auto start = std::chrono::steady_clock::now();
  const int code = RunWatch(flags_, kJob, io(), &stop);
  interrupter.join();
  EXPECT_EQ(code, kExitInterrupted);
  EXPECT_LT(std::chrono::steady_clock::now() - start, std::chrono::seconds(5));
  EXPECT_THAT(out_.str(), HasSubstr("round 1"));
  EXPECT_THAT(err_.str(), HasSubstr("stopped watching job 7; it keeps running"));
  EXPECT_EQ(service_.cancel_calls(), 0);
  // The server learns the watcher left, so it can drop the stream.
  for (int i = 0; i < 200 && !service_.watch_saw_cancel(); ++i) {
    std::this_thread::sleep_for(std::chrono::milliseconds(10));
  }
  EXPECT_TRUE(service_.watch_saw_cancel());
}

TEST_F(ServiceCommandsTest, SubmitWatchFollowsTheNewJob) {
  service_.watch_events = Script(1, "done");
  SubmitFlags submit;
  submit.network = "bert-tiny";
  submit.target = "cpu-test";
  submit.watch = true;
  ASSERT_EQ(RunSubmit(flags_, submit, io()), kExitOk) << err_.str();
  EXPECT_THAT(out_.str(), HasSubstr("submitted job 7 (8 tasks, target cpu-test)\n"));
  EXPECT_THAT(out_.str(), HasSubstr("round 1"));
  EXPECT_THAT(out_.str(), HasSubstr(": done on cpu-test"));
}

TEST_F(ServiceCommandsTest, UnreachableServerGetsTheHint) {
  flags_.server = UnusedLoopbackAddress();
  EXPECT_EQ(RunListWorkers(flags_, io()), kExitRefused);
  EXPECT_THAT(err_.str(), HasSubstr("error: "));
  EXPECT_THAT(err_.str(), HasSubstr(absl::StrCat("hint: is the server running at ", flags_.server,
                                                 "? (deploy/local-farm.sh start)")));
  err_.str("");
  EXPECT_EQ(RunWatch(flags_, kJob, io()), kExitRefused);
  EXPECT_THAT(err_.str(), HasSubstr("hint: is the server running at"));
}

TEST_F(ServiceCommandsTest, TokenTravelsAsBearerMetadata) {
  service_.token = "s3cret-token";
  flags_.token_file = WriteTemp("token", "s3cret-token\n");
  EXPECT_EQ(RunJobStatus(flags_, kJob, io()), kExitOk) << err_.str();
  EXPECT_EQ(service_.last_authorization(), "Bearer s3cret-token");
  std::filesystem::remove(flags_.token_file);

  flags_.token_file.clear();
  flags_.token = "s3cret-token";  // as $PRUNER_TOKEN gives it
  EXPECT_EQ(RunJobStatus(flags_, kJob, io()), kExitOk) << err_.str();
  EXPECT_EQ(service_.last_authorization(), "Bearer s3cret-token");
}

TEST_F(ServiceCommandsTest, MissingOrWrongTokenGetsTheHint) {
  service_.token = "s3cret-token";
  EXPECT_EQ(RunJobStatus(flags_, kJob, io()), kExitRefused);
  EXPECT_THAT(service_.last_authorization(), IsEmpty());
  EXPECT_THAT(err_.str(), HasSubstr("hint: pass --token-file or set PRUNER_TOKEN_FILE"));

  err_.str("");
  flags_.token = "guess";
  EXPECT_EQ(RunJobStatus(flags_, kJob, io()), kExitRefused);
  EXPECT_EQ(service_.last_authorization(), "Bearer guess");
  EXPECT_THAT(err_.str(), HasSubstr("error: invalid token"));
}

TEST_F(ServiceCommandsTest, UnreadableTokenFileIsAUsageError) {
  flags_.token_file = TestPath("no-token").string();
  EXPECT_EQ(RunJobStatus(flags_, kJob, io()), kExitRefused);
  EXPECT_THAT(err_.str(), HasSubstr("no-token"));
}

TEST_F(ServiceCommandsTest, SilentServerHitsTheDeadline) {
  flags_.rpc_timeout_s = 0.3;
  const auto start = std::chrono::steady_clock::now();
  EXPECT_EQ(RunJobStatus(flags_, FakeTuningService::kSilentJobId, io()), kExitRefused);
  EXPECT_LT(std::chrono::steady_clock::now() - start, std::chrono::seconds(5));
  EXPECT_THAT(err_.str(), HasSubstr("did not answer in time"));
}

TEST_F(ServiceCommandsTest, StatusPrintsSummaryAndTable) {
  ASSERT_EQ(RunJobStatus(flags_, kJob, io()), kExitOk) << err_.str();
  EXPECT_THAT(out_.str(), HasSubstr("job 7 \"bert-tiny\": running on cpu-test, strategy ansor-xgb"));
  EXPECT_THAT(out_.str(), HasSubstr("trials 40/200"));
  EXPECT_THAT(out_.str(), HasSubstr("|   536.9 |"));
  EXPECT_THAT(out_.str(), HasSubstr("|            - |       - |"));
}

TEST_F(ServiceCommandsTest, StatusJsonRoundTrips) {
  flags_.json = true;
  ASSERT_EQ(RunJobStatus(flags_, kJob, io()), kExitOk) << err_.str();
  v1::JobInfo job;
  ASSERT_TRUE(google::protobuf::util::JsonStringToMessage(out_.str(), &job).ok());
  EXPECT_TRUE(google::protobuf::util::MessageDifferencer::Equals(
      job, FakeTuningService::SampleJob("running")))
      << job.ShortDebugString();
}

TEST_F(ServiceCommandsTest, UnknownJobIsNotFound) {
  EXPECT_EQ(RunJobStatus(flags_, 12345, io()), kExitRefused);
  EXPECT_EQ(err_.str(), "error: job 12345 not found\n");
}

TEST_F(ServiceCommandsTest, CancelJobsWorkersBest) {
  ASSERT_EQ(RunCancelJob(flags_, kJob, io()), kExitOk) << err_.str();
  EXPECT_EQ(service_.cancel_calls(), 1);
  EXPECT_THAT(out_.str(), HasSubstr(": cancelled on cpu-test"));

  out_.str("");
  ASSERT_EQ(RunListJobs(flags_, io()), kExitOk) << err_.str();
  EXPECT_THAT(out_.str(), HasSubstr("bert-tiny"));
  EXPECT_THAT(out_.str(), HasSubstr("40/200"));

  out_.str("");
  ASSERT_EQ(RunListWorkers(flags_, io()), kExitOk) << err_.str();
  EXPECT_THAT(out_.str(), HasSubstr("gpu-box-1"));
  EXPECT_THAT(out_.str(), HasSubstr("a100-sxm4-40gb"));
  EXPECT_THAT(out_.str(), HasSubstr("1234"));

  out_.str("");
  ASSERT_EQ(RunBestRecords(flags_, kJob, io()), kExitOk) << err_.str();
  EXPECT_THAT(out_.str(), HasSubstr("0.5000 ms  536.9 GFLOP/s"));
  EXPECT_THAT(out_.str(), HasSubstr("SP 2 0 512 [8,4,2]; AN 2 0 parallel"));
}

TEST_F(ServiceCommandsTest, ExportWritesUnderTheFolder) {
  v1::ExportedFile* file = service_.export_reply.add_files();
  file->set_path("task00_dense.cc");
  file->set_content("void kernel() {}\n");
  service_.export_reply.set_manifest_json(R"({"job": 7})");
  const std::filesystem::path dir = TestPath("export");
  ASSERT_EQ(RunExportJob(flags_, kJob, dir.string(), io()), kExitOk) << err_.str();
  EXPECT_THAT(out_.str(), HasSubstr(absl::StrCat("wrote ", (dir / "task00_dense.cc").string())));
  EXPECT_THAT(out_.str(), HasSubstr(absl::StrCat("wrote ", (dir / "manifest.json").string())));
  EXPECT_TRUE(std::filesystem::exists(dir / "task00_dense.cc"));
  EXPECT_TRUE(std::filesystem::exists(dir / "manifest.json"));
  std::filesystem::remove_all(dir);
}

TEST_F(ServiceCommandsTest, ExportRefusesPathsOutsideTheFolder) {
  service_.export_reply.add_files()->set_path("../escaped.cc");
  const std::filesystem::path dir = TestPath("export");
  EXPECT_EQ(RunExportJob(flags_, kJob, dir.string(), io()), kExitRefused);
  EXPECT_THAT(err_.str(), HasSubstr("refusing to write exported file '../escaped.cc'"));
  EXPECT_FALSE(std::filesystem::exists(dir));
  EXPECT_FALSE(std::filesystem::exists(dir.parent_path() / "escaped.cc"));
}

TEST(WithEnvironmentDefaultsTest, FlagsThenEnvironmentThenDefault) {
  std::map<std::string, std::string> env;
  auto lookup = [&env](const char* name) -> const char* {
    auto it = env.find(name);
    return it == env.end() ? nullptr : it->second.c_str();
  };
  ServiceFlags none = WithEnvironmentDefaults(ServiceFlags(), lookup);
  EXPECT_EQ(none.server, "127.0.0.1:7070");
  EXPECT_THAT(none.token_file, IsEmpty());
  EXPECT_THAT(none.token, IsEmpty());

  env = {{"PRUNER_SERVER", "farm:7070"}, {"PRUNER_TOKEN", "literal"}};
  ServiceFlags from_env = WithEnvironmentDefaults(ServiceFlags(), lookup);
  EXPECT_EQ(from_env.server, "farm:7070");
  EXPECT_EQ(from_env.token, "literal");

  env["PRUNER_TOKEN_FILE"] = "/etc/pruner/token";
  ServiceFlags file_wins = WithEnvironmentDefaults(ServiceFlags(), lookup);
  EXPECT_EQ(file_wins.token_file, "/etc/pruner/token");
  EXPECT_THAT(file_wins.token, IsEmpty());

  ServiceFlags given;
  given.server = "other:1";
  given.token_file = "mine";
  ServiceFlags flags_win = WithEnvironmentDefaults(given, lookup);
  EXPECT_EQ(flags_win.server, "other:1");
  EXPECT_EQ(flags_win.token_file, "mine");
}

}  // namespace
}  // namespace pruner
