// AutoTVM's exploration (autotvm.md §5, ModelBasedTuner + XGBTuner) as a
// SearchPolicy over our sketch + annotation space:
//
//   plan:  after every plan_size new records of this task (and on the first
//          round), simulated annealing (simulated_annealing.h) finds the
//          plan_size best unmeasured states by the shared cost model, from
//          chains that persist between plans. With a diversity ratio λ >= 1
//          it finds λ·plan_size and keeps plan_size of them by knob
//          coverage (diversity_pick.h).
//   pick:  each round walks the plan, skipping states already measured or
//          proposed; once the walk reaches len(plan) - floor(eps·plan_size)
//          (the last 3 of a 64-plan at eps 0.05) or the plan's end, the
//          round's remaining picks are random unmeasured states (ε-greedy).
//
// Departures from AutoTVM, each for a reason:
// - The first plan is made as soon as the shared model ranks
//   (CostModel::Ranks: trained, or AutoTVM's transfer base loaded), which
//   with a transfer base is the first round, as in AutoTVM; until then
//   every pick is random, as AutoTVM's are before its first fit.
// - The chains start from random schedules of the task's sketches (AutoTVM:
//   random points of the knob space), and their steps are mutations.
// - The model is trained by the tuning loop after every round (all tasks
//   share it), not by the policy every plan_size records; the plan is still
//   refreshed every plan_size records.
#ifndef PRUNER_COMMON_SEARCH_ANNEALING_POLICY_H_
#define PRUNER_COMMON_SEARCH_ANNEALING_POLICY_H_

#include <cstdint>
#include <string>
#include <vector>

#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "common/model/cost_model.h"
#include "common/search/sample_states.h"
#include "common/search/simulated_annealing.h"
#include "common/search/sketch_search_policy.h"

namespace pruner {

// Defaults are AutoTVM's XGBTuner's.
struct AnnealingPolicyOptions {
  int plan_size = 64;
  double eps_greedy = 0.05;
  // 0: off (AutoTVM's default); else λ >= 1.
  double diversity_filter_ratio = 0;
  bool persistent = true;  // chains continue from where the last plan left them
  AnnealingParams annealing;
  SketchOptions sketch;

  // InvalidArgument naming the first field out of range.
  absl::Status Validate() const;
};

// What the last round did.
struct AnnealingRoundStats {
  bool planned = false;  // the round made a new plan
  int plan = 0;          // entries of the plan it walked
  AnnealingStats annealing;  // of the plan made this round
  int from_plan = 0;
  int from_random = 0;
  int skipped_known = 0;  // plan entries measured or proposed meanwhile
};

class AnnealingSearchPolicy : public SketchSearchPolicy {
 public:
  // `model` must outlive the policy; it is shared, not owned.
  AnnealingSearchPolicy(SearchTask task, CostModel* model, AnnealingPolicyOptions options,
                        uint64_t seed);

  std::string Name() const override { return "annealing"; }
  void Record(const std::vector<MeasuredState>& results) override;

  const AnnealingPolicyOptions& options() const { return options_; }
  const AnnealingRoundStats& last_round() const { return last_round_; }

 private:
  absl::Status CheckReady() const override;
  absl::StatusOr<std::vector<State>> SearchOneRound(int n) override;
  absl::Status MakePlan();
  // Up to n random states nobody proposed or recorded.
  SampledStates RandomUnmeasured(int n);

  CostModel* model_;
  AnnealingPolicyOptions options_;
  AnnealingChains chains_;
  std::vector<ScoredState> plan_;
  size_t plan_pos_ = 0;
  bool planned_once_ = false;
  int64_t records_since_plan_ = 0;
  AnnealingRoundStats last_round_;
};

}  // namespace pruner

#endif  // PRUNER_COMMON_SEARCH_ANNEALING_POLICY_H_
