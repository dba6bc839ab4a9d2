// Re-measuring a dataset's busy records on a quiet host.
//
// Every dataset record keeps the cores other work kept busy while its kernel
// ran (host_load.h); records above a threshold are left out of the dataset
// metrics and of training. A collection that shared its machine with builds
// thus loses whole slices: on the committed CPU shard, 8,312 of 56,480
// records, and for some heavy BERT-large dense tasks two thirds of their
// schedules. Measuring those schedules again in a quiet stretch recovers
// them without drawing new ones, so each task keeps the random sample it was
// collected with.
//
// A workload with a busy schedule is measured again whole: every schedule
// of it, quiet ones too. The code generator changes between a collection and
// a later re-measurement (on the committed shard, two days of backend work
// made the same schedules 3-7% faster at the median and up to 40% on a tail,
// rank correlation 0.82-0.91 within a workload), and a workload's schedules
// are only comparable when one build timed them all. The dataset loader
// takes each schedule's latest quiet measurement.
//
// A re-measurement is a new record of the same job and task (the older
// records stay, as every measurement does). Workloads are re-measured while
// they have a busy schedule, and a workload's busy schedules are measured
// last, so the work is resumable: a run stopped inside a workload leaves it
// with a busy schedule, to be measured whole again by the next run. (A run
// of named workloads' fastest schedules is not resumed: run it again.) Only finished
// dataset jobs are re-measured: a stopped job counts its records as trials
// and resumes collecting from them.
#ifndef PRUNER_COMMON_TUNE_DATASET_REMEASURE_H_
#define PRUNER_COMMON_TUNE_DATASET_REMEASURE_H_

#include <atomic>
#include <cstdint>
#include <functional>
#include <memory>
#include <string>
#include <vector>

#include "absl/status/statusor.h"
#include "common/device/device_profile.h"
#include "common/measure/measurer.h"
#include "common/store/records_store.h"

namespace pruner {

struct DatasetRemeasureOptions {
  // Records measured with more busy cores than this are re-measured (the
  // dataset metrics' default filter, --max-host-busy 0.5).
  double busy_threshold = 0.5;
  int batch = 4;  // schedules per measurement call
  // Only these workloads (task names or workload keys); empty: every one
  // with a busy schedule. Named ones are measured again whole even when
  // none of their schedules is busy, e.g. to finish one a stop cut short.
  std::vector<std::string> workloads;
  // With named workloads: only each one's `fastest` schedules by their
  // latest quiet measurement (0: every schedule). Table 11's Top-1 is
  // decided among a workload's fastest few, where one measurement's noise
  // can reorder near ties; repeating just those is cheap next to the
  // whole workload. Schedules without a quiet ok record are not chosen.
  int fastest = 0;
  // Passes over each workload's chosen schedules, one after another (the
  // choice is made once, before the first). Repeats of one build give
  // labels a median (bench_dataset_metrics --median-since-ms).
  int passes = 1;
};

// One workload's re-measurement, reported when it is finished or stopped.
struct DatasetRemeasureWorkload {
  std::string name;        // the first dataset task of the workload
  int quiet_before = 0;    // schedules with a quiet record before this run
  int busy = 0;            // schedules with only busy records
  int schedules = 0;       // the workload's chosen schedules (all of them by default)
  int measured = 0;        // measurements made in this run (schedules x passes when done)
  int quiet = 0;           // of those, measured quietly now
};

struct DatasetRemeasureReport {
  int workloads = 0;          // with a busy schedule
  int64_t busy = 0;           // busy schedules found
  int64_t schedules = 0;      // the chosen schedules of those workloads
  int64_t planned = 0;        // schedules x passes
  int64_t measured = 0;       // measurements made in this run (of planned)
  int64_t quiet = 0;          // of them, quiet this time
  int64_t unfinished_jobs = 0;  // dataset jobs not done, left alone
  bool stopped = false;
};

// Makes the measurer for one job's measurement options (the job's kernel
// threads, repeats and timeouts), so a repeat is timed as the original was.
using MeasurerFactory = std::function<std::unique_ptr<Measurer>(const MeasureOptions&)>;

// Re-measures, workloads with the fewest quiet schedules first, every
// workload of `device`'s finished dataset jobs that has a schedule whose
// records are all busy.
// `device` must be the machine the records were measured on (its key).
// Stops between batches once `stop` (may be null) is true. Errors: no
// dataset jobs on the device, a bad option, a store or measurer failure.
absl::StatusOr<DatasetRemeasureReport> RemeasureBusyRecords(
    RecordsStore* store, const MeasurerFactory& make_measurer, const DeviceProfile& device,
    const DatasetRemeasureOptions& options,
    const std::function<void(const DatasetRemeasureWorkload&)>& on_workload,
    const std::atomic<bool>* stop);

}  // namespace pruner

#endif  // PRUNER_COMMON_TUNE_DATASET_REMEASURE_H_
