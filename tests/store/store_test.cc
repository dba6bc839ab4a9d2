// Round trips through every table of the records store, in memory and in a
// file that is closed and opened again.
#include <algorithm>
#include <cmath>
#include <limits>
#include <string>
#include <vector>

#include "common/device/device_profile.h"
#include "common/measure/measure_types.h"
#include "common/store/records_store.h"
#include "common/store/schema.h"
#include "gtest/gtest.h"
#include "tests/store/store_test_util.h"

namespace pruner {
namespace {

using store_test::ErrorRecord;
using store_test::ExpectSameRecord;
using store_test::Matmul;
using store_test::OkRecord;
using store_test::TempDir;
using store_test::TestDevice;

constexpr MeasureError kAllErrors[] = {
    MeasureError::kNone,         MeasureError::kInvalidSchedule, MeasureError::kBuildError,
    MeasureError::kBuildTimeout, MeasureError::kRunError,        MeasureError::kRunTimeout,
    MeasureError::kWrongResult,  MeasureError::kDeviceError};

TEST(StoreMeasureErrorNameTest, EveryClassParsesBack) {
  for (MeasureError error : kAllErrors) {
    EXPECT_EQ(ParseMeasureErrorName(MeasureErrorName(error)), error) << MeasureErrorName(error);
  }
  EXPECT_EQ(ParseMeasureErrorName("unknown"), std::nullopt);
  EXPECT_EQ(ParseMeasureErrorName("Run Error"), std::nullopt);
  EXPECT_EQ(ParseMeasureErrorName(""), std::nullopt);
}

TEST(StoreJobStatusTest, EveryStatusParsesBack) {
  for (JobStatus s : {JobStatus::kPending, JobStatus::kRunning, JobStatus::kStopped,
                      JobStatus::kDone, JobStatus::kFailed, JobStatus::kCancelled}) {
    EXPECT_EQ(ParseJobStatus(JobStatusName(s)), s) << JobStatusName(s);
  }
  EXPECT_EQ(ParseJobStatus("finished"), std::nullopt);
}

TEST(StoreTest, NewDatabaseHasTheLatestSchema) {
  ASSIGN_OR_FAIL(auto store, RecordsStore::Open(":memory:"));
  EXPECT_EQ(store->schema_version(), store_internal::LatestSchemaVersion());
  EXPECT_EQ(store->schema_version(), 3);
  ASSIGN_OR_FAIL(int64_t count, store->CountRecords());
  EXPECT_EQ(count, 0);
}

TEST(StoreTest, WorkloadsRoundTripThroughCanonicalText) {
  ASSIGN_OR_FAIL(auto store, RecordsStore::Open(":memory:"));
  const ComputeDag a = Matmul(64, 64, 64);
  const ComputeDag b = Matmul(32, 16, 8);
  ASSERT_STATUS_OK(store->PutWorkload(a, "matmul 64"));
  ASSERT_STATUS_OK(store->PutWorkload(b));
  ASSERT_STATUS_OK(store->PutWorkload(a, "again: a no-op"));
  ASSIGN_OR_FAIL(ComputeDag got, store->GetWorkload(a.WorkloadKey()));
  EXPECT_EQ(got.CanonicalText(), a.CanonicalText());
  EXPECT_EQ(got.WorkloadKey(), a.WorkloadKey());
  EXPECT_EQ(got.ToString(), a.ToString());  // the operator's own names come back too
  EXPECT_EQ(got.FlopCount(), a.FlopCount());
  ASSIGN_OR_FAIL(std::vector<std::string> keys, store->ListWorkloadKeys());
  std::vector<std::string> want = {a.WorkloadKey(), b.WorkloadKey()};
  std::sort(want.begin(), want.end());
  EXPECT_EQ(keys, want);
  absl::StatusOr<ComputeDag> missing = store->GetWorkload("no-such-key");
  EXPECT_EQ(missing.status().code(), absl::StatusCode::kNotFound);
  EXPECT_NE(missing.status().message().find("no-such-key"), std::string::npos);
}

TEST(StoreTest, DevicesRoundTripAndPutReplaces) {
  ASSIGN_OR_FAIL(auto store, RecordsStore::Open(":memory:"));
  DeviceProfile gpu = TestDevice();
  ASSIGN_OR_FAIL(DeviceProfile cpu, GetDeviceProfile("cpu"));  // the detected CPU, notes and all
  ASSERT_STATUS_OK(store->PutDevice(gpu));
  ASSERT_STATUS_OK(store->PutDevice(cpu));
  ASSIGN_OR_FAIL(DeviceProfile got_gpu, store->GetDevice(gpu.name));
  ASSIGN_OR_FAIL(DeviceProfile got_cpu, store->GetDevice(cpu.name));
  EXPECT_EQ(got_gpu, gpu);
  EXPECT_EQ(got_cpu, cpu);
  gpu.notes = "re-reported by a worker";
  gpu.sm_count += 1;
  ASSERT_STATUS_OK(store->PutDevice(gpu));
  ASSIGN_OR_FAIL(got_gpu, store->GetDevice(gpu.name));
  EXPECT_EQ(got_gpu, gpu);
  ASSIGN_OR_FAIL(std::vector<std::string> keys, store->ListDeviceKeys());
  EXPECT_EQ(keys.size(), 2u);
  EXPECT_EQ(store->GetDevice("tpu-v9").status().code(), absl::StatusCode::kNotFound);
}

class StoreRecordsTest : public ::testing::Test {
 protected:
  void SetUp() override {
    ASSIGN_OR_FAIL(store_, RecordsStore::Open(":memory:"));
    ASSERT_STATUS_OK(store_->PutWorkload(dag_));
    ASSERT_STATUS_OK(store_->PutWorkload(other_));
    ASSERT_STATUS_OK(store_->PutDevice(device_));
    cpu_ = device_;
    cpu_.name = "cpu-test";
    cpu_.kind = DeviceKind::kCpu;
    ASSERT_STATUS_OK(store_->PutDevice(cpu_));
  }

  const ComputeDag dag_ = Matmul(64, 64, 64);
  const ComputeDag other_ = Matmul(16, 16, 16);
  const std::string key_ = dag_.WorkloadKey();
  const DeviceProfile device_ = TestDevice();
  DeviceProfile cpu_;
  std::unique_ptr<RecordsStore> store_;
};

TEST_F(StoreRecordsTest, EveryFieldOfEveryErrorClassRoundTrips) {
  std::vector<StoredRecord> records;
  int salt = 0;
  for (MeasureError error : kAllErrors) {
    records.push_back(error == MeasureError::kNone ? OkRecord(key_, device_.name, 1.1e-5, salt)
                                                   : ErrorRecord(key_, device_.name, error, salt));
    ++salt;
  }
  // Doubles whose shortest decimal forms are long or extreme.
  StoredRecord odd = OkRecord(key_, device_.name, 2.5e-6, 99);
  odd.result.repeat_costs_s = {0.1, 1e-300, 5e-324, std::nextafter(1.0, 2.0),
                               std::numeric_limits<double>::max(), -0.0};
  odd.result.mean_s = std::nextafter(2.5e-6, 1.0);
  odd.steps = "";  // the initial schedule is a valid sentence too
  odd.measured_by = "ünïcode host";
  records.push_back(odd);

  ASSIGN_OR_FAIL(std::vector<int64_t> ids, store_->AddRecords(records));
  ASSERT_EQ(ids.size(), records.size());
  for (size_t i = 1; i < ids.size(); ++i) EXPECT_GT(ids[i], ids[i - 1]);
  for (size_t i = 0; i < ids.size(); ++i) records[i].id = ids[i];

  ASSIGN_OR_FAIL(std::vector<StoredRecord> got, store_->ListRecords(key_));
  ASSERT_EQ(got.size(), records.size());
  for (size_t i = 0; i < got.size(); ++i) {
    SCOPED_TRACE(::testing::Message() << "record " << i << ": " << got[i].result.Describe());
    ExpectSameRecord(records[i], got[i]);
  }
  ASSIGN_OR_FAIL(int64_t count, store_->CountRecords());
  EXPECT_EQ(count, static_cast<int64_t>(records.size()));
}

TEST_F(StoreRecordsTest, MeasuredAtZeroMeansNow) {
  StoredRecord r = OkRecord(key_, device_.name, 1e-3);
  r.measured_at_unix_ms = 0;
  ASSERT_TRUE(store_->AddRecords({r}).ok());
  ASSIGN_OR_FAIL(std::vector<StoredRecord> got, store_->ListRecords(key_));
  ASSERT_EQ(got.size(), 1u);
  EXPECT_GT(got[0].measured_at_unix_ms, 1700000000000);  // after Nov 2023
}

TEST_F(StoreRecordsTest, BestRecordIsTheLowestMeanAmongOkRecords) {
  EXPECT_EQ(store_->BestRecord(key_, device_.name).status().code(), absl::StatusCode::kNotFound);
  std::vector<StoredRecord> records = {
      OkRecord(key_, device_.name, 3e-4, 1),
      ErrorRecord(key_, device_.name, MeasureError::kWrongResult, 2),  // mean 0: must not win
      OkRecord(key_, device_.name, 1e-4, 3),
      OkRecord(key_, device_.name, 1e-4, 4),  // a tie: the earlier one wins
      OkRecord(key_, cpu_.name, 1e-6, 5),     // another device
      OkRecord(other_.WorkloadKey(), device_.name, 1e-7, 6),  // another workload
      OkRecord(key_, device_.name, 2e-4, 7),
  };
  ASSIGN_OR_FAIL(std::vector<int64_t> ids, store_->AddRecords(records));
  ASSIGN_OR_FAIL(StoredRecord best, store_->BestRecord(key_, device_.name));
  EXPECT_EQ(best.id, ids[2]);
  EXPECT_EQ(best.result.mean_s, 1e-4);
  ASSIGN_OR_FAIL(best, store_->BestRecord(key_, cpu_.name));
  EXPECT_EQ(best.id, ids[4]);
  ASSIGN_OR_FAIL(best, store_->BestRecord(other_.WorkloadKey(), device_.name));
  EXPECT_EQ(best.id, ids[5]);
  // Only failures: NotFound that says so.
  ASSERT_TRUE(store_->AddRecords({ErrorRecord(other_.WorkloadKey(), cpu_.name,
                                              MeasureError::kRunError)})
                  .ok());
  absl::StatusOr<StoredRecord> none = store_->BestRecord(other_.WorkloadKey(), cpu_.name);
  EXPECT_EQ(none.status().code(), absl::StatusCode::kNotFound);
  EXPECT_NE(none.status().message().find("no successful record"), std::string::npos);
  // A wrong key: NotFound naming the key.
  none = store_->BestRecord("nope", device_.name);
  EXPECT_EQ(none.status().code(), absl::StatusCode::kNotFound);
  EXPECT_NE(none.status().message().find("unknown workload 'nope'"), std::string::npos);
}

TEST(StoreVerdictTest, AgreementWithinTheToleranceOfTheFaster) {
  MeasureResult a, b;
  a.mean_s = 1.0e-3;
  b.mean_s = 1.2e-3;
  EXPECT_EQ(JudgeVerification(a, b, 0.25), Verdict::kVerified);
  EXPECT_EQ(JudgeVerification(b, a, 0.25), Verdict::kVerified);
  b.mean_s = 1.3e-3;
  EXPECT_EQ(JudgeVerification(a, b, 0.25), Verdict::kDisputed);
  b.error = MeasureError::kWrongResult;
  b.mean_s = 0;
  EXPECT_EQ(JudgeVerification(a, b, 0.25), Verdict::kDisputed);
}

TEST_F(StoreRecordsTest, ABestIsVerifiedFirstAndTrustedAtTheSlowerMeasurement) {
  auto by = [](StoredRecord r, const std::string& worker) {
    r.measured_by = worker;
    return r;
  };
  // A liar's 1 us, an honest 100 us and an honest 120 us.
  ASSIGN_OR_FAIL(std::vector<int64_t> ids,
                 store_->AddRecords({by(OkRecord(key_, device_.name, 1e-6, 1), "liar"),
                                     by(OkRecord(key_, device_.name, 1e-4, 2), "honest"),
                                     by(OkRecord(key_, device_.name, 1.2e-4, 3), "honest")}));
  ASSIGN_OR_FAIL(StoredRecord best, store_->BestRecord(key_, device_.name));
  EXPECT_EQ(best.id, ids[0]) << "nothing verified yet: the lowest mean";
  EXPECT_EQ(best.verdict, Verdict::kUnverified);

  // The liar's record measured again by an honest worker: disputed, and
  // trusted at the honest time.
  ASSIGN_OR_FAIL(StoredRecord liar, store_->GetRecord(ids[0]));
  StoredRecord check = by(liar, "honest");
  check.result.mean_s = 2e-4;
  check.result.repeat_costs_s = {2e-4, 2e-4, 2e-4};
  ASSIGN_OR_FAIL(Verdict verdict, store_->AddVerification(ids[0], check, 0.25));
  EXPECT_EQ(verdict, Verdict::kDisputed);
  ASSIGN_OR_FAIL(liar, store_->GetRecord(ids[0]));
  EXPECT_EQ(liar.verdict, Verdict::kDisputed);
  EXPECT_EQ(TrustedCost(liar), 2e-4);
  ASSIGN_OR_FAIL(best, store_->BestRecord(key_, device_.name));
  EXPECT_EQ(best.id, ids[1]) << "the liar now counts at 200 us";

  // The 120 us record verified: a verified record beats every unverified one.
  ASSIGN_OR_FAIL(StoredRecord slower, store_->GetRecord(ids[2]));
  check = by(slower, "another");
  check.result.mean_s = 1.25e-4;
  check.result.repeat_costs_s = {1.25e-4};
  ASSIGN_OR_FAIL(verdict, store_->AddVerification(ids[2], check, 0.25));
  EXPECT_EQ(verdict, Verdict::kVerified);
  ASSIGN_OR_FAIL(best, store_->BestRecord(key_, device_.name));
  EXPECT_EQ(best.id, ids[2]);
  EXPECT_EQ(best.verdict, Verdict::kVerified);
  EXPECT_EQ(TrustedCost(best), 1.25e-4);
  // The second measurement is a record of its own, which says what it
  // checks, is no best, and belongs to no job.
  ASSIGN_OR_FAIL(StoredRecord stored_check, store_->GetRecord(best.check_record_id));
  EXPECT_EQ(stored_check.verifies_record_id, ids[2]);
  EXPECT_EQ(stored_check.measured_by, "another");
  EXPECT_EQ(stored_check.job_id, 0);
  EXPECT_FALSE(EligibleAsBest(stored_check));

  // A record is checked once; a check is not checked; a check must be of
  // the same schedule; a failed record is not checked.
  EXPECT_EQ(store_->AddVerification(ids[2], check, 0.25).status().code(),
            absl::StatusCode::kAlreadyExists);
  EXPECT_EQ(store_->AddVerification(stored_check.id, check, 0.25).status().code(),
            absl::StatusCode::kFailedPrecondition);
  StoredRecord other = check;
  other.steps = OkRecord(key_, device_.name, 1e-4, 99).steps;
  EXPECT_EQ(store_->AddVerification(ids[1], other, 0.25).status().code(),
            absl::StatusCode::kFailedPrecondition);
  EXPECT_EQ(store_->AddVerification(424242, check, 0.25).status().code(),
            absl::StatusCode::kNotFound);

  // Purging the verifier unverifies what it checked.
  ASSERT_TRUE(store_->PurgeWorkerRecords("another", false).ok());
  ASSIGN_OR_FAIL(slower, store_->GetRecord(ids[2]));
  EXPECT_EQ(slower.verdict, Verdict::kUnverified);
  ASSIGN_OR_FAIL(best, store_->BestRecord(key_, device_.name));
  EXPECT_EQ(best.id, ids[1]);
}

TEST_F(StoreRecordsTest, PurgingAWorkersRecordsCountsFirstAndHandsBestsToOthers) {
  auto by = [](StoredRecord r, const std::string& worker) {
    r.measured_by = worker;
    return r;
  };
  ASSERT_TRUE(store_->AddRecords({
      by(OkRecord(key_, device_.name, 1e-9, 1), "rogue"),   // a lie that became the best
      by(OkRecord(key_, device_.name, 2e-4, 2), "honest"),
      by(ErrorRecord(key_, device_.name, MeasureError::kRunError, 3), "rogue"),
      by(OkRecord(key_, cpu_.name, 5e-4, 4), "rogue"),      // rogue's, but not the best
      by(OkRecord(key_, cpu_.name, 1e-4, 5), "honest"),
      by(OkRecord(other_.WorkloadKey(), device_.name, 1e-9, 6), "rogue"),  // only rogue's
  }).ok());
  ASSIGN_OR_FAIL(RecordsStore::PurgeSummary dry, store_->PurgeWorkerRecords("rogue", true));
  EXPECT_EQ(dry.records, 4);
  EXPECT_EQ(dry.ok_records, 3);
  EXPECT_EQ(dry.workloads, 3);
  EXPECT_EQ(dry.bests, 2);
  ASSIGN_OR_FAIL(int64_t count, store_->CountRecords());
  EXPECT_EQ(count, 6) << "a dry run removes nothing";

  ASSIGN_OR_FAIL(RecordsStore::PurgeSummary done, store_->PurgeWorkerRecords("rogue", false));
  EXPECT_EQ(done.records, dry.records);
  EXPECT_EQ(done.bests, dry.bests);
  ASSIGN_OR_FAIL(count, store_->CountRecords());
  EXPECT_EQ(count, 2);
  ASSIGN_OR_FAIL(StoredRecord best, store_->BestRecord(key_, device_.name));
  EXPECT_EQ(best.measured_by, "honest");
  EXPECT_EQ(best.result.mean_s, 2e-4);
  EXPECT_EQ(store_->BestRecord(other_.WorkloadKey(), device_.name).status().code(),
            absl::StatusCode::kNotFound);
  // Again: nothing left; an empty name is refused rather than matching nothing.
  ASSIGN_OR_FAIL(RecordsStore::PurgeSummary again, store_->PurgeWorkerRecords("rogue", false));
  EXPECT_EQ(again.records, 0);
  EXPECT_EQ(store_->PurgeWorkerRecords("", true).status().code(),
            absl::StatusCode::kInvalidArgument);
}

TEST_F(StoreRecordsTest, ListRecordsFiltersByDeviceAndLimits) {
  std::vector<StoredRecord> records;
  for (int i = 0; i < 10; ++i) {
    records.push_back(OkRecord(key_, i % 2 == 0 ? device_.name : cpu_.name, 1e-3 + i, i));
  }
  ASSIGN_OR_FAIL(std::vector<int64_t> ids, store_->AddRecords(records));
  ASSIGN_OR_FAIL(std::vector<StoredRecord> all, store_->ListRecords(key_));
  EXPECT_EQ(all.size(), 10u);
  ASSIGN_OR_FAIL(std::vector<StoredRecord> gpu, store_->ListRecords(key_, device_.name));
  ASSERT_EQ(gpu.size(), 5u);
  for (size_t i = 0; i < gpu.size(); ++i) EXPECT_EQ(gpu[i].id, ids[2 * i]);
  ASSIGN_OR_FAIL(std::vector<StoredRecord> first3, store_->ListRecords(key_, "", 3));
  ASSERT_EQ(first3.size(), 3u);
  EXPECT_EQ(first3[0].id, ids[0]);
  EXPECT_EQ(first3[2].id, ids[2]);
  ASSIGN_OR_FAIL(std::vector<StoredRecord> none, store_->ListRecords(other_.WorkloadKey()));
  EXPECT_TRUE(none.empty());
  EXPECT_EQ(store_->ListRecords(key_, "no-device").status().code(), absl::StatusCode::kNotFound);
}

TEST_F(StoreRecordsTest, JobsWithTasksStatusesCurvesAndRecords) {
  StoredJob job;
  job.name = "resnet-block";
  job.device_key = device_.name;
  job.strategy = "evolutionary-xgb";
  job.scheduler = "gradient";
  job.trial_budget = 1000;
  job.measures_per_round = 64;
  job.options_json = R"({"seed":7,"early_stopping":null})";
  job.status = JobStatus::kPending;
  job.created_unix_ms = 1700000000123;
  job.tasks = {{0, "matmul 64", key_, 2.0}, {1, "matmul 16", other_.WorkloadKey(), 0.5}};
  ASSIGN_OR_FAIL(int64_t id, store_->CreateJob(job));
  EXPECT_GT(id, 0);
  StoredJob second = job;
  second.name = "second";
  second.tasks.clear();
  second.created_unix_ms = 0;
  ASSIGN_OR_FAIL(int64_t id2, store_->CreateJob(second));
  EXPECT_GT(id2, id);

  ASSIGN_OR_FAIL(StoredJob got, store_->GetJob(id));
  EXPECT_EQ(got.id, id);
  EXPECT_EQ(got.name, job.name);
  EXPECT_EQ(got.device_key, job.device_key);
  EXPECT_EQ(got.strategy, job.strategy);
  EXPECT_EQ(got.scheduler, job.scheduler);
  EXPECT_EQ(got.trial_budget, job.trial_budget);
  EXPECT_EQ(got.measures_per_round, job.measures_per_round);
  EXPECT_EQ(got.options_json, job.options_json);
  EXPECT_EQ(got.status, JobStatus::kPending);
  EXPECT_EQ(got.created_unix_ms, job.created_unix_ms);
  ASSERT_EQ(got.tasks.size(), 2u);
  for (size_t i = 0; i < 2; ++i) {
    EXPECT_EQ(got.tasks[i].index, job.tasks[i].index);
    EXPECT_EQ(got.tasks[i].name, job.tasks[i].name);
    EXPECT_EQ(got.tasks[i].workload_key, job.tasks[i].workload_key);
    EXPECT_EQ(got.tasks[i].weight, job.tasks[i].weight);
  }

  for (JobStatus s : {JobStatus::kRunning, JobStatus::kStopped, JobStatus::kDone,
                      JobStatus::kFailed}) {
    ASSERT_STATUS_OK(store_->SetJobStatus(id, s));
    ASSIGN_OR_FAIL(got, store_->GetJob(id));
    EXPECT_EQ(got.status, s);
  }

  ASSIGN_OR_FAIL(std::vector<StoredJob> jobs, store_->ListJobs());
  ASSERT_EQ(jobs.size(), 2u);
  EXPECT_EQ(jobs[0].id, id);
  EXPECT_EQ(jobs[0].tasks.size(), 2u);
  EXPECT_EQ(jobs[1].id, id2);
  EXPECT_TRUE(jobs[1].tasks.empty());
  EXPECT_GT(jobs[1].created_unix_ms, 1700000000000);  // 0 became "now"

  std::vector<CurvePoint> curve(3);
  for (int i = 0; i < 3; ++i) {
    curve[i].trials = 64 * (i + 1);
    curve[i].wall_s = 12.5 * (i + 1) + 0.1;
    curve[i].estimated_latency_s = 1e-3 / (i + 1) + 1e-19;
    curve[i].task_index = i % 2;
    curve[i].best_cost_s = {i == 0 ? 0.0 : 1.0 / 3.0 / i, 2e-4 / (i + 1)};
    curve[i].time_breakdown_json = R"({"search":1.5,"train":0.25,"build":3,"run":2,"db":0.01})";
    ASSERT_STATUS_OK(store_->AddCurvePoint(id, curve[i]));
  }
  ASSIGN_OR_FAIL(std::vector<CurvePoint> got_curve, store_->GetCurve(id));
  ASSERT_EQ(got_curve.size(), 3u);
  for (int i = 0; i < 3; ++i) {
    EXPECT_EQ(got_curve[i].trials, curve[i].trials);
    EXPECT_EQ(got_curve[i].wall_s, curve[i].wall_s);
    EXPECT_EQ(got_curve[i].estimated_latency_s, curve[i].estimated_latency_s);
    EXPECT_EQ(got_curve[i].task_index, curve[i].task_index);
    EXPECT_EQ(got_curve[i].best_cost_s, curve[i].best_cost_s);
    EXPECT_EQ(got_curve[i].time_breakdown_json, curve[i].time_breakdown_json);
  }
  ASSIGN_OR_FAIL(std::vector<CurvePoint> empty_curve, store_->GetCurve(id2));
  EXPECT_TRUE(empty_curve.empty());

  // Records of the job, by task, plus one outside any job.
  StoredRecord r0 = OkRecord(key_, device_.name, 1e-4, 1);
  r0.job_id = id;
  r0.task_index = 0;
  StoredRecord r1 = ErrorRecord(other_.WorkloadKey(), device_.name, MeasureError::kBuildTimeout, 2);
  r1.job_id = id;
  r1.task_index = 1;
  StoredRecord loose = OkRecord(key_, device_.name, 1e-4, 3);
  ASSIGN_OR_FAIL(std::vector<int64_t> ids, store_->AddRecords({r0, loose, r1}));
  ASSIGN_OR_FAIL(std::vector<StoredRecord> job_records, store_->JobRecords(id));
  ASSERT_EQ(job_records.size(), 2u);
  r0.id = ids[0];
  r1.id = ids[2];
  ExpectSameRecord(r0, job_records[0]);
  ExpectSameRecord(r1, job_records[1]);
  ASSIGN_OR_FAIL(std::vector<StoredRecord> listed, store_->ListRecords(key_));
  ASSERT_EQ(listed.size(), 2u);
  EXPECT_EQ(listed[1].job_id, 0);  // "no job" reads back as 0
  EXPECT_EQ(listed[1].task_index, -1);
  ASSIGN_OR_FAIL(std::vector<StoredRecord> none, store_->JobRecords(id2));
  EXPECT_TRUE(none.empty());
}

TEST_F(StoreRecordsTest, QuarantinedWorkersByName) {
  ASSIGN_OR_FAIL(auto none, store_->ListQuarantined());
  EXPECT_TRUE(none.empty());
  ASSERT_STATUS_OK(store_->PutQuarantine("rogue", "3 implausible results"));
  ASSERT_STATUS_OK(store_->PutQuarantine("liar", "first"));
  ASSERT_STATUS_OK(store_->PutQuarantine("liar", "again"));  // replaces the reason
  ASSIGN_OR_FAIL(auto listed, store_->ListQuarantined());
  ASSERT_EQ(listed.size(), 2u);
  EXPECT_EQ(listed[0], (std::pair<std::string, std::string>{"liar", "again"}));
  EXPECT_EQ(listed[1].first, "rogue");
  ASSERT_STATUS_OK(store_->DeleteQuarantine("rogue"));
  ASSERT_STATUS_OK(store_->DeleteQuarantine("nobody"));
  ASSIGN_OR_FAIL(listed, store_->ListQuarantined());
  ASSERT_EQ(listed.size(), 1u);
  EXPECT_EQ(store_->PutQuarantine("", "x").code(), absl::StatusCode::kInvalidArgument);
}

TEST_F(StoreRecordsTest, CheckpointsKeepEveryByteAndTheNewestWins) {
  std::string blob;
  for (int i = 0; i < 3 * 256; ++i) blob.push_back(static_cast<char>(i % 256));  // NULs included
  ASSERT_EQ(blob[0], '\0');
  ASSERT_STATUS_OK(store_->PutCheckpoint("xgb", device_.name, "old", 10));
  ASSERT_STATUS_OK(store_->PutCheckpoint("xgb", device_.name, blob, 500));
  ASSERT_STATUS_OK(store_->PutCheckpoint("xgb", cpu_.name, std::string("\0cpu\0", 5), 7));
  ASSERT_STATUS_OK(store_->PutCheckpoint("pacm", device_.name, "", 0));  // empty is a value too
  ASSIGN_OR_FAIL(std::string got, store_->LatestCheckpoint("xgb", device_.name));
  EXPECT_EQ(got, blob);
  ASSIGN_OR_FAIL(got, store_->LatestCheckpoint("xgb", cpu_.name));
  EXPECT_EQ(got, std::string("\0cpu\0", 5));
  ASSIGN_OR_FAIL(got, store_->LatestCheckpoint("pacm", device_.name));
  EXPECT_EQ(got, "");
  absl::StatusOr<std::string> missing = store_->LatestCheckpoint("pacm", cpu_.name);
  EXPECT_EQ(missing.status().code(), absl::StatusCode::kNotFound);
  EXPECT_NE(missing.status().message().find("pacm"), std::string::npos);
}

// Everything written through one store comes back through another that
// opens the file later.
TEST(StoreFileTest, ReopeningKeepsEverything) {
  TempDir dir;
  const std::string path = dir.File("records.db");
  const ComputeDag dag = Matmul(64, 64, 64);
  const DeviceProfile device = TestDevice();
  std::vector<StoredRecord> records = {OkRecord(dag.WorkloadKey(), device.name, 4e-5, 1),
                                       ErrorRecord(dag.WorkloadKey(), device.name,
                                                   MeasureError::kRunTimeout, 2)};
  std::string blob("model\0weights", 13);
  int64_t job_id = 0;
  {
    ASSIGN_OR_FAIL(auto store, RecordsStore::Open(path));
    ASSERT_STATUS_OK(store->PutWorkload(dag, "matmul"));
    ASSERT_STATUS_OK(store->PutDevice(device));
    StoredJob job;
    job.name = "j";
    job.device_key = device.name;
    job.tasks = {{0, "t0", dag.WorkloadKey(), 1.0}};
    ASSIGN_OR_FAIL(job_id, store->CreateJob(job));
    ASSERT_STATUS_OK(store->SetJobStatus(job_id, JobStatus::kRunning));
    records[0].job_id = job_id;
    records[0].task_index = 0;
    ASSIGN_OR_FAIL(std::vector<int64_t> ids, store->AddRecords(records));
    for (size_t i = 0; i < ids.size(); ++i) records[i].id = ids[i];
    CurvePoint point;
    point.trials = 2;
    point.wall_s = 1.25;
    point.best_cost_s = {4e-5};
    ASSERT_STATUS_OK(store->AddCurvePoint(job_id, point));
    ASSERT_STATUS_OK(store->PutCheckpoint("xgb", device.name, blob, 2));
  }
  ASSIGN_OR_FAIL(auto store, RecordsStore::Open(path));
  EXPECT_EQ(store->schema_version(), store_internal::LatestSchemaVersion());
  ASSIGN_OR_FAIL(ComputeDag got_dag, store->GetWorkload(dag.WorkloadKey()));
  EXPECT_EQ(got_dag.CanonicalText(), dag.CanonicalText());
  ASSIGN_OR_FAIL(DeviceProfile got_device, store->GetDevice(device.name));
  EXPECT_EQ(got_device, device);
  ASSIGN_OR_FAIL(std::vector<StoredRecord> got, store->ListRecords(dag.WorkloadKey()));
  ASSERT_EQ(got.size(), 2u);
  ExpectSameRecord(records[0], got[0]);
  ExpectSameRecord(records[1], got[1]);
  ASSIGN_OR_FAIL(StoredJob job, store->GetJob(job_id));
  EXPECT_EQ(job.status, JobStatus::kRunning);
  ASSERT_EQ(job.tasks.size(), 1u);
  EXPECT_EQ(job.tasks[0].workload_key, dag.WorkloadKey());
  ASSIGN_OR_FAIL(std::vector<CurvePoint> curve, store->GetCurve(job_id));
  ASSERT_EQ(curve.size(), 1u);
  EXPECT_EQ(curve[0].wall_s, 1.25);
  ASSIGN_OR_FAIL(std::string got_blob, store->LatestCheckpoint("xgb", device.name));
  EXPECT_EQ(got_blob, blob);
  ASSIGN_OR_FAIL(int64_t count, store->CountRecords());
  EXPECT_EQ(count, 2);
}

}  // namespace
}  // namespace pruner
