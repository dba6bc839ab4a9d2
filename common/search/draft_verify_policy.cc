#include "common/search/draft_verify_policy.h"

#include <algorithm>
#include <chrono>
#include <cmath>
#include <unordered_set>
#include <utility>

#include "absl/strings/str_cat.h"
#include "common/base/clock.h"
#include "common/base/status_macros.h"
#include "common/search/sample_states.h"
#include "common/search/task_sketches.h"

namespace pruner {
namespace {

// The verifier's best list behind the first `num_drafted` draft states not
// yet measured or proposed (each state once): a cold task's picks.
std::vector<ScoredState> LeadWithDrafts(const std::vector<ScoredState>& draft, int num_drafted,
                                        std::vector<ScoredState> verified,
                                        const MeasuredStates& measured) {
  std::vector<ScoredState> out;
  out.reserve(num_drafted + verified.size());
  std::unordered_set<std::string> taken;
  for (const ScoredState& s : draft) {
    if (static_cast<int>(out.size()) == num_drafted) break;
    if (measured.Contains(s.str) || !taken.insert(s.str).second) continue;
    out.push_back(s);
  }
  for (ScoredState& s : verified) {
    if (taken.insert(s.str).second) out.push_back(std::move(s));
  }
  return out;
}

}  // namespace

absl::Status DraftVerifyOptions::Validate() const {
  auto bad = [](const char* field, auto value) {
    return absl::InvalidArgumentError(
        absl::StrCat("draft-verify search option ", field, " out of range: ", value));
  };
  if (!(eps_greedy >= 0 && eps_greedy <= 1)) return bad("eps_greedy", eps_greedy);
  if (retry_on_empty < 0) return bad("retry_on_empty", retry_on_empty);
  if (sample_init_min_population < 1) {
    return bad("sample_init_min_population", sample_init_min_population);
  }
  if (!(use_measured_ratio >= 0 && use_measured_ratio <= 1)) {
    return bad("use_measured_ratio", use_measured_ratio);
  }
  if (population < 1) return bad("population", population);
  if (draft_size < 1) return bad("draft_size", draft_size);
  if (draft_num_iters < 0) return bad("draft_num_iters", draft_num_iters);
  if (draft_every < 1) return bad("draft_every", draft_every);
  if (verify_num_iters < 0) return bad("verify_num_iters", verify_num_iters);
  if (!(mutation_prob >= 0 && mutation_prob <= 1)) return bad("mutation_prob", mutation_prob);
  if (!(cold_task_draft_share >= 0 && cold_task_draft_share <= 1)) {
    return bad("cold_task_draft_share", cold_task_draft_share);
  }
  return absl::OkStatus();
}

DraftVerifySearchPolicy::DraftVerifySearchPolicy(SearchTask task, CostModel* drafter,
                                                 CostModel* verifier, DraftVerifyOptions options,
                                                 uint64_t seed)
    : SketchSearchPolicy(std::move(task), options.sketch, seed),
      drafter_(drafter),
      verifier_(verifier),
      options_(std::move(options)) {}

DraftVerifySearchPolicy::DraftVerifySearchPolicy(SearchTask task,
                                                 std::unique_ptr<CostModel> drafter,
                                                 CostModel* verifier, DraftVerifyOptions options,
                                                 uint64_t seed)
    : DraftVerifySearchPolicy(std::move(task), drafter.get(), verifier, std::move(options), seed) {
  owned_drafter_ = std::move(drafter);
}

absl::Status DraftVerifySearchPolicy::CheckReady() const {
  if (drafter_ == nullptr || verifier_ == nullptr) {
    return absl::FailedPreconditionError("the draft-verify policy needs a drafter and a verifier");
  }
  return options_.Validate();
}

absl::StatusOr<std::vector<State>> DraftVerifySearchPolicy::SearchOneRound(int n) {
  last_round_ = DraftVerifyRoundStats{};
  auto excluded = [this](const std::string& s) { return measured_.Contains(s); };

  // 1. Random sample.
  SampleRequest request;
  request.target = options_.sample_init_min_population;
  request.batch_size = options_.population;
  request.halve_on_stall = true;
  SampledStates sample = SampleDistinctStates(sketches_, task_.device, options_.annotation,
                                              request, rng_, &counters_);
  last_round_.sample = static_cast<int>(sample.states.size());

  // 2. Draft: the drafter's best distinct unmeasured states.
  const bool redraft = draft_.empty() || rounds_ % options_.draft_every == 0;
  ++rounds_;
  if (redraft && !sample.states.empty()) {
    const auto t0 = std::chrono::steady_clock::now();
    EvolutionParams params;
    params.population = options_.population;
    params.num_iters = options_.draft_num_iters;
    params.mutation_prob = options_.mutation_prob;
    params.annotation = options_.annotation;
    SearchCounters draft_counters;
    auto drafted = EvolutionarySearch(sample.states, options_.draft_size, params, task_.device,
                                      *drafter_, excluded, rng_, &draft_counters);
    if (!drafted.ok()) return drafted.status();
    draft_.clear();
    draft_ = std::move(*drafted);
    last_round_.drafted = true;
    last_round_.drafter_scored = draft_counters.predicted_states;
    counters_ += draft_counters;
    last_round_.draft_s = SecondsSince(t0);
  }
  last_round_.draft = static_cast<int>(draft_.size());

  // 3. The verify population: draft, sample, best measured.
  std::vector<State> population;
  population.reserve(draft_.size() + sample.states.size());
  for (const ScoredState& s : draft_) population.push_back(s.state);
  population.insert(population.end(), sample.states.begin(), sample.states.end());
  const size_t num_seeds = std::min(
      measured_.num_ok(),
      static_cast<size_t>(std::floor(options_.use_measured_ratio * options_.population)));
  for (State& s : measured_.BestMeasured(num_seeds)) population.push_back(std::move(s));
  last_round_.seeds = static_cast<int>(num_seeds);
  if (population.empty()) return std::vector<State>{};

  // 4. The eps-greedy share, from the random sample (Ansor draws it from its
  //    initial population; here the sample plays that part).
  const int num_random = NumRandomPicks(options_.eps_greedy, n);
  std::vector<ScoredState> random_pool;
  if (!sample.states.empty()) {
    for (int i = 0; i < num_random * 3; ++i) {
      const size_t k = rng_.Below(sample.states.size());
      random_pool.push_back(ScoredState{sample.states[k], sample.strs[k], 0});
    }
  }
  last_round_.random_pool = static_cast<int>(random_pool.size());

  // 5. Verify: the verifier's best unmeasured states. A task nothing of
  //    which was measured yet takes cold_task_draft_share of its picks
  //    from the draft's best instead.
  const bool cold = measured_.num_ok() == 0 && !draft_.empty();
  const int num_drafted =
      cold ? static_cast<int>(std::lround(options_.cold_task_draft_share * (n - num_random))) : 0;
  if (cold && num_drafted >= n - num_random) {
    last_round_.best_found = static_cast<int>(draft_.size());
    return PickStatesWithEpsGreedy(draft_, random_pool, n, num_random, &measured_,
                                   &last_round_.picks);
  }
  const auto t0 = std::chrono::steady_clock::now();
  EvolutionParams params;
  params.population = options_.population;
  params.num_iters = options_.verify_num_iters;
  params.mutation_prob = options_.mutation_prob;
  params.annotation = options_.annotation;
  SearchCounters verify_counters;
  PRUNER_ASSIGN_OR_RETURN(auto best,
                          EvolutionarySearch(std::move(population), 2 * n, params, task_.device, *verifier_,
                                 excluded, rng_, &verify_counters));
  last_round_.verifier_scored = verify_counters.predicted_states;
  counters_ += verify_counters;
  last_round_.verify_s = SecondsSince(t0);
  last_round_.best_found = static_cast<int>(best.size());
  drafter_scored_ += last_round_.drafter_scored;
  verifier_scored_ += last_round_.verifier_scored;

  // 6. Pick (a cold task's list leads with its drafted share).
  if (num_drafted > 0) best = LeadWithDrafts(draft_, num_drafted, std::move(best), measured_);
  return PickStatesWithEpsGreedy(best, random_pool, n, num_random, &measured_,
                                 &last_round_.picks);
}


}  // namespace pruner
