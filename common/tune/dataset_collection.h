// A dataset of measured schedules, collected the way TenSet collected its
// own: the tasks of many networks and shapes, a fixed number of random
// schedules per task, every one measured with the verified measurement
// (built, run in the sandbox, checked against the reference, timed).
//
// Each network (a spec of networks.h) becomes one tuning job named
// "dataset <spec>" on the device: strategy random, round-robin over the
// network's tasks, per_task trials each. So the store alone says which
// network every record came from (bench/dataset groups by job name), and
// collection inherits what jobs already do:
// - resumable: an interrupted network's job is resumed (its random policy
//   never measures a schedule twice); a finished one is skipped;
// - de-duplicated across networks: a workload already listed by another
//   dataset job on the device is left out of later networks' jobs, so a
//   conv shared by resnet-18 and resnet-34 is collected once, under the
//   first network that had it.
#ifndef PRUNER_COMMON_TUNE_DATASET_COLLECTION_H_
#define PRUNER_COMMON_TUNE_DATASET_COLLECTION_H_

#include <atomic>
#include <cstdint>
#include <functional>
#include <string>
#include <vector>

#include "absl/status/statusor.h"
#include "common/device/device_profile.h"
#include "common/measure/measurer.h"
#include "common/store/records_store.h"
#include "common/tune/tuning_job.h"
#include "common/tune/tuning_options.h"

namespace pruner {

inline constexpr char kDatasetJobPrefix[] = "dataset ";

// Shape variants of the built-in networks, as TenSet varies batch, image
// size and sequence length: every network at its defaults (batch 1, 224x224,
// sequences of 128), then the CNNs at batch 4 with 112x112 images and at
// 160x160, then the BERTs at sequences of 64 and 256 and at batch 4.
std::vector<std::string> DefaultDatasetNetworks();

inline MeasureOptions DatasetMeasureOptions() {
  MeasureOptions m = TrialMeasureOptions();
  m.hopeless_factor = 0;
  return m;
}

struct DatasetCollectOptions {
  std::vector<std::string> networks;  // specs; empty = DefaultDatasetNetworks()
  int per_task = 64;                  // random schedules per task (failures count)
  int per_round = 16;                 // measured per round (one task each)
  uint64_t seed = 1;                  // of the first network's job; the i-th adds i
  // A tuning trial's timing, except that every record gets its full
  // repeats: the dataset teaches models to rank slow schedules too, and its
  // committed shards were measured that way.
  MeasureOptions measure = DatasetMeasureOptions();
};

// What happened to one network.
struct DatasetNetworkReport {
  std::string spec;       // canonical
  int64_t job_id = 0;     // 0: nothing to collect (every task already listed)
  int tasks = 0;          // the network's tasks
  int new_tasks = 0;      // of them, not listed by an earlier dataset job
  int64_t trials = 0;     // the job's trials so far
  int64_t trial_budget = 0;
  bool skipped = false;   // the job was already done
};

struct DatasetCollectCallbacks {
  // Before each network's job runs (or is skipped).
  std::function<void(const DatasetNetworkReport&)> on_network;
  std::function<void(const DatasetNetworkReport&, const RoundReport&)> on_round;
};

// Collects on `device` (measured by `measurer`) into `store`. Stops between
// rounds when `stop` becomes true: the jobs are then "stopped" and the next
// call resumes them. Errors: a bad network spec (before anything runs), or a
// store/measurer failure.
absl::StatusOr<std::vector<DatasetNetworkReport>> CollectDataset(
    RecordsStore* store, Measurer* measurer, const DeviceProfile& device,
    const DatasetCollectOptions& options, const DatasetCollectCallbacks& callbacks = {},
    const std::atomic<bool>* stop = nullptr);

}  // namespace pruner

#endif  // PRUNER_COMMON_TUNE_DATASET_COLLECTION_H_
