#include "common/search/annealing_policy.h"

#include <algorithm>
#include <cmath>
#include <utility>

#include "absl/strings/str_cat.h"
#include "common/base/status_macros.h"
#include "common/search/diversity_pick.h"

namespace pruner {

absl::Status AnnealingPolicyOptions::Validate() const {
  auto bad = [](const char* field, auto value) {
    return absl::InvalidArgumentError(
        absl::StrCat("annealing search option ", field, " out of range: ", value));
  };
  if (plan_size < 1) return bad("plan_size", plan_size);
  if (!(eps_greedy >= 0 && eps_greedy <= 1)) return bad("eps_greedy", eps_greedy);
  if (!(diversity_filter_ratio == 0 || diversity_filter_ratio >= 1)) {
    return bad("diversity_filter_ratio", diversity_filter_ratio);
  }
  if (annealing.parallel_size < 1) return bad("parallel_size", annealing.parallel_size);
  if (annealing.n_iter < 0) return bad("n_iter", annealing.n_iter);
  if (annealing.early_stop < 1) return bad("early_stop", annealing.early_stop);
  if (!(annealing.temperature >= 0)) return bad("temperature", annealing.temperature);
  return absl::OkStatus();
}

AnnealingSearchPolicy::AnnealingSearchPolicy(SearchTask task, CostModel* model,
                                             AnnealingPolicyOptions options, uint64_t seed)
    : SketchSearchPolicy(std::move(task), options.sketch, seed),
      model_(model),
      options_(std::move(options)) {}

absl::Status AnnealingSearchPolicy::CheckReady() const {
  if (model_ == nullptr) {
    return absl::FailedPreconditionError("the annealing policy needs a cost model");
  }
  return options_.Validate();
}

void AnnealingSearchPolicy::Record(const std::vector<MeasuredState>& results) {
  SketchSearchPolicy::Record(results);
  records_since_plan_ += static_cast<int64_t>(results.size());
}

SampledStates AnnealingSearchPolicy::RandomUnmeasured(int n) {
  SampleRequest request;
  request.target = n;
  request.batch_size = std::max(n, 128);
  request.stop_at_target = true;
  request.excluded = [this](const std::string& s) { return measured_.Contains(s); };
  return SampleDistinctStates(sketches_, task_.device, options_.annealing.annotation, request,
                              rng_, &counters_);
}

absl::Status AnnealingSearchPolicy::MakePlan() {
  if (!options_.persistent || chains_.points.empty()) {
    // Chains may repeat a state; AutoTVM's sample_ints draws distinct
    // points, and so does this.
    SampleRequest request;
    request.target = options_.annealing.parallel_size;
    request.batch_size = options_.annealing.parallel_size;
    request.stop_at_target = true;
    SampledStates start = SampleDistinctStates(sketches_, task_.device,
                                               options_.annealing.annotation, request, rng_,
                                               &counters_);
    chains_.points = std::move(start.states);
    chains_.strs = std::move(start.strs);
  }
  plan_.clear();
  plan_pos_ = 0;
  planned_once_ = true;
  records_since_plan_ = 0;
  last_round_.planned = true;
  if (chains_.points.empty()) return absl::OkStatus();  // no valid schedule: random picks fail too
  const int wanted =
      options_.diversity_filter_ratio >= 1
          ? static_cast<int>(std::ceil(options_.diversity_filter_ratio * options_.plan_size))
          : options_.plan_size;
  PRUNER_ASSIGN_OR_RETURN(
      std::vector<ScoredState> found,
      SimulatedAnnealing(
          &chains_, wanted, options_.annealing, task_.device, *model_,
          [this](const std::string& s) { return measured_.Contains(s); }, rng_, &counters_,
          &last_round_.annealing));
  if (options_.diversity_filter_ratio >= 1) {
    std::vector<std::vector<std::string>> knobs;
    knobs.reserve(found.size());
    for (const ScoredState& s : found) knobs.push_back(StateKnobs(s.state));
    for (int i : DiversityPick(knobs, options_.plan_size)) plan_.push_back(std::move(found[i]));
  } else {
    plan_ = std::move(found);
  }
  return absl::OkStatus();
}

absl::StatusOr<std::vector<State>> AnnealingSearchPolicy::SearchOneRound(int n) {
  last_round_ = AnnealingRoundStats{};
  // A model still answering warm-up scores plans nothing (all picks random).
  if (model_->Ranks() && (!planned_once_ || records_since_plan_ >= options_.plan_size)) {
    PRUNER_RETURN_IF_ERROR(MakePlan());
  }
  last_round_.plan = static_cast<int>(plan_.size());

  // The plan's entries, until the ε-greedy tail (AutoTVM's next_batch).
  const int64_t random_from = static_cast<int64_t>(plan_.size()) -
                              static_cast<int64_t>(options_.eps_greedy * options_.plan_size);
  std::vector<State> picks;
  while (static_cast<int>(picks.size()) < n) {
    while (plan_pos_ < plan_.size() && measured_.Contains(plan_[plan_pos_].str)) {
      ++plan_pos_;
      ++last_round_.skipped_known;
    }
    if (static_cast<int64_t>(plan_pos_) >= random_from) break;
    ScoredState& next = plan_[plan_pos_++];
    measured_.AddProposed(next.state, next.str);
    picks.push_back(std::move(next.state));
    ++last_round_.from_plan;
  }
  // The rest at random; the walk stays past the tail until the next plan.
  if (static_cast<int>(picks.size()) < n) {
    SampledStates drawn = RandomUnmeasured(n - static_cast<int>(picks.size()));
    for (size_t i = 0; i < drawn.states.size(); ++i) {
      measured_.AddProposed(drawn.states[i], drawn.strs[i]);
      picks.push_back(std::move(drawn.states[i]));
      ++last_round_.from_random;
    }
  }
  return picks;
}

}  // namespace pruner
