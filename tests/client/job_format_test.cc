#include "client/job_format.h"

#include <cmath>
#include <limits>
#include <string>

#include "absl/strings/match.h"
#include "absl/strings/str_split.h"
#include "gmock/gmock.h"
#include "gtest/gtest.h"

namespace pruner {
namespace {

using ::testing::HasSubstr;
using ::testing::Not;

// dense 512³: 2·512³ FLOP in 0.5 ms is 536.9 GFLOP/s.
constexpr double kDenseFlops = 2.0 * 512 * 512 * 512;

v1::JobInfo TwoTaskJob() {
  v1::JobInfo job;
  job.set_id(3);
  job.set_name("bert");
  job.set_status("running");
  job.set_target("cpu-amd-epyc-2t-avx512f");
  job.set_strategy("ansor-xgb");
  job.set_trials(192);
  job.set_trial_budget(1000);
  job.set_elapsed_s(75);
  job.set_eta_s(3900);
  job.set_estimated_latency_s(1.0e-3);
  v1::TaskInfo* dense = job.add_tasks();
  dense->set_index(0);
  dense->set_name("dense_512x512x512");
  dense->set_weight(2);
  dense->set_flops(kDenseFlops);
  dense->set_trials(150);
  dense->set_best_cost_s(0.5e-3);
  dense->set_errors(4);
  v1::TaskInfo* softmax = job.add_tasks();
  softmax->set_index(1);
  softmax->set_name("softmax_16x100");
  softmax->set_weight(1);
  softmax->set_flops(1e5);
  softmax->set_trials(42);
  softmax->set_errors(7);
  return job;
}

// The table row of the task whose name is `name`.
std::string RowOf(const std::string& table, const std::string& name) {
  for (absl::string_view line : absl::StrSplit(table, '\n')) {
    if (absl::StrContains(line, name)) return std::string(line);
  }
  return "";
}

TEST(FormatDurationTest, SecondsMinutesHours) {
  EXPECT_EQ(FormatDuration(0), "0s");
  EXPECT_EQ(FormatDuration(42.9), "42s");
  EXPECT_EQ(FormatDuration(187), "3m07s");
  EXPECT_EQ(FormatDuration(3900), "1h05m");
  EXPECT_EQ(FormatDuration(7500), "2h05m");
}

TEST(FormatDurationTest, UnknownEstimatesAreADash) {
  EXPECT_EQ(FormatDuration(-1), "-");
  EXPECT_EQ(FormatDuration(std::nan("")), "-");
  EXPECT_EQ(FormatDuration(std::numeric_limits<double>::infinity()), "-");
  EXPECT_EQ(FormatDuration(1e12), ">1y");
}

TEST(FormatLatencyTest, MillisecondsOrDash) {
  EXPECT_EQ(FormatLatency(0.5e-3), "0.5000 ms");
  EXPECT_EQ(FormatLatency(1.23456e-2), "12.3456 ms");
  EXPECT_EQ(FormatLatency(0), "-");
  EXPECT_EQ(FormatLatency(-1), "-");
  EXPECT_EQ(FormatLatency(std::nan("")), "-");
}

TEST(TaskGflopsTest, FlopsOverBestCost) {
  v1::TaskInfo task;
  task.set_flops(kDenseFlops);
  task.set_best_cost_s(0.5e-3);
  EXPECT_NEAR(TaskGflops(task), 536.870912, 1e-6);
  task.set_best_cost_s(0);
  EXPECT_EQ(TaskGflops(task), 0);
}

TEST(FormatTaskTableTest, ResultsAndDashes) {
  const std::string table = FormatTaskTable(TwoTaskJob());
  EXPECT_THAT(table, HasSubstr("latency (ms)"));
  EXPECT_THAT(table, HasSubstr("GFLOP/s"));
  EXPECT_THAT(table, HasSubstr("errors"));

  const std::string dense = RowOf(table, "dense_512x512x512");
  EXPECT_THAT(dense, HasSubstr("|   0 |"));
  EXPECT_THAT(dense, HasSubstr("|      2 |"));       // weight
  EXPECT_THAT(dense, HasSubstr("|    150 |"));       // trials
  EXPECT_THAT(dense, HasSubstr("|       0.5000 |"));  // 0.5 ms
  EXPECT_THAT(dense, HasSubstr("|   536.9 |"));      // GFLOP/s
  EXPECT_THAT(dense, HasSubstr("|      4 |"));       // errors

  const std::string softmax = RowOf(table, "softmax_16x100");
  EXPECT_THAT(softmax, HasSubstr("|   1 |"));
  EXPECT_THAT(softmax, HasSubstr("|            - |       - |"));
  EXPECT_THAT(softmax, HasSubstr("|      7 |"));
}

TEST(FormatTaskTableTest, LongAndMultiLineNamesStayInTheirCell) {
  v1::JobInfo job;
  v1::TaskInfo* task = job.add_tasks();
  task->set_name(std::string(60, 'x') + "\nsecond line");
  const std::string table = FormatTaskTable(job);
  EXPECT_THAT(table, HasSubstr(std::string(41, 'x') + "..."));
  EXPECT_THAT(table, Not(HasSubstr("second line")));
  // Header, rule, one row.
  EXPECT_EQ(std::count(table.begin(), table.end(), '\n'), 3);
}

TEST(FormatProgressEventTest, RoundLineHasEveryNumber) {
  v1::ProgressEvent event;
  *event.mutable_job() = TwoTaskJob();
  (*event.mutable_job()->mutable_error_counts())["run timeout"] = 1;
  (*event.mutable_job()->mutable_error_counts())["build error"] = 2;
  event.set_round(12);
  event.set_task(0);
  event.set_measured(16);
  event.set_ok(14);
  event.add_errors("build error [build]: g++ exited 1\nfull compiler output");
  event.add_errors("run timeout [run]: killed after 10s");

  const std::string text = FormatProgressEvent(event);
  EXPECT_THAT(text, HasSubstr("round 12"));
  EXPECT_THAT(text, HasSubstr("task 0 dense_512x512x512"));
  EXPECT_THAT(text, HasSubstr("+16 (14 ok)"));
  EXPECT_THAT(text, HasSubstr("trials 192/1000"));
  EXPECT_THAT(text, HasSubstr("best 0.5000 ms"));
  EXPECT_THAT(text, HasSubstr("est. total 1.0000 ms (1 task without result)"));
  EXPECT_THAT(text, HasSubstr("elapsed 1m15s"));
  EXPECT_THAT(text, HasSubstr("ETA 1h05m"));
  // Sorted by class name whatever the map's order.
  EXPECT_THAT(text, HasSubstr("errors: build error 2, run timeout 1"));
  EXPECT_THAT(text, HasSubstr("    2 failed, first: build error [build]: g++ exited 1\n"));
  EXPECT_THAT(text, Not(HasSubstr("full compiler output")));
}

TEST(FormatProgressEventTest, TaskWithoutResultAndUnknownEta) {
  v1::ProgressEvent event;
  *event.mutable_job() = TwoTaskJob();
  event.mutable_job()->set_eta_s(-1);
  event.set_round(3);
  event.set_task(1);
  const std::string text = FormatProgressEvent(event);
  EXPECT_THAT(text, HasSubstr("task 1 softmax_16x100"));
  EXPECT_THAT(text, HasSubstr("best -"));
  EXPECT_THAT(text, HasSubstr("ETA -"));
  EXPECT_THAT(text, Not(HasSubstr("errors:")));
  EXPECT_EQ(std::count(text.begin(), text.end(), '\n'), 1);
}

TEST(FormatProgressEventTest, TaskIndexFromAnotherVersionDoesNotCrash) {
  v1::ProgressEvent event;
  *event.mutable_job() = TwoTaskJob();
  event.set_round(4);
  event.set_task(17);
  const std::string text = FormatProgressEvent(event);
  EXPECT_THAT(text, HasSubstr("task 17 ?"));
  EXPECT_THAT(text, HasSubstr("best -"));
}

TEST(FormatProgressEventTest, SnapshotIsOneSummaryLine) {
  v1::ProgressEvent event;
  *event.mutable_job() = TwoTaskJob();
  const std::string text = FormatProgressEvent(event);
  EXPECT_THAT(text, HasSubstr("job 3 \"bert\": running on cpu-amd-epyc-2t-avx512f"));
  EXPECT_THAT(text, HasSubstr("2 tasks"));
  EXPECT_THAT(text, HasSubstr("trials 192/1000"));
  EXPECT_EQ(std::count(text.begin(), text.end(), '\n'), 1);
}

TEST(FormatJobSummaryTest, StatusErrorsCandidatesAndMessage) {
  v1::JobInfo job = TwoTaskJob();
  job.set_status("pending");
  job.set_message("no worker for device a100-sxm4-40gb");
  job.set_queued_candidates(32);
  job.set_leased_candidates(0);
  (*job.mutable_error_counts())["wrong result"] = 5;
  (*job.mutable_error_counts())["device error"] = 0;
  const std::string text = FormatJobSummary(job);
  EXPECT_THAT(text, HasSubstr("job 3 \"bert\": pending on cpu-amd-epyc-2t-avx512f, strategy ansor-xgb"));
  EXPECT_THAT(text, HasSubstr("candidates: 32 queued, 0 leased"));
  EXPECT_THAT(text, HasSubstr("errors: wrong result 5\n"));  // zero counts left out
  EXPECT_THAT(text, HasSubstr("no worker for device a100-sxm4-40gb"));
}

TEST(FormatSubmittedTest, IdTasksTarget) {
  EXPECT_EQ(FormatSubmitted(TwoTaskJob()),
            "submitted job 3 (2 tasks, target cpu-amd-epyc-2t-avx512f)\n");
}

TEST(FormatJobListTest, RowPerJob) {
  v1::ListJobsReply reply;
  v1::JobInfo* job = reply.add_jobs();
  *job = TwoTaskJob();
  job->set_created_unix_ms(1700000000000);  // 2023-11-14 22:13:20 UTC
  v1::JobInfo* fresh = reply.add_jobs();
  fresh->set_id(4);
  fresh->set_status("pending");
  fresh->set_trial_budget(50);
  const std::string text = FormatJobList(reply, absl::UTCTimeZone());
  const std::string first = RowOf(text, "bert");
  EXPECT_THAT(first, HasSubstr("running"));
  EXPECT_THAT(first, HasSubstr("ansor-xgb"));
  EXPECT_THAT(first, HasSubstr("192/1000"));
  EXPECT_THAT(first, HasSubstr("1.0000 ms"));
  EXPECT_THAT(first, HasSubstr("2023-11-14 22:13"));
  const std::string second = RowOf(text, "pending");
  EXPECT_THAT(second, HasSubstr("0/50"));
  EXPECT_THAT(second, testing::EndsWith("-"));  // no creation time
}

TEST(FormatJobListTest, NoJobs) {
  EXPECT_THAT(FormatJobList(v1::ListJobsReply(), absl::UTCTimeZone()), HasSubstr("(no jobs)"));
}

TEST(FormatWorkerTableTest, HeartbeatAge) {
  constexpr int64_t kNow = 1700000000000;
  v1::ListWorkersReply reply;
  v1::WorkerInfo* fresh = reply.add_workers();
  fresh->set_name("gpu-box-1");
  fresh->mutable_device()->set_key("a100-sxm4-40gb");
  fresh->mutable_device()->set_description("NVIDIA A100-SXM4-40GB");
  fresh->set_slots(4);
  fresh->set_active_leases(3);
  fresh->set_measured(1234);
  fresh->set_last_heartbeat_unix_ms(kNow - 3500);
  v1::WorkerInfo* stale = reply.add_workers();
  stale->set_name("cpu-box");
  stale->set_last_heartbeat_unix_ms(kNow - 190000);
  v1::WorkerInfo* skewed = reply.add_workers();
  skewed->set_name("ahead");
  skewed->set_last_heartbeat_unix_ms(kNow + 5000);
  v1::WorkerInfo* silent = reply.add_workers();
  silent->set_name("silent");
  v1::WorkerInfo* rogue = reply.add_workers();
  rogue->set_name("rogue");
  rogue->set_implausible_reports(3);
  rogue->set_quarantined(true);
  rogue->set_quarantine_reason("3 implausible results; last: ...");

  const std::string text = FormatWorkerTable(reply, kNow);
  const std::string row = RowOf(text, "gpu-box-1");
  EXPECT_THAT(row, HasSubstr("a100-sxm4-40gb"));
  EXPECT_THAT(row, HasSubstr("NVIDIA A100-SXM4-40GB"));
  EXPECT_THAT(row, HasSubstr("    4      3     1234       0  3s ago"));
  EXPECT_THAT(RowOf(text, "cpu-box"), HasSubstr("3m10s ago"));
  EXPECT_THAT(RowOf(text, "ahead"), HasSubstr("0s ago"));
  EXPECT_THAT(RowOf(text, "silent"), HasSubstr("never"));
  EXPECT_THAT(RowOf(text, "rogue"), HasSubstr("       3  never"));
  EXPECT_THAT(text, HasSubstr("  QUARANTINED (no leases): 3 implausible results; last: ..."));
}

TEST(FormatBestRecordsTest, LatencyGflopsSentence) {
  v1::BestRecordsReply reply;
  reply.set_job_id(3);
  reply.set_target("cpu-x");
  reply.set_estimated_latency_s(1e-3);
  v1::BestRecord* record = reply.add_records();
  record->set_task_index(0);
  record->set_task_name("dense_512x512x512");
  record->set_weight(2);
  record->set_gflops(536.870912);
  record->set_sentence("SP 2 0 512 [8,4,2]; AN 2 0 parallel");
  record->mutable_result()->set_mean_s(0.5e-3);
  record->mutable_result()->add_repeat_costs_s(0.49e-3);
  record->mutable_result()->add_repeat_costs_s(0.51e-3);
  record->mutable_result()->set_measured_by("w1");
  const std::string text = FormatBestRecords(reply);
  EXPECT_THAT(text, HasSubstr("job 3 on cpu-x: 1 task with a result, est. total 1.0000 ms"));
  EXPECT_THAT(text, HasSubstr("task 0  dense_512x512x512  weight 2"));
  EXPECT_THAT(text, HasSubstr("0.5000 ms  536.9 GFLOP/s  2 repeats  measured by w1"));
  EXPECT_THAT(text, HasSubstr("    SP 2 0 512 [8,4,2]; AN 2 0 parallel\n"));
}

TEST(FormatBestRecordsTest, NothingYet) {
  v1::BestRecordsReply reply;
  reply.set_job_id(5);
  reply.set_target("cpu-x");
  EXPECT_EQ(FormatBestRecords(reply), "job 5 on cpu-x: no task has a valid result yet\n");
}

}  // namespace
}  // namespace pruner
