// `pruner calibrate`: fits the CPU draft model's device constants (LSE's
// issue model) on the records a database holds for one device and stores
// them there, so that every draft-then-verify job on that device (pruner,
// moa-pruner, lse-xgb) drafts with them (common/tune/draft_constants.h).
#ifndef PRUNER_CLIENT_CALIBRATE_COMMAND_H_
#define PRUNER_CLIENT_CALIBRATE_COMMAND_H_

#include <string>

#include "common/analysis/analyzer_options.h"

namespace pruner {

struct CalibrateCommand {
  std::string db = "pruner.db";
  std::string device;    // device key whose records are fitted
  int folds = 2;         // held-out report; 1: none
  bool dry_run = false;  // report only, store nothing
  int threads = 0;
  CpuBackend records_codegen = CpuBackend::kLlvm;  // whose code the records timed
};

int RunCalibrate(const CalibrateCommand& command);

}  // namespace pruner

#endif  // PRUNER_CLIENT_CALIBRATE_COMMAND_H_
