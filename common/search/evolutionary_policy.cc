#include "common/search/evolutionary_policy.h"

#include <algorithm>
#include <cmath>
#include <utility>

#include "absl/strings/str_cat.h"
#include "common/base/status_macros.h"
#include "common/search/evolutionary_search.h"
#include "common/search/sample_states.h"
#include "common/search/task_sketches.h"

namespace pruner {

EvolutionaryOptions EvolutionaryOptions::PrunerDefaults() {
  EvolutionaryOptions o;
  o.eps_greedy = 0.1;
  o.use_measured_ratio = 0.1;
  o.population = 1536;
  o.num_iters = 1;
  return o;
}

absl::Status EvolutionaryOptions::Validate() const {
  auto bad = [](const char* field, auto value) {
    return absl::InvalidArgumentError(
        absl::StrCat("evolutionary search option ", field, " out of range: ", value));
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
  if (num_iters < 0) return bad("num_iters", num_iters);
  if (!(mutation_prob >= 0 && mutation_prob <= 1)) return bad("mutation_prob", mutation_prob);
  return absl::OkStatus();
}

EvolutionarySearchPolicy::EvolutionarySearchPolicy(SearchTask task, CostModel* model,
                                                   EvolutionaryOptions options, uint64_t seed)
    : SketchSearchPolicy(std::move(task), options.sketch, seed),
      model_(model),
      options_(std::move(options)) {}

absl::Status EvolutionarySearchPolicy::CheckReady() const {
  if (model_ == nullptr) {
    return absl::FailedPreconditionError("the evolutionary policy needs a cost model");
  }
  return options_.Validate();
}

absl::StatusOr<std::vector<State>> EvolutionarySearchPolicy::SearchOneRound(int n) {
  last_round_ = EvolutionaryRoundStats{};
  last_round_.num_iters = options_.num_iters;

  // 1. Random initial population (no exclusion of measured states: they
  //    are kept out of the results by the GA and the picker instead).
  SampleRequest request;
  request.target = options_.sample_init_min_population;
  request.batch_size = options_.population;
  request.halve_on_stall = true;
  SampledStates init = SampleDistinctStates(sketches_, task_.device, options_.annotation, request,
                                            rng_, &counters_);
  last_round_.init_population = static_cast<int>(init.states.size());

  // 2. The best measured states join it.
  const size_t num_seeds = std::min(
      measured_.num_ok(),
      static_cast<size_t>(std::floor(options_.use_measured_ratio * options_.population)));
  std::vector<State> population = std::move(init.states);
  std::vector<std::string> strs = std::move(init.strs);
  for (State& s : measured_.BestMeasured(num_seeds)) {
    strs.push_back(s.ToStr());
    population.push_back(std::move(s));
  }
  last_round_.seeds = static_cast<int>(num_seeds);
  if (population.empty()) return std::vector<State>{};

  // 3. The eps-greedy share, drawn with replacement as Ansor does.
  const int num_random = NumRandomPicks(options_.eps_greedy, n);
  std::vector<ScoredState> random_pool;
  for (int i = 0; i < num_random * 3; ++i) {
    const size_t k = rng_.Below(population.size());
    random_pool.push_back(ScoredState{population[k], strs[k], 0});
  }
  last_round_.random_pool = static_cast<int>(random_pool.size());

  // 4. The model's best unmeasured states.
  EvolutionParams params;
  params.population = options_.population;
  params.num_iters = last_round_.num_iters;
  params.mutation_prob = options_.mutation_prob;
  params.annotation = options_.annotation;
  PRUNER_ASSIGN_OR_RETURN(auto best,
                          EvolutionarySearch(
      std::move(population), 2 * n, params, task_.device, *model_,
      [this](const std::string& s) { return measured_.Contains(s); }, rng_, &counters_));
  last_round_.best_found = static_cast<int>(best.size());

  // 5. Pick.
  return PickStatesWithEpsGreedy(best, random_pool, n, num_random, &measured_,
                                 &last_round_.picks);
}


}  // namespace pruner
