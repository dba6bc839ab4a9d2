// The TenSet MLP cost model (mlp_regressor.h) over the 164 statement
// features, with the same data set, warm-up and checkpoint handling as the
// XGBoost model (learned_model.h). Lives in pruner_cost_model_torch; this
// header does not include LibTorch.
#ifndef PRUNER_COMMON_MODEL_MLP_MODEL_H_
#define PRUNER_COMMON_MODEL_MLP_MODEL_H_

#include <memory>

#include "common/device/device_profile.h"
#include "common/model/cost_model.h"
#include "common/model/learned_model.h"
#include "common/model/mlp_regressor.h"

namespace pruner {

struct MlpModelOptions {
  LearnedModelOptions training;  // warm-up, adaptive training, threads, seed
  MlpParams mlp;                 // TenSet's network and training by default
};

// Name() is "mlp".
std::unique_ptr<CostModel> MakeMlpModel(const DeviceProfile& device,
                                        const MlpModelOptions& options = {});

}  // namespace pruner

#endif  // PRUNER_COMMON_MODEL_MLP_MODEL_H_
