// The bytes of a PaCM checkpoint (CostModel::Save/Load, PretrainPaCM).
//
// The generic header of checkpoint.h comes first (model "pacm", the device
// the predicting network was trained for, 174 columns, records), so that an
// MLP or XGBoost blob is refused by name before anything else reads it. Its
// payload is PaCM's own, versioned:
//
//   pacm-payload 1\n
//   <moa_updates: 8 bytes, little-endian>
//   <predictor size: 8 bytes> <predictor network (pacm_network.h)>
//   <siamese size: 8 bytes>   <MoA's Siamese network, or nothing>
//
// Each network carries its layer widths and its column scales, so a
// checkpoint alone rebuilds the model that saved it.
#ifndef PRUNER_COMMON_MODEL_PACM_CHECKPOINT_H_
#define PRUNER_COMMON_MODEL_PACM_CHECKPOINT_H_

#include <cstdint>
#include <memory>
#include <string>
#include <string_view>

#include "absl/status/statusor.h"
#include "common/model/pacm_network.h"

namespace pruner {

inline constexpr std::string_view kPaCMModelName = "pacm";
// Bump when the payload or the network's serialized form changes meaning.
inline constexpr int kPaCMPayloadVersion = 1;

// What Save writes; the networks are borrowed.
struct PaCMCheckpointContents {
  std::string device;        // the predictor's training device
  int64_t records = 0;       // records it was trained on
  const PaCMNetwork* predictor = nullptr;  // null: untrained, empty payload
  const PaCMNetwork* siamese = nullptr;    // MoA only; saved with a predictor
  int64_t moa_updates = 0;   // MoA's update counter
};

absl::StatusOr<std::string> EncodePaCMCheckpoint(const PaCMCheckpointContents& contents);

struct PaCMCheckpoint {
  std::string device;
  int64_t records = 0;
  std::unique_ptr<PaCMNetwork> predictor;  // null for an untrained model's checkpoint
  std::unique_ptr<PaCMNetwork> siamese;
  int64_t moa_updates = 0;
};

// InvalidArgument, saying what it found, for anything that is not a PaCM
// checkpoint of this payload version with intact networks.
absl::StatusOr<PaCMCheckpoint> DecodePaCMCheckpoint(std::string_view blob);

}  // namespace pruner

#endif  // PRUNER_COMMON_MODEL_PACM_CHECKPOINT_H_
