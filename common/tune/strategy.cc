#include "common/tune/strategy.h"

#include "absl/strings/str_cat.h"
#include "common/model/symbol_analyzer_model.h"
#include "common/model/xgb_model.h"
#include "common/search/draft_verify_policy.h"
#include "common/search/evolutionary_policy.h"
#include "common/search/random_policy.h"
#ifdef PRUNER_WITH_TORCH
#include "common/model/mlp_model.h"
#include "common/model/pacm_model.h"
#endif

namespace pruner {
namespace {

LearnedModelOptions TrainingOptions(const TuningOptions& options, int num_tasks) {
  LearnedModelOptions t;
  // Ansor's task scheduler: the first full round-robin is random search.
  t.num_warmup_sample = options.num_warmup_samples > 0
                            ? options.num_warmup_samples
                            : num_tasks * options.measures_per_round;
  t.seed = options.seed;
  return t;
}

bool IsPrunerStrategy(const std::string& strategy) {
  return strategy == "pruner" || strategy == "moa-pruner" || strategy == "pruner-offline";
}

absl::StatusOr<std::unique_ptr<CostModel>> MakePaCMStrategyModel(const TuningOptions& options,
                                                                 const DeviceProfile& device,
                                                                 const RecordsStore* store) {
#ifdef PRUNER_WITH_TORCH
  PaCMModelOptions pacm;
  pacm.mode = options.strategy == "pruner"       ? PaCMMode::kOnline
              : options.strategy == "moa-pruner" ? PaCMMode::kMoA
                                                 : PaCMMode::kOffline;
  std::unique_ptr<CostModel> model = MakePaCMModel(device, pacm);
  if (pacm.mode != PaCMMode::kOnline) {
    if (store == nullptr) {
      return absl::FailedPreconditionError(
          absl::StrCat("strategy ", options.strategy, " needs the records database for its "
                       "pretrained checkpoint"));
    }
    auto blob = store->LatestCheckpoint("pacm", options.pretrained_device);
    if (!blob.ok()) {
      return absl::Status(blob.status().code(),
                          absl::StrCat("no PaCM checkpoint pretrained on '",
                                       options.pretrained_device, "' (run `pruner pretrain --device ",
                                       options.pretrained_device, "` first): ",
                                       blob.status().message()));
    }
    if (absl::Status st = model->Load(*blob); !st.ok()) return st;
  }
  return model;
#else
  return absl::FailedPreconditionError(
      absl::StrCat("strategy ", options.strategy, " needs a build with LibTorch (PaCM)"));
#endif
}

}  // namespace

absl::StatusOr<std::unique_ptr<CostModel>> MakeStrategyModel(const TuningOptions& options,
                                                             const DeviceProfile& device,
                                                             int num_tasks,
                                                             const RecordsStore* store) {
  if (IsPrunerStrategy(options.strategy)) return MakePaCMStrategyModel(options, device, store);
  if (options.strategy == "random") return std::unique_ptr<CostModel>();
  if (options.strategy == "ansor-random") return MakeRandomModel(options.seed);
  if (options.strategy == "ansor" || options.strategy == "ansor-xgb" ||
      options.strategy == "lse-xgb") {
    XgbModelOptions xgb;
    xgb.training = TrainingOptions(options, num_tasks);
    return MakeXgbModel(device, xgb);
  }
  if (options.strategy == "ansor-mlp") {
#ifdef PRUNER_WITH_TORCH
    MlpModelOptions mlp;
    mlp.training = TrainingOptions(options, num_tasks);
    return MakeMlpModel(device, mlp);
#else
    return absl::FailedPreconditionError("strategy ansor-mlp needs a build with LibTorch");
#endif
  }
  return absl::InvalidArgumentError(absl::StrCat("unknown strategy \"", options.strategy, "\""));
}

absl::StatusOr<std::unique_ptr<SearchPolicy>> MakeStrategyPolicy(const TuningOptions& options,
                                                                 const SearchTask& task,
                                                                 CostModel* model, uint64_t seed) {
  if (options.strategy == "random") {
    return std::unique_ptr<SearchPolicy>(std::make_unique<RandomSearchPolicy>(task, seed));
  }
  if (model == nullptr) {
    return absl::InvalidArgumentError(
        absl::StrCat("strategy ", options.strategy, " needs a cost model"));
  }
  if (options.strategy == "lse-xgb" || IsPrunerStrategy(options.strategy)) {
    // Pruner's draft-then-verify search; lse-xgb verifies with Ansor's
    // learned model (the search half of Pruner, measured apart from PaCM).
    DraftVerifyOptions dv;
    dv.population = options.population;
    dv.eps_greedy = options.eps_greedy;
    if (options.num_iters >= 0) dv.verify_num_iters = options.num_iters;
    if (absl::Status s = dv.Validate(); !s.ok()) return s;
    SymbolAnalyzerModelOptions psa;
    psa.threads = 1;  // the loop's search runs beside timed kernels
    auto drafter = MakeSymbolAnalyzerModel(task.device, psa);
    if (!drafter.ok()) return drafter.status();
    return std::unique_ptr<SearchPolicy>(std::make_unique<DraftVerifySearchPolicy>(
        task, *std::move(drafter), model, dv, seed));
  }
  EvolutionaryOptions evo = EvolutionaryOptions::Ansor();
  evo.population = options.population;
  evo.num_iters = options.num_iters;
  evo.eps_greedy = options.eps_greedy;
  if (absl::Status s = evo.Validate(); !s.ok()) return s;
  return std::unique_ptr<SearchPolicy>(
      std::make_unique<EvolutionarySearchPolicy>(task, model, evo, seed));
}

}  // namespace pruner
