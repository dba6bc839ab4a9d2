// The learned cost models the dataset metrics train and score (Table 11,
// Fig. 15), each a named factory of a fresh, untrained CostModel.
//
// Every model is configured to train on whatever it is given at once (no
// warm-up: a 10% training fraction can be smaller than Ansor's 100-record
// warm-up, and a model still in warm-up answers random scores). Adding a
// model is one entry in LearnedModels().
#ifndef PRUNER_BENCH_DATASET_LEARNED_MODELS_H_
#define PRUNER_BENCH_DATASET_LEARNED_MODELS_H_

#include <functional>
#include <set>
#include <memory>
#include <string>
#include <vector>

#include "common/device/device_profile.h"
#include "common/model/cost_model.h"

namespace pruner::dataset {

struct LearnedModelFactory {
  std::string name;  // "xgb", "autotvm", "autotvm-transfer", "mlp", "pacm", "pacm-mixed", "tlp", "mtl-tlp"
  // A fresh model for `device`; `held_out` are the workload keys the model
  // will be scored on, which no training data of any device may include.
  std::function<std::unique_ptr<CostModel>(const DeviceProfile& device,
                                           const std::set<std::string>& held_out)>
      make;
  // Variants for experiments (the "pacm-gain…", "pacm-costw…" family) run
  // only when --models names them, not in the default every-model table.
  bool on_request = false;
};

// Another device's records (MTL-TLP's second task).
struct AuxiliaryRecords {
  DeviceProfile device;
  std::vector<MeasuredState> records;
};

struct LearnedModelSettings {
  int featurize_threads = 1;
  // LibTorch intra-op threads of the networks' training and scoring (mlp,
  // pacm*, tlp, mtl-tlp); 0 = each model's default, 1. More helps only on
  // an otherwise idle machine (torch_rank_training.h, TorchThreads).
  int train_threads = 0;
  uint64_t seed = 43;
  // PaCM's epochs (RankTrainingSchedule::max_epochs); 0 = its default, 50.
  int pacm_max_epochs = 0;
  // Set: "mtl-tlp" is offered, trained with these beside the target's.
  std::shared_ptr<const AuxiliaryRecords> auxiliary;
};

// What this build has: xgb, autotvm and autotvm-transfer always; mlp, pacm,
// pacm-mixed and tlp with LibTorch, and mtl-tlp when there are auxiliary
// records. On request (--models names them): PaCM's loss variants and
// "ensemble" (xgb + mlp + pacm, ensemble_model.h).
std::vector<LearnedModelFactory> LearnedModels(const LearnedModelSettings& settings);

}  // namespace pruner::dataset

#endif  // PRUNER_BENCH_DATASET_LEARNED_MODELS_H_
