#include "client/pretrain_command.h"

#include <cstdio>
#include <fstream>
#include <iostream>
#include <memory>

#include "client/command_exit.h"
#include "absl/strings/str_cat.h"
#include "common/base/status_macros.h"
#include "common/model/cost_model.h"
#include "common/schedule/state.h"
#include "common/schedule/step.h"
#include "common/store/records_store.h"
#include "common/tune/stored_states.h"
#ifdef PRUNER_WITH_TORCH
#include "common/model/pacm_pretrain.h"
#endif

namespace pruner {

int RunPretrain(const PretrainCommand& c) {
#ifndef PRUNER_WITH_TORCH
  return FailCommand(absl::FailedPreconditionError("pretrain needs a build with LibTorch (PaCM)"));
#else
  if (c.device.empty()) return FailCommand(absl::InvalidArgumentError("give --device KEY (see `pruner records`)"));
  auto store = RecordsStore::Open(c.db);
  if (!store.ok()) return FailCommand(store.status());
  auto device = (*store)->GetDevice(c.device);
  if (!device.ok()) return FailCommand(device.status());
  int64_t skipped = 0;
  auto records = LoadMeasuredStates(**store, c.device, &skipped);
  if (!records.ok()) return FailCommand(records.status());
  if (records->empty()) {
    return FailCommand(absl::FailedPreconditionError(
        absl::StrCat("no records of device ", c.device, " in ", c.db)));
  }
  std::printf("pretraining PaCM on %zu records of %s (%lld skipped: no longer replay)\n",
              records->size(), c.device.c_str(), static_cast<long long>(skipped));
  std::fflush(stdout);
  PaCMPretrainOptions options;
  if (c.max_epochs > 0) options.training.schedule.max_epochs = c.max_epochs;
  if (c.analyzer_branch) options.network.symbol_hidden = PaCMNetworkShape::kAnalyzerBranchWidth;
  auto result = PretrainPaCM(*records, *device, options);
  if (!result.ok()) return FailCommand(result.status());
  if (absl::Status st = (*store)->PutCheckpoint("pacm", c.device, result->checkpoint,
                                                result->train_programs);
      !st.ok()) {
    return FailCommand(st);
  }
  std::printf("trained on %lld programs (%lld held out, %lld did not lower) in %.1f s, %d epochs\n",
              static_cast<long long>(result->train_programs),
              static_cast<long long>(result->holdout_programs),
              static_cast<long long>(result->unfeaturized_records), result->fit.seconds,
              result->fit.iterations);
  if (result->holdout_programs > 0) {
    std::printf("held-out pairwise accuracy %.3f (0.5 is chance)\n",
                result->holdout_pairwise_accuracy);
  } else {
    std::printf("no held-out check: a workload needs 10 or more records to hold one out\n");
  }
  std::printf("stored as the latest \"pacm\" checkpoint of %s; use it with "
              "--strategy moa-pruner --pretrained-device %s\n",
              c.device.c_str(), c.device.c_str());
  if (!c.out.empty()) {
    std::ofstream out(c.out, std::ios::binary);
    out << result->checkpoint;
    if (!out) return FailCommand(absl::UnavailableError(absl::StrCat("cannot write ", c.out)));
  }
  return 0;
#endif
}

}  // namespace pruner
