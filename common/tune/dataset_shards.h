// Dataset shards: how a collected dataset (dataset_collection.h) leaves one
// records database and enters another, e.g. committed under bench/data/ so
// that every later run starts from it. One shard per device:
//   <device>.jsonl.xz   the records of the device's dataset jobs, as JSON
//                       lines (json_lines.cc), xz-compressed;
//   <device>.jobs.json  those jobs: name, options, status and tasks (name,
//                       workload key, weight), which the JSON lines leave
//                       out because job ids are local to a database.
// Import recreates each job that the database lacks (by name and device) and
// gives it back its records, so collection resumes where the exporting
// database stopped; a job it already has keeps its own records. Importing
// the same shard twice adds nothing.
#ifndef PRUNER_COMMON_TUNE_DATASET_SHARDS_H_
#define PRUNER_COMMON_TUNE_DATASET_SHARDS_H_

#include <cstdint>
#include <string>
#include <vector>

#include "absl/status/statusor.h"
#include "common/store/records_store.h"

namespace pruner {

struct DatasetShardReport {
  std::string device_key;
  std::string records_path;  // <dir>/<device>.jsonl.xz
  int jobs = 0;              // exported, or recreated by the import
  int64_t records = 0;       // exported, or added by the import
};

// Writes one shard per device that has dataset jobs (only `device_key`'s
// when given: NotFound when it has none) into `dir` (created if missing).
absl::StatusOr<std::vector<DatasetShardReport>> ExportDatasetShards(const RecordsStore& store,
                                                                    const std::string& dir,
                                                                    const std::string& device_key = "");

// Imports every shard in `dir` (each <device>.jobs.json with its
// <device>.jsonl.xz). A malformed shard is an error naming its file; shards
// before it stay imported.
absl::StatusOr<std::vector<DatasetShardReport>> ImportDatasetShards(RecordsStore* store,
                                                                    const std::string& dir);

}  // namespace pruner

#endif  // PRUNER_COMMON_TUNE_DATASET_SHARDS_H_
