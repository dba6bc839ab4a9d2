// A job's strategy, parsed once from its name into what it is made of: the
// search method and the cost model that guides it. Everything that behaves
// differently per strategy (the factories in strategy.h, option checks, the
// evolutionary search's generations) reads this description, never the name.
// TuningOptions keeps the name, because the name is what jobs store and the
// wire carries.
#ifndef PRUNER_COMMON_TUNE_STRATEGY_SPEC_H_
#define PRUNER_COMMON_TUNE_STRATEGY_SPEC_H_

#include <string>
#include <string_view>
#include <vector>

#include "absl/status/statusor.h"

namespace pruner {

enum class SearchMethod {
  kRandom,        // sketch + random annotation
  kEvolutionary,  // Ansor's evolutionary search with eps-greedy picks
  kDraftVerify,   // Pruner's: the symbol analyzer drafts, the model verifies
  kAnnealing,     // AutoTVM's: simulated annealing plans, eps-greedy picks
};

enum class ScoreModel {
  kNone,          // no model (random search)
  kRandomScores,  // random scores (Ansor's random model)
  kXgb,           // XGBoost on Ansor's statement features
  kMlp,           // the TenSet MLP (LibTorch)
  kPaCM,          // Pruner's pattern-aware cost model (LibTorch)
  kTlp,           // TLP's attention model over the schedule's steps (LibTorch)
  kMtlTlp,        // MTL-TLP: TLP with a second head for another device's records
  kAutotvm,       // AutoTVM's rank XGBoost with transfer from the database
  kEnsemble,      // XGBoost + the TenSet MLP + PaCM, z-scores summed per workload
};

// Where a PaCM starts (ScoreModel::kPaCM only).
enum class PaCMStart {
  kFresh,              // untrained, retrained every round
  kPretrainedAdapted,  // a checkpoint of another device, adapted with MoA
  kPretrainedFrozen,   // a checkpoint of another device, never updated
};

struct StrategySpec {
  std::string name;     // as the user writes it: "ansor-xgb"
  std::string summary;  // one line for help text
  SearchMethod search = SearchMethod::kRandom;
  ScoreModel model = ScoreModel::kNone;
  PaCMStart pacm_start = PaCMStart::kFresh;
  // PaCM with our analyzer branch (pacm_network.h), for the networks it
  // creates (pretrained checkpoints bring their own shape).
  bool pacm_analyzer_branch = false;

  // Starts from a checkpoint pretrained on TuningOptions::pretrained_device.
  bool NeedsPretrainedModel() const {
    return model == ScoreModel::kPaCM && pacm_start != PaCMStart::kFresh;
  }
  // Reads TuningOptions::pretrained_device: a PaCM checkpoint of it, or
  // (MTL-TLP) its records for the second head.
  bool NeedsOtherDevice() const { return NeedsPretrainedModel() || model == ScoreModel::kMtlTlp; }
  // Its model is a LibTorch network.
  bool NeedsTorch() const {
    return model == ScoreModel::kMlp || model == ScoreModel::kPaCM || model == ScoreModel::kTlp ||
           model == ScoreModel::kMtlTlp || model == ScoreModel::kEnsemble;
  }
  // Ansor's generations per evolutionary round for this model: 4, or 2 when
  // the scores are random (more generations only walk further at random).
  int DefaultGenerations() const { return model == ScoreModel::kRandomScores ? 2 : 4; }
};

// Every strategy, in the order help text lists them.
const std::vector<StrategySpec>& KnownStrategySpecs();
// Their names, in the same order.
std::vector<std::string> KnownStrategies();
// InvalidArgument listing the known names for anything else.
absl::StatusOr<StrategySpec> ParseStrategy(std::string_view name);

}  // namespace pruner

#endif  // PRUNER_COMMON_TUNE_STRATEGY_SPEC_H_
