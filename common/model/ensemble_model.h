// Several cost models as one. Each member scores the states; per workload
// (among the states of one Predict call) each member's scores become
// z-scores, and the ensemble's score is their sum.
//
// Why: models that read a schedule differently (Ansor's statement rows for
// XGBoost and the MLP, PaCM's pattern rows, TLP's step sentences) err on
// different schedules. On this project's CPU dataset the sum of XGBoost,
// the MLP and PaCM ranks the top better than any of them alone (Table 11,
// bench/README.md, session 45). Z-scores, not raw scores, because the
// members' scales differ (pack sums, LambdaRank logits).
//
// - Update trains every member on the same records; a member's error is
//   returned (named) after the others have trained.
// - A state any member cannot score (-infinity) scores -infinity.
// - Members still in warm-up (Ranks() false) answer random scores and are
//   left out of the sum while another member ranks.
// - Save/Load: the members' checkpoints in order, each with its name.
// Not thread-safe, as its members.
#ifndef PRUNER_COMMON_MODEL_ENSEMBLE_MODEL_H_
#define PRUNER_COMMON_MODEL_ENSEMBLE_MODEL_H_

#include <memory>
#include <string>
#include <vector>

#include "absl/status/statusor.h"
#include "common/model/cost_model.h"

namespace pruner {

// `name` is what Name() answers (e.g. "ensemble"); at least one member,
// none null.
absl::StatusOr<std::unique_ptr<CostModel>> MakeEnsembleModel(
    std::string name, std::vector<std::unique_ptr<CostModel>> members);

// The per-group z-score sum itself, for callers that hold scores already:
// scores[m][i] is member m's score of state i, groups[i] the state's group
// (its workload). Non-finite member scores give -infinity.
std::vector<double> SumOfZScores(const std::vector<std::vector<double>>& scores,
                                 const std::vector<int>& groups);

}  // namespace pruner

#endif  // PRUNER_COMMON_MODEL_ENSEMBLE_MODEL_H_
