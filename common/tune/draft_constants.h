// The draft model's device constants in the records database. LSE's CPU
// issue model (common/analysis/analyzer_options.h, CpuIssueConstants) is an
// analytic formula with a handful of device constants; the defaults are the
// fit on the developers' AMD EPYC. `pruner calibrate` fits them on the
// records a database holds for one device (common/analysis/issue_fit.h) and
// stores them under that device's key, and every draft-then-verify job on
// that device drafts with them (a resumed job reads them again).
#ifndef PRUNER_COMMON_TUNE_DRAFT_CONSTANTS_H_
#define PRUNER_COMMON_TUNE_DRAFT_CONSTANTS_H_

#include <cstdint>
#include <optional>
#include <string>

#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "common/analysis/analyzer_options.h"
#include "common/analysis/issue_fit.h"
#include "common/device/device_profile.h"
#include "common/store/records_store.h"

namespace pruner {

// Stored as a checkpoint of this model name: the text of
// CpuIssueConstants::Encode().
inline constexpr char kDraftConstantsModel[] = "lse-issue-constants";

// The latest constants stored for `device_key`; nullopt when none are.
// DataLoss when the stored text does not parse.
absl::StatusOr<std::optional<CpuIssueConstants>> LoadDraftConstants(const RecordsStore& store,
                                                                    const std::string& device_key);

// The constants a draft on `device_key` uses: the stored ones, else the
// defaults. `*stored` (may be null) says which.
absl::StatusOr<CpuIssueConstants> DraftConstantsFor(const RecordsStore* store,
                                                    const std::string& device_key, bool* stored);

absl::Status SaveDraftConstants(RecordsStore& store, const std::string& device_key,
                                const CpuIssueConstants& constants, int64_t num_records);

struct DraftCalibrationOptions {
  // Records whose host had more cores than this busy with other work are
  // left out (MeasureResult::host_busy_cores), as in the dataset metrics.
  double max_host_busy_cores = 0.5;
  // Workloads split into this many folds (by index) to report the fit on
  // workloads it did not see; 1: no held-out report.
  int folds = 2;
  int threads = 0;  // lowering and analysis; 0 = hardware threads
  // Whose code the records timed (AnalyzerOptions::cpu_codegen): the LLVM
  // backend's (workers' default), or g++'s for records of workers started
  // with --cpu-backend gcc (and of every record measured before
  // 2026-11-27). Jobs draft with the code of their own backend
  // (DraftAnalyzerOptions, strategy.h).
  CpuBackend codegen = CpuBackend::kLlvm;
};

struct DraftCalibration {
  // Distinct schedules fitted (a schedule measured again counts once, at
  // its latest quiet measurement), in `workloads` workloads of 3 or more
  // (those a rho exists for).
  int64_t schedules = 0;
  int workloads = 0;
  int64_t busy = 0;     // ok records measured on a busy host: left out
  // Schedules that no longer replay (left out) or do not lower (ranked
  // last, as IssueEstimates ranks a schedule without rows).
  int64_t skipped = 0;
  CpuIssueConstants before;  // what the device's draft used (stored or defaults)
  bool before_stored = false;
  double before_rho = 0;     // mean per-workload Spearman of `before`
  // Each fold's workloads ranked by constants fitted on the other folds
  // (NaN when folds < 2).
  double held_out_rho = 0;
  IssueFit fit;  // on every workload: what SaveDraftConstants stores
};

// Fits the issue constants on the quiet, valid schedules `store` holds for
// `device_key`, analyzed on `device`. FailedPrecondition for a GPU (the
// issue model is the CPU's) or a device with no workload of 3 records.
absl::StatusOr<DraftCalibration> CalibrateDraft(const RecordsStore& store,
                                                const DeviceProfile& device,
                                                const std::string& device_key,
                                                const DraftCalibrationOptions& options = {});

}  // namespace pruner

#endif  // PRUNER_COMMON_TUNE_DRAFT_CONSTANTS_H_
