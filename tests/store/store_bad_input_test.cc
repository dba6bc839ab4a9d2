// Bad input to the records store: every rejection says what was wrong and
// where, and a rejected call changes nothing.
#include <cmath>
#include <filesystem>
#include <fstream>
#include <iterator>
#include <limits>
#include <string>

#include "absl/strings/str_cat.h"
#include "common/store/records_store.h"
#include "common/store/schema.h"
#include "common/store/sqlite_db.h"
#include "gtest/gtest.h"
#include "tests/store/store_test_util.h"

namespace pruner {
namespace {

using store_test::ErrorRecord;
using store_test::Matmul;
using store_test::OkRecord;
using store_test::TempDir;
using store_test::TestDevice;

// The status has `code` and its message contains every one of `parts`.
void ExpectError(const absl::Status& status, absl::StatusCode code,
                 std::initializer_list<std::string> parts) {
  EXPECT_EQ(status.code(), code) << status;
  for (const std::string& part : parts) {
    EXPECT_NE(status.message().find(part), std::string::npos)
        << "'" << part << "' missing from: " << status;
  }
}

class StoreBadInputTest : public ::testing::Test {
 protected:
  void SetUp() override {
    ASSIGN_OR_FAIL(store_, RecordsStore::Open(":memory:"));
    ASSERT_STATUS_OK(store_->PutWorkload(dag_));
    ASSERT_STATUS_OK(store_->PutDevice(device_));
  }

  // No record was stored by a rejected call.
  void ExpectNoRecords() {
    absl::StatusOr<int64_t> count = store_->CountRecords();
    ASSERT_TRUE(count.ok()) << count.status();
    EXPECT_EQ(*count, 0);
  }

  const ComputeDag dag_ = Matmul(64, 64, 64);
  const std::string key_ = dag_.WorkloadKey();
  const DeviceProfile device_ = TestDevice();
  std::unique_ptr<RecordsStore> store_;
};

TEST_F(StoreBadInputTest, UnknownWorkloadOrDeviceNamesTheRecordAndTheKey) {
  StoredRecord good = OkRecord(key_, device_.name, 1e-4);
  ExpectError(store_->AddRecords({good, OkRecord("deadbeef", device_.name, 1e-4)}).status(),
              absl::StatusCode::kNotFound, {"record 1 of 2", "unknown workload 'deadbeef'"});
  ExpectError(store_->AddRecords({good, good, OkRecord(key_, "tpu-v9", 1e-4)}).status(),
              absl::StatusCode::kNotFound, {"record 2 of 3", "unknown device 'tpu-v9'"});
  ExpectNoRecords();  // one transaction per call: the good records went too
}

TEST_F(StoreBadInputTest, UnknownJobOrTask) {
  StoredRecord r = OkRecord(key_, device_.name, 1e-4);
  r.job_id = 42;
  ExpectError(store_->AddRecords({r}).status(), absl::StatusCode::kNotFound,
              {"record 0 of 1", "unknown job '42'"});
  StoredJob job;
  job.name = "j";
  job.device_key = device_.name;
  job.tasks = {{0, "t", key_, 1.0}};
  ASSIGN_OR_FAIL(int64_t id, store_->CreateJob(job));
  r.job_id = id;
  r.task_index = 3;
  ExpectError(store_->AddRecords({r}).status(), absl::StatusCode::kNotFound,
              {absl::StrCat("job ", id, " has no task 3")});
  ExpectNoRecords();
}

TEST_F(StoreBadInputTest, MalformedRecords) {
  StoredRecord r = OkRecord(key_, device_.name, 1e-4);
  r.result.mean_s = std::nan("");
  ExpectError(store_->AddRecords({r}).status(), absl::StatusCode::kInvalidArgument,
              {"record 0 of 1", "mean_s", "not a finite number"});
  r = OkRecord(key_, device_.name, 1e-4);
  r.result.repeat_costs_s[1] = std::numeric_limits<double>::infinity();
  ExpectError(store_->AddRecords({r}).status(), absl::StatusCode::kInvalidArgument,
              {"repeat_costs_s[1]"});
  r = OkRecord(key_, device_.name, 1e-4);
  r.steps = "SP 2 0 64 [4]; XX 7";
  ExpectError(store_->AddRecords({r}).status(), absl::StatusCode::kInvalidArgument,
              {"record 0 of 1", "steps do not parse"});
  r = OkRecord("", device_.name, 1e-4);
  ExpectError(store_->AddRecords({r}).status(), absl::StatusCode::kInvalidArgument,
              {"empty workload_key"});
  r = OkRecord(key_, device_.name, 1e-4);
  r.result.error = static_cast<MeasureError>(77);
  ExpectError(store_->AddRecords({r}).status(), absl::StatusCode::kInvalidArgument,
              {"error class 77"});
  ExpectNoRecords();
}

TEST_F(StoreBadInputTest, BadJobs) {
  StoredJob job;
  job.name = "j";
  job.device_key = "tpu-v9";
  ExpectError(store_->CreateJob(job).status(), absl::StatusCode::kNotFound,
              {"job 'j'", "unknown device 'tpu-v9'"});
  job.device_key = device_.name;
  job.tasks = {{0, "t0", key_, 1.0}, {1, "t1", "cafe", 1.0}};
  ExpectError(store_->CreateJob(job).status(), absl::StatusCode::kNotFound,
              {"job 'j' task 1", "unknown workload 'cafe'"});
  job.tasks = {{0, "t0", key_, 1.0}, {0, "t1", key_, 1.0}};
  ExpectError(store_->CreateJob(job).status(), absl::StatusCode::kInvalidArgument,
              {"task 1", "index is 0"});
  job.tasks = {{0, "t0", key_, -1.0}};
  ExpectError(store_->CreateJob(job).status(), absl::StatusCode::kInvalidArgument,
              {"task 0", "weight"});
  job.tasks = {};
  job.options_json = "{not json";
  ExpectError(store_->CreateJob(job).status(), absl::StatusCode::kInvalidArgument,
              {"options_json", "not valid JSON"});
  ASSIGN_OR_FAIL(std::vector<StoredJob> jobs, store_->ListJobs());
  EXPECT_TRUE(jobs.empty());

  ExpectError(store_->GetJob(99).status(), absl::StatusCode::kNotFound, {"no job 99"});
  ExpectError(store_->SetJobStatus(99, JobStatus::kDone), absl::StatusCode::kNotFound,
              {"unknown job '99'"});
  ExpectError(store_->JobRecords(99).status(), absl::StatusCode::kNotFound, {"unknown job '99'"});
  ExpectError(store_->AddCurvePoint(99, CurvePoint{}), absl::StatusCode::kNotFound,
              {"unknown job '99'"});
  ExpectError(store_->GetCurve(99).status(), absl::StatusCode::kNotFound, {"unknown job '99'"});

  job.options_json = "";
  ASSIGN_OR_FAIL(int64_t id, store_->CreateJob(job));
  CurvePoint point;
  point.time_breakdown_json = "search=1";
  ExpectError(store_->AddCurvePoint(id, point), absl::StatusCode::kInvalidArgument,
              {"time_breakdown_json"});
  point.time_breakdown_json = "";
  point.best_cost_s = {1.0, std::nan("")};
  ExpectError(store_->AddCurvePoint(id, point), absl::StatusCode::kInvalidArgument,
              {"best_cost_s[1]"});
}

TEST_F(StoreBadInputTest, BadDevicesAndCheckpoints) {
  DeviceProfile nameless = device_;
  nameless.name = "";
  ExpectError(store_->PutDevice(nameless), absl::StatusCode::kInvalidArgument, {"empty name"});
  ExpectError(store_->PutCheckpoint("xgb", "tpu-v9", "blob", 1), absl::StatusCode::kNotFound,
              {"unknown device 'tpu-v9'"});
  ExpectError(store_->PutCheckpoint("", device_.name, "blob", 1),
              absl::StatusCode::kInvalidArgument, {"empty model name"});
}

TEST(StoreBadFileTest, EmptyPathOrMissingDirectoryOrADirectory) {
  ExpectError(RecordsStore::Open("").status(), absl::StatusCode::kInvalidArgument, {"empty"});
  TempDir dir;
  const std::string missing = dir.File("no/such/dir/records.db");
  ExpectError(RecordsStore::Open(missing).status(), absl::StatusCode::kNotFound,
              {missing, dir.File("no/such/dir"), "does not exist"});
  ExpectError(RecordsStore::Open(dir.path()).status(), absl::StatusCode::kInvalidArgument,
              {"is a directory"});
}

TEST(StoreBadFileTest, AFileThatIsNotADatabaseIsRefusedAndLeftAlone) {
  TempDir dir;
  const std::string path = dir.File("notes.txt");
  std::string text;
  for (int i = 0; i < 200; ++i) text += "this is a text file, not a database\n";
  std::ofstream(path) << text;
  ExpectError(RecordsStore::Open(path).status(), absl::StatusCode::kFailedPrecondition,
              {path, "not a SQLite database"});
  std::ifstream in(path);
  const std::string after((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
  EXPECT_EQ(after, text);
}

TEST(StoreBadFileTest, AnotherProgramsDatabaseIsRefused) {
  TempDir dir;
  const std::string path = dir.File("other.db");
  {
    ASSIGN_OR_FAIL(auto db, store_internal::SqliteDb::Open(path, 1000));
    ASSERT_STATUS_OK(db->Exec("CREATE TABLE photos (id INTEGER PRIMARY KEY, name TEXT)"));
  }
  ExpectError(RecordsStore::Open(path).status(), absl::StatusCode::kFailedPrecondition,
              {"not a Pruner records store", "no 'meta' table"});
}

TEST(StoreBadFileTest, ANewerSchemaVersionIsRefused) {
  TempDir dir;
  const std::string path = dir.File("records.db");
  { ASSIGN_OR_FAIL(auto store, RecordsStore::Open(path)); }
  {
    ASSIGN_OR_FAIL(auto db, store_internal::SqliteDb::Open(path, 1000));
    ASSERT_STATUS_OK(db->Exec("UPDATE meta SET value = '7' WHERE key = 'schema_version'"));
  }
  ExpectError(RecordsStore::Open(path).status(), absl::StatusCode::kFailedPrecondition,
              {"schema version 7", absl::StrCat("newer than the newest this build knows (",
                                                store_internal::LatestSchemaVersion(), ")")});
  {
    ASSIGN_OR_FAIL(auto db, store_internal::SqliteDb::Open(path, 1000));
    ASSERT_STATUS_OK(db->Exec("UPDATE meta SET value = 'x1' WHERE key = 'schema_version'"));
  }
  ExpectError(RecordsStore::Open(path).status(), absl::StatusCode::kFailedPrecondition,
              {"no valid schema_version", "'x1'"});
}

}  // namespace
}  // namespace pruner
