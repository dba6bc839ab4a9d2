#include "tests/store/store_test_util.h"

#include <bit>
#include <cstdlib>
#include <filesystem>

#include "absl/strings/str_cat.h"
#include "common/ir/ops.h"

namespace pruner::store_test {

TempDir::TempDir() {
  const char* base = std::getenv("TMPDIR");
  std::string pattern = absl::StrCat(base != nullptr && *base != '\0' ? base : "/tmp",
                                     "/pruner_store_test_XXXXXX");
  if (mkdtemp(pattern.data()) == nullptr) {
    ADD_FAILURE() << "mkdtemp failed for " << pattern;
  }
  path_ = pattern;
}

TempDir::~TempDir() {
  std::error_code ec;
  std::filesystem::remove_all(path_, ec);
}

ComputeDag Matmul(int m, int k, int n) {
  absl::StatusOr<ComputeDag> dag =
      BuildOperator(absl::StrCat("matmul:M=", m, ",K=", k, ",N=", n));
  EXPECT_TRUE(dag.ok()) << dag.status();
  return dag.ok() ? *std::move(dag) : ComputeDag();
}

DeviceProfile TestDevice() {
  absl::StatusOr<DeviceProfile> device = GetDeviceProfile("a100");
  EXPECT_TRUE(device.ok()) << device.status();
  return device.ok() ? *device : DeviceProfile();
}

namespace {
// A sentence that parses; `salt` changes a split length so records differ.
std::string Steps(int salt) {
  return absl::StrCat("CHW 2 local; SP 2 0 64 [2,1,", 1 + salt % 8,
                      "]; SP 2 4 64 [1,8,1]; AN 2 0 parallel");
}
}  // namespace

StoredRecord OkRecord(const std::string& workload_key, const std::string& device_key,
                      double mean_s, int salt) {
  StoredRecord r;
  r.workload_key = workload_key;
  r.device_key = device_key;
  r.steps = Steps(salt);
  r.result.error = MeasureError::kNone;
  // Costs whose decimal forms are long, so that any rounding would show.
  r.result.repeat_costs_s = {mean_s * (1 + 1e-3), mean_s, mean_s * (1 - 1e-3) + 1e-17};
  r.result.mean_s = mean_s;
  r.result.build_s = 0.1 + 0.2;  // 0.30000000000000004
  r.result.run_s = 1.0 / 3.0;
  r.result.binary_bytes = 123456 + salt;
  r.measured_by = absl::StrCat("worker-", salt % 3);
  r.measured_at_unix_ms = 1700000000000 + salt;
  return r;
}

StoredRecord ErrorRecord(const std::string& workload_key, const std::string& device_key,
                         MeasureError error, int salt) {
  StoredRecord r;
  r.workload_key = workload_key;
  r.device_key = device_key;
  r.steps = Steps(salt);
  r.result.error = error;
  r.result.phase = "run";
  r.result.message = absl::StrCat("killed by signal SIGSEGV \"quoted\"\nsecond line \t#", salt);
  r.result.build_s = 0.75;
  r.result.run_s = 0.5;
  r.measured_by = "worker-err";
  r.measured_at_unix_ms = 1700000001000 + salt;
  return r;
}

namespace {
void ExpectSameDouble(double want, double got, const char* what) {
  EXPECT_EQ(std::bit_cast<uint64_t>(want), std::bit_cast<uint64_t>(got))
      << what << ": want " << want << ", got " << got;
}
}  // namespace

void ExpectSameRecord(const StoredRecord& want, const StoredRecord& got, bool with_ids_and_job) {
  if (with_ids_and_job) {
    EXPECT_EQ(want.id, got.id);
    EXPECT_EQ(want.job_id, got.job_id);
    EXPECT_EQ(want.task_index, got.task_index);
  }
  EXPECT_EQ(want.workload_key, got.workload_key);
  EXPECT_EQ(want.device_key, got.device_key);
  EXPECT_EQ(want.steps, got.steps);
  EXPECT_EQ(want.result.error, got.result.error);
  EXPECT_EQ(want.result.phase, got.result.phase);
  EXPECT_EQ(want.result.message, got.result.message);
  ASSERT_EQ(want.result.repeat_costs_s.size(), got.result.repeat_costs_s.size());
  for (size_t i = 0; i < want.result.repeat_costs_s.size(); ++i) {
    ExpectSameDouble(want.result.repeat_costs_s[i], got.result.repeat_costs_s[i], "repeat cost");
  }
  ExpectSameDouble(want.result.mean_s, got.result.mean_s, "mean_s");
  ExpectSameDouble(want.result.build_s, got.result.build_s, "build_s");
  ExpectSameDouble(want.result.run_s, got.result.run_s, "run_s");
  EXPECT_EQ(want.result.binary_bytes, got.result.binary_bytes);
  EXPECT_EQ(want.result.host_busy_cores, got.result.host_busy_cores);
  EXPECT_EQ(want.measured_by, got.measured_by);
  EXPECT_EQ(want.measured_at_unix_ms, got.measured_at_unix_ms);
}

}  // namespace pruner::store_test
