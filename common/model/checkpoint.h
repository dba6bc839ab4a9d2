// The byte format of a learned model's checkpoint (CostModel::Save/Load).
//
// A short text header names what the payload belongs to, so that Load can
// refuse an XGBoost checkpoint handed to the MLP, or a model trained for
// another device (features and labels are per device), before the learner's
// own decoder sees foreign bytes:
//
//   pruner-cost-model 1
//   model xgb
//   device cpu-local
//   columns 164
//   records 1234
//   payload 56789
//   <56789 bytes of the learner's own format>
#ifndef PRUNER_COMMON_MODEL_CHECKPOINT_H_
#define PRUNER_COMMON_MODEL_CHECKPOINT_H_

#include <cstdint>
#include <string>
#include <string_view>

#include "absl/status/statusor.h"

namespace pruner {

struct ModelCheckpoint {
  std::string model;    // CostModel::Name()
  std::string device;   // DeviceProfile::name
  int columns = 0;      // features per row
  int64_t records = 0;  // NumTrainingRecords() when saved
  std::string payload;  // the learner's parameters; empty when untrained
};

std::string EncodeCheckpoint(const ModelCheckpoint& checkpoint);
// InvalidArgument on anything malformed, truncated or trailing.
absl::StatusOr<ModelCheckpoint> DecodeCheckpoint(std::string_view blob);

}  // namespace pruner

#endif  // PRUNER_COMMON_MODEL_CHECKPOINT_H_
