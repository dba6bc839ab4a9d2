// Ansor's SketchPolicy (ansor.md §3.1-3.3) as a SearchPolicy: each Propose
// is one round of ContinueSearchOneRound without the measurement:
//
//   1. initial population: whole batches of `population` random schedules
//      from the task's sketches until >= sample_init_min_population distinct
//      valid ones (target halved after 5 fruitless batches);
//   2. plus the best min(#measured ok, use_measured_ratio * population)
//      measured states, ranked by throughput;
//   3. the random pool: floor(eps_greedy * n) * 3 states drawn uniformly,
//      with replacement, from that population;
//   4. EvolutionarySearch (evolutionary_search.h) for the 2n best unmeasured
//      states by the cost model;
//   5. PickStatesWithEpsGreedy (eps_greedy.h): n - floor(eps * n) from the
//      best list, the rest from the random pool, skipping measured states.
//      Picks join the measured set at once (failures are never retried).
//   A round that finds nothing is retried retry_on_empty times; then the
//   policy answers empty (the task's space is exhausted for it).
//
// The cost model is shared by every task of a job and is not owned; the
// tuning loop trains it. Its Predict is called once per generation, with
// the distinct states of that generation not yet scored in this round.
#ifndef PRUNER_COMMON_SEARCH_EVOLUTIONARY_POLICY_H_
#define PRUNER_COMMON_SEARCH_EVOLUTIONARY_POLICY_H_

#include <cstdint>
#include <string>
#include <vector>

#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "common/model/cost_model.h"
#include "common/sketch/annotate.h"
#include "common/sketch/random.h"
#include "common/sketch/sketch.h"
#include "common/search/eps_greedy.h"
#include "common/search/measured_states.h"
#include "common/search/sketch_search_policy.h"

namespace pruner {

// Defaults are Ansor's (search_policy.py DEFAULT_PARAMS).
struct EvolutionaryOptions {
  double eps_greedy = 0.05;
  int retry_on_empty = 1;  // retry_search_one_round_on_empty
  int sample_init_min_population = 50;
  double use_measured_ratio = 0.2;  // sample_init_use_measured_ratio
  int population = 2048;            // evolutionary_search_population
  // GA generations. Ansor's default is 4, and 2 when the scores are random
  // (the strategy picks: StrategySpec::DefaultGenerations).
  int num_iters = 4;
  double mutation_prob = 0.85;
  AnnotationOptions annotation;
  SketchOptions sketch;

  static EvolutionaryOptions Ansor() { return {}; }
  // Pruner's changed defaults (eps 0.1, measured ratio 0.1, population
  // 1536, 1 generation). Pruner's potential-space pre-stage is not part of
  // this policy.
  static EvolutionaryOptions PrunerDefaults();

  // InvalidArgument naming the first field out of range.
  absl::Status Validate() const;
};

// What the last round did (for tests, logs and benchmarks).
struct EvolutionaryRoundStats {
  int init_population = 0;  // distinct random states sampled
  int seeds = 0;            // measured states added to the population
  int random_pool = 0;      // states drawn for the eps-greedy share
  int best_found = 0;       // size of the GA's best list (<= 2n)
  int num_iters = 0;        // generations used
  PickStats picks;
};

class EvolutionarySearchPolicy : public SketchSearchPolicy {
 public:
  // `model` must outlive the policy; it is shared, not owned.
  EvolutionarySearchPolicy(SearchTask task, CostModel* model, EvolutionaryOptions options,
                           uint64_t seed);

  std::string Name() const override { return "evolutionary"; }

  const EvolutionaryOptions& options() const { return options_; }
  const EvolutionaryRoundStats& last_round() const { return last_round_; }

 private:
  absl::Status CheckReady() const override;
  int RetriesOnEmpty() const override { return options_.retry_on_empty; }
  absl::StatusOr<std::vector<State>> SearchOneRound(int n) override;

  CostModel* model_;
  EvolutionaryOptions options_;
  EvolutionaryRoundStats last_round_;
};

}  // namespace pruner

#endif  // PRUNER_COMMON_SEARCH_EVOLUTIONARY_POLICY_H_
