// JSON-lines exchange: export from one database, import into a fresh one
// that knows nothing else, get the same records; importing twice adds
// nothing; a malformed line is reported by number and imports nothing.
#include <filesystem>
#include <fstream>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "common/store/records_store.h"
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

std::vector<std::string> ReadLines(const std::string& path) {
  std::ifstream in(path);
  std::vector<std::string> lines;
  for (std::string line; std::getline(in, line);) lines.push_back(line);
  return lines;
}

void WriteLines(const std::string& path, const std::vector<std::string>& lines) {
  std::ofstream out(path);
  for (const std::string& line : lines) out << line << '\n';
}

class StoreJsonLinesTest : public ::testing::Test {
 protected:
  void SetUp() override {
    ASSIGN_OR_FAIL(source_, RecordsStore::Open(dir_.File("source.db")));
    ASSERT_STATUS_OK(source_->PutWorkload(a_, "matmul 64"));
    ASSERT_STATUS_OK(source_->PutWorkload(b_, "matmul 16x8x4"));
    ASSERT_STATUS_OK(source_->PutDevice(gpu_));
    ASSIGN_OR_FAIL(cpu_, GetDeviceProfile("cpu"));
    ASSERT_STATUS_OK(source_->PutDevice(cpu_));
    StoredJob job;
    job.name = "j";
    job.device_key = gpu_.name;
    job.tasks = {{0, "a", a_.WorkloadKey(), 1.0}};
    ASSIGN_OR_FAIL(int64_t job_id, source_->CreateJob(job));
    records_ = {OkRecord(a_.WorkloadKey(), gpu_.name, 3e-5, 1),
                ErrorRecord(a_.WorkloadKey(), gpu_.name, MeasureError::kInvalidSchedule, 2),
                OkRecord(a_.WorkloadKey(), cpu_.name, 7e-4, 3),
                OkRecord(b_.WorkloadKey(), gpu_.name, 1.0 / 7.0 * 1e-5, 4),
                ErrorRecord(b_.WorkloadKey(), cpu_.name, MeasureError::kWrongResult, 5)};
    records_[0].result.host_busy_cores = 0.375;  // the others were not sampled
    records_[0].job_id = job_id;  // job fields stay behind: ids are per database
    records_[0].task_index = 0;
    ASSIGN_OR_FAIL(std::vector<int64_t> ids, source_->AddRecords(records_));
    for (size_t i = 0; i < ids.size(); ++i) records_[i].id = ids[i];
  }

  TempDir dir_;
  const ComputeDag a_ = Matmul(64, 64, 64);
  const ComputeDag b_ = Matmul(16, 8, 4);
  const DeviceProfile gpu_ = TestDevice();
  DeviceProfile cpu_;
  std::vector<StoredRecord> records_;
  std::unique_ptr<RecordsStore> source_;
};

TEST_F(StoreJsonLinesTest, ExportThenImportIntoAFreshDatabaseGivesEqualRecords) {
  const std::string file = dir_.File("records.jsonl");
  ASSERT_STATUS_OK(source_->ExportJsonLines(file));
  const std::vector<std::string> lines = ReadLines(file);
  ASSERT_EQ(lines.size(), records_.size());
  EXPECT_FALSE(std::filesystem::exists(file + ".tmp"));
  for (const std::string& line : lines) {  // each line stands alone
    const nlohmann::json j = nlohmann::json::parse(line);
    EXPECT_TRUE(j.contains("workload_text"));
    EXPECT_TRUE(j["device"].is_object());
    EXPECT_FALSE(j.contains("job_id"));
  }

  ASSIGN_OR_FAIL(auto fresh, RecordsStore::Open(dir_.File("fresh.db")));
  ASSIGN_OR_FAIL(int64_t added, fresh->ImportJsonLines(file));
  EXPECT_EQ(added, static_cast<int64_t>(records_.size()));
  for (const ComputeDag* dag : {&a_, &b_}) {
    ASSIGN_OR_FAIL(ComputeDag got_dag, fresh->GetWorkload(dag->WorkloadKey()));
    EXPECT_EQ(got_dag.CanonicalText(), dag->CanonicalText());
    EXPECT_EQ(got_dag.ToString(), dag->ToString());
    ASSIGN_OR_FAIL(std::vector<StoredRecord> want, source_->ListRecords(dag->WorkloadKey()));
    ASSIGN_OR_FAIL(std::vector<StoredRecord> got, fresh->ListRecords(dag->WorkloadKey()));
    ASSERT_EQ(got.size(), want.size());
    for (size_t i = 0; i < got.size(); ++i) {
      ExpectSameRecord(want[i], got[i], /*with_ids_and_job=*/false);
      EXPECT_EQ(got[i].job_id, 0);
    }
  }
  ASSIGN_OR_FAIL(DeviceProfile got_gpu, fresh->GetDevice(gpu_.name));
  EXPECT_EQ(got_gpu, gpu_);
  ASSIGN_OR_FAIL(DeviceProfile got_cpu, fresh->GetDevice(cpu_.name));
  EXPECT_EQ(got_cpu, cpu_);
  ASSIGN_OR_FAIL(StoredRecord best, fresh->BestRecord(a_.WorkloadKey(), gpu_.name));
  ExpectSameRecord(records_[0], best, /*with_ids_and_job=*/false);

  // Importing the same lines again, or into the database they came from,
  // adds nothing.
  ASSIGN_OR_FAIL(added, fresh->ImportJsonLines(file));
  EXPECT_EQ(added, 0);
  ASSIGN_OR_FAIL(int64_t count, fresh->CountRecords());
  EXPECT_EQ(count, static_cast<int64_t>(records_.size()));
  ASSIGN_OR_FAIL(added, source_->ImportJsonLines(file));
  EXPECT_EQ(added, 0);
}

TEST_F(StoreJsonLinesTest, ExportOfOneWorkloadAndPartialOverlap) {
  const std::string file_a = dir_.File("a.jsonl");
  ASSERT_STATUS_OK(source_->ExportJsonLines(file_a, a_.WorkloadKey()));
  EXPECT_EQ(ReadLines(file_a).size(), 3u);
  ASSIGN_OR_FAIL(auto fresh, RecordsStore::Open(":memory:"));
  ASSIGN_OR_FAIL(int64_t added, fresh->ImportJsonLines(file_a));
  EXPECT_EQ(added, 3);
  // The full export overlaps in the three records of workload a.
  const std::string file_all = dir_.File("all.jsonl");
  ASSERT_STATUS_OK(source_->ExportJsonLines(file_all));
  ASSIGN_OR_FAIL(added, fresh->ImportJsonLines(file_all));
  EXPECT_EQ(added, 2);
  EXPECT_EQ(source_->ExportJsonLines(dir_.File("x.jsonl"), "no-such-workload").code(),
            absl::StatusCode::kNotFound);
}

TEST_F(StoreJsonLinesTest, MalformedLinesAreReportedByNumberAndImportNothing) {
  const std::string file = dir_.File("records.jsonl");
  ASSERT_STATUS_OK(source_->ExportJsonLines(file));
  const std::vector<std::string> good = ReadLines(file);
  ASSERT_GE(good.size(), 3u);
  const std::string bad_file = dir_.File("bad.jsonl");
  ASSIGN_OR_FAIL(auto fresh, RecordsStore::Open(":memory:"));

  auto expect_rejected = [&](const std::vector<std::string>& lines,
                             std::initializer_list<std::string> parts) {
    WriteLines(bad_file, lines);
    absl::StatusOr<int64_t> result = fresh->ImportJsonLines(bad_file);
    EXPECT_EQ(result.status().code(), absl::StatusCode::kInvalidArgument) << result.status();
    for (const std::string& part : parts) {
      EXPECT_NE(result.status().message().find(part), std::string::npos)
          << "'" << part << "' missing from: " << result.status();
    }
    absl::StatusOr<int64_t> count = fresh->CountRecords();
    ASSERT_TRUE(count.ok());
    EXPECT_EQ(*count, 0) << "a rejected file must import nothing";
  };

  // Line 4 (after a blank line 3) is cut short.
  expect_rejected({good[0], good[1], "", good[2].substr(0, good[2].size() / 2)},
                  {"bad.jsonl' line 4", "not valid JSON"});
  expect_rejected({good[0], "[1, 2]"}, {"line 2", "not a JSON object"});

  auto edited = [&](const std::string& line, const char* key, const nlohmann::json& value) {
    nlohmann::json j = nlohmann::json::parse(line);
    if (value.is_null()) {
      j.erase(key);
    } else {
      j[key] = value;
    }
    return j.dump();
  };
  expect_rejected({good[0], edited(good[1], "steps", nullptr)},
                  {"line 2", "missing field 'steps'"});
  expect_rejected({edited(good[0], "error", "exploded")}, {"line 1", "unknown error class"});
  expect_rejected({good[0], good[1], edited(good[2], "workload_key", "0123abcd")},
                  {"line 3", "does not match workload_text"});
  expect_rejected({edited(good[0], "mean_s", "fast")}, {"line 1", "'mean_s' must be a number"});
  expect_rejected({edited(good[0], "version", 2)}, {"line 1", "format version 2"});
  expect_rejected({edited(good[0], "steps", "SP 1 2 [")}, {"line 1", "steps do not parse"});
  expect_rejected({edited(good[0], "workload_text", "T0 = nonsense")},
                  {"line 1", "workload_text does not parse"});
  expect_rejected({edited(good[0], "workload_display_text", b_.ToString())},
                  {"line 1", "workload_display_text", "hashes to"});
}

TEST_F(StoreJsonLinesTest, MissingFilesAndDirectories) {
  EXPECT_EQ(source_->ImportJsonLines(dir_.File("absent.jsonl")).status().code(),
            absl::StatusCode::kNotFound);
  const std::string out = dir_.File("no/such/dir/out.jsonl");
  absl::Status st = source_->ExportJsonLines(out);
  EXPECT_EQ(st.code(), absl::StatusCode::kNotFound) << st;
  EXPECT_NE(st.message().find("no/such/dir"), std::string::npos) << st;
}

}  // namespace
}  // namespace pruner
