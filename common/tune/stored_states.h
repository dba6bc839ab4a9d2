// Records of the records database as the cost models learn from them:
// replayed to states. What pre-training (pruner pretrain), AutoTVM's
// transfer base and MTL-TLP's second device read.
#ifndef PRUNER_COMMON_TUNE_STORED_STATES_H_
#define PRUNER_COMMON_TUNE_STORED_STATES_H_

#include <cstdint>
#include <string>
#include <vector>

#include "absl/status/statusor.h"
#include "common/model/cost_model.h"
#include "common/store/records_store.h"

namespace pruner {

// Every record of `device_key`, replayed to its state, workload by
// workload. Records whose schedule no longer replays (an older engine's
// sentence) are skipped and counted in `*skipped` (may be null).
absl::StatusOr<std::vector<MeasuredState>> LoadMeasuredStates(const RecordsStore& store,
                                                              const std::string& device_key,
                                                              int64_t* skipped);

}  // namespace pruner

#endif  // PRUNER_COMMON_TUNE_STORED_STATES_H_
