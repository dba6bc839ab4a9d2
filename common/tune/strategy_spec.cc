#include "common/tune/strategy_spec.h"

#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "common/base/absl_compat.h"

namespace pruner {

const std::vector<StrategySpec>& KnownStrategySpecs() {
  using S = SearchMethod;
  using M = ScoreModel;
  static const std::vector<StrategySpec>* specs = new std::vector<StrategySpec>{
      {"random", "sketch + random annotation, no model", S::kRandom, M::kNone},
      {"ansor-xgb", "Ansor's evolutionary search guided by XGBoost (the default)",
       S::kEvolutionary, M::kXgb},
      {"ansor", "the same as ansor-xgb", S::kEvolutionary, M::kXgb},
      {"ansor-mlp", "evolutionary search guided by the TenSet MLP", S::kEvolutionary, M::kMlp},
      {"ansor-tlp", "evolutionary search guided by TLP (attention over the schedule's steps)",
       S::kEvolutionary, M::kTlp},
      {"ansor-mtl-tlp",
       "evolutionary search guided by MTL-TLP, its second head trained on the records of "
       "--pretrained-device",
       S::kEvolutionary, M::kMtlTlp},
      {"ansor-autotvm",
       "evolutionary search guided by AutoTVM's rank XGBoost, transferring from the "
       "database's records of other workloads",
       S::kEvolutionary, M::kAutotvm},
      {"autotvm",
       "AutoTVM: simulated annealing over parallel Markov chains plans the next 64 trials by "
       "its rank XGBoost (transfer from the database's records), eps-greedy picks",
       S::kAnnealing, M::kAutotvm},
      {"ansor-random", "evolutionary search guided by random scores", S::kEvolutionary,
       M::kRandomScores},
      {"lse-xgb", "Pruner's draft-then-verify search: LSE drafts, XGBoost verifies",
       S::kDraftVerify, M::kXgb},
      {"pruner", "LSE drafts, PaCM verifies, retrained every round", S::kDraftVerify, M::kPaCM,
       PaCMStart::kFresh},
      {"pruner-sym",
       "LSE drafts, PaCM with the analyzer's register-tile and issue symbols as a third input "
       "verifies, retrained every round",
       S::kDraftVerify, M::kPaCM, PaCMStart::kFresh, /*pacm_analyzer_branch=*/true},
      {"moa-pruner",
       "LSE drafts; PaCM starts from a checkpoint pretrained on another device and adapts "
       "with the momentum update (MoA)",
       S::kDraftVerify, M::kPaCM, PaCMStart::kPretrainedAdapted},
      {"pruner-offline", "LSE drafts; the pretrained PaCM verifies, never updated",
       S::kDraftVerify, M::kPaCM, PaCMStart::kPretrainedFrozen},
      {"pruner-ensemble",
       "LSE drafts; XGBoost, the TenSet MLP and PaCM verify together (z-scores summed per "
       "workload), each retrained every round",
       S::kDraftVerify, M::kEnsemble},
  };
  return *specs;
}

std::vector<std::string> KnownStrategies() {
  std::vector<std::string> names;
  for (const StrategySpec& spec : KnownStrategySpecs()) names.push_back(spec.name);
  return names;
}

absl::StatusOr<StrategySpec> ParseStrategy(std::string_view name) {
  for (const StrategySpec& spec : KnownStrategySpecs()) {
    if (spec.name == name) return spec;
  }
  return absl::InvalidArgumentError(absl::StrCat("unknown strategy \"", ToAbsl(name),
                                                 "\"; known: ",
                                                 absl::StrJoin(KnownStrategies(), ", ")));
}

}  // namespace pruner
