#include "client/calibrate_command.h"

#include <cmath>
#include <cstdio>

#include "absl/strings/str_cat.h"
#include "client/command_exit.h"
#include "common/store/records_store.h"
#include "common/tune/draft_constants.h"

namespace pruner {

int RunCalibrate(const CalibrateCommand& c) {
  if (c.device.empty()) {
    return FailCommand(absl::InvalidArgumentError("give --device KEY (see `pruner dataset stats`)"));
  }
  auto store = RecordsStore::Open(c.db);
  if (!store.ok()) return FailCommand(store.status());
  auto device = (*store)->GetDevice(c.device);
  if (!device.ok()) return FailCommand(device.status());
  std::printf("calibrating the draft model (LSE's CPU issue model) on the records of %s in %s\n",
              c.device.c_str(), c.db.c_str());
  std::fflush(stdout);
  DraftCalibrationOptions options;
  options.folds = c.folds;
  options.threads = c.threads;
  options.codegen = c.records_codegen;
  std::printf("counting the code of %s (--records-codegen)\n",
              options.codegen == CpuBackend::kGcc ? "g++" : "the LLVM backend");
  auto cal = CalibrateDraft(**store, *device, c.device, options);
  if (!cal.ok()) return FailCommand(cal.status());
  std::printf("%lld schedules of %d workloads (%lld records measured on a busy host left out, "
              "%lld schedules that no longer replay or lower)\n",
              static_cast<long long>(cal->schedules), cal->workloads,
              static_cast<long long>(cal->busy), static_cast<long long>(cal->skipped));
  std::printf("before (%s): %s\n  mean Spearman rho %.3f\n",
              cal->before_stored ? "stored by an earlier calibrate" : "defaults",
              cal->before.ToString().c_str(), cal->before_rho);
  if (!std::isnan(cal->held_out_rho)) {
    std::printf("fitted on %d of %d folds, ranking the held-out one: mean rho %.3f\n",
                c.folds - 1, c.folds, cal->held_out_rho);
  }
  std::printf("fitted on every workload: %s\n  mean Spearman rho %.3f (%d passes)\n",
              cal->fit.constants.ToString().c_str(), cal->fit.spearman, cal->fit.passes);
  if (c.dry_run) {
    std::printf("dry run: nothing stored\n");
    return 0;
  }
  if (absl::Status st = SaveDraftConstants(**store, c.device, cal->fit.constants, cal->schedules);
      !st.ok()) {
    return FailCommand(st);
  }
  std::printf("stored for %s: draft-then-verify jobs on it (pruner, moa-pruner, lse-xgb) draft "
              "with these constants\n",
              c.device.c_str());
  return 0;
}

}  // namespace pruner
