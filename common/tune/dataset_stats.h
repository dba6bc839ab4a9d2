// What a collected dataset holds (`pruner dataset stats`): per device, its
// networks (dataset jobs), records by outcome, distinct workloads, operator
// families, and how many records were measured while the host was busy.
#ifndef PRUNER_COMMON_TUNE_DATASET_STATS_H_
#define PRUNER_COMMON_TUNE_DATASET_STATS_H_

#include <cstdint>
#include <map>
#include <string>
#include <vector>

#include "absl/status/statusor.h"
#include "common/store/records_store.h"

namespace pruner {

// The operator family of a task name ("depthwise_conv2d_bias_relu6_N1_..."
// -> "depthwise"): conv2d (grouped ones too), depthwise, dense, batch-matmul,
// pooling, softmax, layer-norm, or "other".
std::string OperatorFamily(const std::string& task_name);

struct DatasetFamilyStats {
  int workloads = 0;       // with at least one ok record
  int64_t ok_records = 0;
};

struct DatasetDeviceStats {
  std::string device_key;
  int networks = 0;    // dataset jobs
  int networks_done = 0;
  // Counted per schedule: a schedule measured again (dataset_remeasure.h)
  // is one trial, ok when any of its records is, quiet when any ok one is.
  int64_t trials = 0;  // schedules the jobs measured
  int64_t trial_budget = 0;
  int64_t remeasured = 0;  // records beyond a schedule's first
  int64_t ok_records = 0;  // ok schedules
  std::map<std::string, int64_t> errors;  // MeasureErrorName -> schedules never ok
  int workloads = 0;                      // distinct, with at least one ok record
  std::map<std::string, DatasetFamilyStats> families;
  // Ok schedules by the host's other work while their least busy ok record
  // ran (host_load.h).
  int64_t quiet_records = 0;      // host_busy_cores < busy_threshold
  int64_t busy_records = 0;       // >= busy_threshold
  int64_t unsampled_records = 0;  // not sampled (older records)
};

// Every device with dataset jobs, or only `device_key` (NotFound when it has
// none).
absl::StatusOr<std::vector<DatasetDeviceStats>> ComputeDatasetStats(
    const RecordsStore& store, const std::string& device_key = "", double busy_threshold = 0.5);

}  // namespace pruner

#endif  // PRUNER_COMMON_TUNE_DATASET_STATS_H_
