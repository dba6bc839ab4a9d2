// `pruner dataset collect|remeasure|stats|export|import`: a TenSet-style dataset of
// measured random schedules over many networks and shapes, in a records
// database (common/tune/dataset_*.h), and its compressed shards.
#ifndef PRUNER_CLIENT_DATASET_COMMANDS_H_
#define PRUNER_CLIENT_DATASET_COMMANDS_H_

#include <string>

#include "common/tune/dataset_collection.h"
#include "common/tune/dataset_remeasure.h"

namespace pruner {

struct DatasetCollectCommand {
  std::string db = "pruner.db";
  std::string device = "cpu";  // only the local CPU is measured in process
  DatasetCollectOptions options;
};

struct DatasetRemeasureCommand {
  std::string db = "pruner.db";
  std::string device = "cpu";  // the local CPU, which must be the records' machine
  DatasetRemeasureOptions options;
};

// Each returns the process exit code and prints errors to stderr.
int RunDatasetCollect(const DatasetCollectCommand& command);
int RunDatasetRemeasure(const DatasetRemeasureCommand& command);
int RunDatasetStats(const std::string& db, const std::string& device_key, double busy_threshold);
int RunDatasetExport(const std::string& db, const std::string& dir, const std::string& device_key);
int RunDatasetImport(const std::string& db, const std::string& dir);

}  // namespace pruner

#endif  // PRUNER_CLIENT_DATASET_COMMANDS_H_
