// Row-level helpers shared by the RecordsStore methods and the JSON-lines
// import: existence checks that name what is missing, inserting workloads,
// devices and records, and reading records back. All of them expect the
// caller to hold the store's mutex (and, for writes, a transaction).
#ifndef PRUNER_COMMON_STORE_STORE_ROWS_H_
#define PRUNER_COMMON_STORE_STORE_ROWS_H_

#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "common/device/device_profile.h"
#include "common/store/records_store.h"
#include "common/store/sqlite_db.h"

namespace pruner::store_internal {

// Presence checks: NotFound "<where>: unknown workload 'k' in records store
// '<path>'" (and likewise for devices and jobs) when absent.
absl::Status CheckWorkloadExists(const SqliteDb& db, const std::string& key,
                                 std::string_view where);
absl::Status CheckDeviceExists(const SqliteDb& db, const std::string& key,
                               std::string_view where);
absl::Status CheckJobExists(const SqliteDb& db, int64_t job_id, std::string_view where);
// NotFound when the job has no task `task_index`.
absl::Status CheckTaskExists(const SqliteDb& db, int64_t job_id, int task_index,
                             std::string_view where);

// Stores a workload unless its key is present. A present key with different
// canonical text is FailedPrecondition (a key collision or a changed
// canonical form; either way the stored records would replay wrongly).
// `display_text` must be "" or parse back to `key` (ReplayableDisplayText).
absl::Status InsertWorkload(SqliteDb& db, const std::string& key,
                            const std::string& canonical_text, const std::string& display_text,
                            double flop_count, const std::string& description);

// Stores a profile under profile.name; an existing one is replaced when
// `replace`, kept otherwise.
absl::Status InsertDevice(SqliteDb& db, const DeviceProfile& profile, bool replace);

// Checks what SQLite cannot: non-empty keys, a parseable step sentence,
// a known error class, finite numbers (SQLite turns NaN into NULL and JSON
// has no infinity). InvalidArgument prefixed with `where`.
absl::Status ValidateRecord(const StoredRecord& record, std::string_view where);

// Inserts one validated record (its id is ignored) and returns the new id.
absl::StatusOr<int64_t> InsertRecord(SqliteDb& db, const StoredRecord& record);

// The column list every record query selects, in ReadRecords' order.
extern const char kRecordColumns[];
// Steps `stmt` (a SELECT of kRecordColumns) to the end and converts each row.
// A row the store could not have written (unknown error class, bad JSON) is
// DataLoss naming the record id.
absl::StatusOr<std::vector<StoredRecord>> ReadRecords(Statement& stmt);

}  // namespace pruner::store_internal

#endif  // PRUNER_COMMON_STORE_STORE_ROWS_H_
