// Ansor's XGBoost cost model: gradient-boosted trees over the 164 statement
// features with the pack-sum objective (../shared/specs/ansor.md §5.3; the learner is
// xgb_regressor.h, the bookkeeping learned_model.h).
#ifndef PRUNER_COMMON_MODEL_XGB_MODEL_H_
#define PRUNER_COMMON_MODEL_XGB_MODEL_H_

#include <memory>

#include "common/device/device_profile.h"
#include "common/model/cost_model.h"
#include "common/model/learned_model.h"
#include "common/model/xgb_regressor.h"

namespace pruner {

struct XgbModelOptions {
  LearnedModelOptions training;  // warm-up, adaptive training, threads, seed
  XgbParams xgb;                 // upstream hyper-parameters by default
  // Each statement row followed by the program's analyzer vector
  // (pacm_symbols.h, PaCM's analyzer branch): what the Symbol Analyzer
  // counts of the code, beside Ansor's rows, for a learner of another kind
  // than PaCM's network. Off is Ansor's model.
  bool analyzer_symbols = false;
};

// Name() is "xgb", or "xgb-sym" with analyzer_symbols.
std::unique_ptr<CostModel> MakeXgbModel(const DeviceProfile& device,
                                        const XgbModelOptions& options = {});

}  // namespace pruner

#endif  // PRUNER_COMMON_MODEL_XGB_MODEL_H_
