// Reads a measured dataset out of the records database: per workload on one
// device, every schedule that ran correctly with its measured latency, the
// workload's weight in its network and which network (job) it came from.
//
// Which workloads, weights and groups:
// - With job ids: the tasks of those jobs. Without: the tasks of every job
//   on the device, then every other workload with records on the device
//   (weight 1, group "(no job)").
// - A workload listed by several jobs belongs to the first (lowest id) one:
//   its group (the job's name, or "job N" when unnamed) and weight
//   (StoredTask::weight, the subgraph's occurrences in the network) come
//   from that job. Groups stand for networks in leave-one-network-out.
// Which records:
// - With job ids: only records those jobs measured (a database may also hold
//   tuned records of the same workloads, concentrated near the best and so a
//   different population). Without: every record of the workload on the
//   device.
// - Only ok records (MeasureResult::ok(), mean_s > 0) measured on a quiet
//   host (max_host_busy_cores). A schedule measured
//   more than once (the same step sentence) is one schedule at its latest
//   measurement: a later one is a re-measurement of its whole workload with
//   a newer code generator (common/tune/dataset_remeasure.h), and mixing
//   builds within a workload would rank one build's kernels against
//   another's. With median_since_unix_ms, the measurements of one build
//   pool instead: a schedule measured at or after that time takes the
//   median of those measurements (`pruner dataset remeasure --passes`).
// How the kernels ran: the jobs' kernel thread count, which the analyzer
// needs to model the machine the latencies come from (lse_evaluation.h).
#ifndef PRUNER_BENCH_DATASET_DATASET_LOADER_H_
#define PRUNER_BENCH_DATASET_DATASET_LOADER_H_

#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include "absl/status/statusor.h"
#include "common/device/device_profile.h"
#include "common/ir/compute_dag.h"
#include "common/store/records_store.h"

namespace pruner::dataset {

struct DatasetSchedule {
  std::string steps;     // the stored sentence
  double latency_s = 0;  // mean_s of the latest quiet ok record (or the pooled median)
  int measurements = 1;  // records merged into this schedule
};

struct DatasetWorkload {
  std::string key;
  std::string name;   // the task's name, or the key's prefix without a task
  std::string group;  // network / job name
  double weight = 1;
  std::shared_ptr<const ComputeDag> dag;
  std::vector<DatasetSchedule> schedules;  // in record-id order of first measurement
};

struct Dataset {
  DeviceProfile device;
  std::vector<DatasetWorkload> workloads;  // only those with at least one schedule
  int64_t ok_records = 0;                  // before merging repeats
  int64_t failed_records = 0;              // not ok (or non-positive mean): skipped
  int64_t merged_repeats = 0;              // ok records folded into an earlier schedule
  int64_t busy_records = 0;                // ok but measured on a busy host: skipped
  int64_t pooled_repeats = 0;  // of merged_repeats, pooled into a median (median_since_unix_ms)
  int empty_workloads = 0;                 // selected but without an ok record
  // OpenMP threads the selected jobs ran their kernels with (their stored
  // options' measure.num_threads): 0 when that is all hardware threads, or
  // when unknown (no job, unreadable options) or mixed across jobs.
  int kernel_threads = 0;

  int64_t NumSchedules() const;
};

struct DatasetQuery {
  // "" = the jobs' device when job ids are given, else the only device with
  // records (InvalidArgument listing them when there are several).
  std::string device_key;
  std::vector<int64_t> job_ids;  // empty = all jobs on the device
  // Leave out ok records whose host had more than this many cores busy with
  // other work while they ran (MeasureResult::host_busy_cores); records
  // that were not sampled stay. Negative: keep every record.
  double max_host_busy_cores = 0.5;
  // > 0: a schedule with quiet ok records measured at or after this time
  // (unix ms) is labelled by their median, not by its latest record. The
  // time must fall after the last change to the code generator, so that one
  // build made every pooled measurement: repeats of one kernel are then
  // pooled, kernels of two builds never are.
  int64_t median_since_unix_ms = 0;
};

absl::StatusOr<Dataset> LoadDataset(const RecordsStore& store, const DatasetQuery& query);

}  // namespace pruner::dataset

#endif  // PRUNER_BENCH_DATASET_DATASET_LOADER_H_
