#include "common/tune/stored_states.h"

#include <memory>
#include <utility>

#include "common/base/status_macros.h"
#include "common/schedule/state.h"
#include "common/schedule/step.h"

namespace pruner {

absl::StatusOr<std::vector<MeasuredState>> LoadMeasuredStates(const RecordsStore& store,
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
      auto state = steps.ok() ? State::Replay(shared, *steps) : absl::StatusOr<State>(steps.status());
      if (!state.ok()) {
        if (skipped != nullptr) ++*skipped;
        continue;
      }
      out.push_back(MeasuredState{*std::move(state), key, r.result.mean_s, r.result.ok()});
    }
  }
  return out;
}

}  // namespace pruner
