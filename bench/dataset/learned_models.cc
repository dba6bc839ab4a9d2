#include "bench/dataset/learned_models.h"

#include "common/model/xgb_model.h"
#if PRUNER_DATASET_WITH_TORCH
#include "common/model/mlp_model.h"
#include "common/model/tlp_model.h"
#endif
#if PRUNER_DATASET_WITH_TORCH && __has_include("common/model/pacm_model.h")
#define PRUNER_DATASET_WITH_PACM 1
#include "common/model/pacm_model.h"
#endif

namespace pruner::dataset {

std::vector<LearnedModelFactory> LearnedModels(const LearnedModelSettings& settings) {
  LearnedModelOptions training;
  training.num_warmup_sample = 1;
  training.featurize_threads = settings.featurize_threads;
  training.seed = settings.seed;

  std::vector<LearnedModelFactory> out;
  out.push_back({"xgb", [=](const DeviceProfile& device) {
                   XgbModelOptions options;
                   options.training = training;
                   options.xgb.seed = settings.seed;
                   return MakeXgbModel(device, options);
                 }});
#if PRUNER_DATASET_WITH_TORCH
  out.push_back({"mlp", [=](const DeviceProfile& device) {
                   MlpModelOptions options;
                   options.training = training;
                   options.mlp.seed = settings.seed;
                   return MakeMlpModel(device, options);
                 }});
#endif
#if PRUNER_DATASET_WITH_PACM
  // Online mode: each Update trains a fresh network on everything given.
  out.push_back({"pacm", [=](const DeviceProfile& device) -> std::unique_ptr<CostModel> {
                   PaCMModelOptions options;
                   options.featurize_threads = settings.featurize_threads;
                   options.training.schedule.seed = settings.seed;
                   return MakePaCMModel(device, options);
                 }});
#endif
#if PRUNER_DATASET_WITH_TORCH
  // TLP's attention model over the schedules' step matrices.
  out.push_back({"tlp", [=](const DeviceProfile& device) -> std::unique_ptr<CostModel> {
                   TlpModelOptions options;
                   options.training = training;
                   options.tlp.seed = settings.seed;
                   return MakeTlpModel(device, options);
                 }});
#endif
  return out;
}

}  // namespace pruner::dataset
