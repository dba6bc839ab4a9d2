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
#ifdef PRUNER_WITH_TORCH
#include "common/model/pacm_pretrain.h"
#endif

namespace pruner {
namespace {

// Every record of `device_key`, replayed to its state. Records whose
// schedule no longer replays (an older engine's sentence) are skipped and
// counted.
absl::StatusOr<std::vector<MeasuredState>> LoadRecords(const RecordsStore& store,
                                                       const std::string& device_key,
                                                       int64_t* skipped) {
  PRUNER_ASSIGN_OR_RETURN(auto keys, store.ListWorkloadKeys());
  std::vector<MeasuredState> out;
  for (const std::string& key : keys) {
    PRUNER_ASSIGN_OR_RETURN(auto records, store.ListRecords(key, device_key));
    if (records.empty()) continue;
    PRUNER_ASSIGN_OR_RETURN(auto dag, store.GetWorkload(key));
    auto shared = std::make_shared<const ComputeDag>(std::move(dag));
    for (const StoredRecord& r : records) {
      auto steps = ParseSteps(r.steps);
      if (!steps.ok()) {
        ++*skipped;
        continue;
      }
      auto state = State::Replay(shared, *steps);
      if (!state.ok()) {
        ++*skipped;
        continue;
      }
      out.push_back(MeasuredState{*std::move(state), key, r.result.mean_s, r.result.ok()});
    }
  }
  return out;
}

}  // namespace

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
  auto records = LoadRecords(**store, c.device, &skipped);
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
