// TLP (../shared/specs/tlp.md) as a cost model named "tlp": the schedule's
// step matrix (tlp_features.h; no lowering, so scoring is cheap) through
// TLP's attention network (tlp_regressor.h), with the data set, labels,
// warm-up and checkpoints of the other learned models (learned_model.h).
// TLP is meant to be trained offline on a dataset and used frozen; as a
// CostModel every Update retrains from scratch on all records given, which
// is what the dataset benchmarks do with a training split. Lives in
// pruner_cost_model_torch; this header does not include LibTorch.
#ifndef PRUNER_COMMON_MODEL_TLP_MODEL_H_
#define PRUNER_COMMON_MODEL_TLP_MODEL_H_

#include <memory>
#include <vector>

#include "absl/status/statusor.h"

#include "common/device/device_profile.h"
#include "common/model/cost_model.h"
#include "common/model/learned_model.h"
#include "common/model/tlp_regressor.h"

namespace pruner {

struct TlpModelOptions {
  LearnedModelOptions training;  // warm-up, adaptive training, seed
  TlpParams tlp;                 // TLP's network and schedule; rows/columns follow the device
  // log2 of the step rows' numbers (TlpLogPayload), an experiment the spec
  // recommends; the model is then named "tlp-log" / "mtl-tlp-log". Off:
  // TLP's code feeds raw integers.
  bool log_payload = false;
};

// Name() is "tlp". The crop is the device's platform's (CPU 25 x 22, GPU
// 40 x 20).
std::unique_ptr<CostModel> MakeTlpModel(const DeviceProfile& device,
                                        const TlpModelOptions& options = {});

// MTL-TLP (tlp.md §7) named "mtl-tlp": TLP with a second head trained on
// another device's records (`auxiliary`, measured on `auxiliary_device`)
// at every fit, sharing the trunk with this device's head, which predicts.
// The records of the two devices need not be the same programs: each head's
// loss masks out the other device's rows. InvalidArgument when the devices
// are of different platforms (CPU and GPU rows are not the same features)
// or no auxiliary record is ok.
absl::StatusOr<std::unique_ptr<CostModel>> MakeMtlTlpModel(
    const DeviceProfile& device, const TlpModelOptions& options,
    const DeviceProfile& auxiliary_device, const std::vector<MeasuredState>& auxiliary);

}  // namespace pruner

#endif  // PRUNER_COMMON_MODEL_TLP_MODEL_H_
