// Helpers shared by the records-store tests: a scratch directory, a small
// workload and device, records with every field set, and field-by-field
// record comparison.
#ifndef PRUNER_TESTS_STORE_STORE_TEST_UTIL_H_
#define PRUNER_TESTS_STORE_STORE_TEST_UTIL_H_

#include <cstdint>
#include <string>

#include "common/device/device_profile.h"
#include "common/ir/compute_dag.h"
#include "common/store/records_store.h"
#include "gtest/gtest.h"

namespace pruner::store_test {

// A fresh directory under $TMPDIR (or /tmp), removed with its contents on
// destruction.
class TempDir {
 public:
  TempDir();
  ~TempDir();
  TempDir(const TempDir&) = delete;
  TempDir& operator=(const TempDir&) = delete;
  const std::string& path() const { return path_; }
  std::string File(const std::string& name) const { return path_ + "/" + name; }

 private:
  std::string path_;
};

// BuildOperator("matmul:M=m,K=k,N=n"), failing the test if it cannot.
ComputeDag Matmul(int m, int k, int n);
// A built-in GPU profile, so tests do not depend on this machine's CPU.
DeviceProfile TestDevice();

// A successful record with three repeat costs around `mean_s` and every
// other field set to something recognizable. `salt` varies the sentence
// and the timestamps.
StoredRecord OkRecord(const std::string& workload_key, const std::string& device_key,
                      double mean_s, int salt = 0);
// A failed record of `error` (phase and message set, no repeat costs).
StoredRecord ErrorRecord(const std::string& workload_key, const std::string& device_key,
                         MeasureError error, int salt = 0);

// Every field equal (doubles bit for bit); ids and job fields only when
// `with_ids_and_job`.
void ExpectSameRecord(const StoredRecord& want, const StoredRecord& got,
                      bool with_ids_and_job = true);

}  // namespace pruner::store_test

// `lhs = value of expr` (a StatusOr), or a fatal test failure showing the
// status. For use in test bodies (it returns on failure).
#define STORE_CONCAT_INNER(a, b) a##b
#define STORE_CONCAT(a, b) STORE_CONCAT_INNER(a, b)
#define ASSIGN_OR_FAIL(lhs, expr)                                              \
  auto STORE_CONCAT(store_value_, __LINE__) = (expr);                          \
  ASSERT_TRUE(STORE_CONCAT(store_value_, __LINE__).ok())                       \
      << STORE_CONCAT(store_value_, __LINE__).status();                        \
  lhs = *std::move(STORE_CONCAT(store_value_, __LINE__))
// A fatal test failure showing the status unless it is ok.
#define ASSERT_STATUS_OK(expr)                             \
  do {                                            \
    const absl::Status store_status_ = (expr);    \
    ASSERT_TRUE(store_status_.ok()) << store_status_; \
  } while (0)

#endif  // PRUNER_TESTS_STORE_STORE_TEST_UTIL_H_
