#include "common/search/evolutionary_search.h"

#include <algorithm>
#include <cmath>
#include <unordered_map>

#include "common/sketch/mutate.h"
#include "common/search/roulette.h"

namespace pruner {

absl::StatusOr<std::vector<ScoredState>> EvolutionarySearch(
    std::vector<State> init_population, int out_size, const EvolutionParams& params,
    const DeviceProfile& device, CostModel& model,
    const std::function<bool(const std::string&)>& excluded, Rng& rng, SearchCounters* counters) {
  BestStates best(static_cast<size_t>(std::max(out_size, 0)));
  std::unordered_map<std::string, double> score_of;  // every state scored in this call
  std::vector<State> pop = std::move(init_population);

  for (int k = 0; !pop.empty(); ++k) {
    std::vector<std::string> strs;
    strs.reserve(pop.size());
    for (const State& s : pop) strs.push_back(s.ToStr());

    // One Predict per generation, for the distinct states not scored yet.
    if (absl::Status st = ScoreUnscored(pop, strs, model, &score_of, counters); !st.ok()) {
      return st;
    }

    std::vector<double> pop_scores(pop.size());
    for (size_t i = 0; i < pop.size(); ++i) {
      pop_scores[i] = score_of[strs[i]];
      if (!std::isfinite(pop_scores[i])) continue;
      if (excluded && excluded(strs[i])) continue;
      best.Offer(pop[i], strs[i], pop_scores[i]);
    }
    if (k >= params.num_iters) break;

    ScopedSeconds timer(&counters->mutate_s);
    const Roulette wheel(pop_scores);
    std::vector<State> next;
    next.reserve(static_cast<size_t>(params.population));
    const int64_t max_draws =
        static_cast<int64_t>(params.population) * std::max(params.max_draw_factor, 1);
    for (int64_t draw = 0;
         static_cast<int>(next.size()) < params.population && draw < max_draws; ++draw) {
      const State& parent = pop[wheel.Draw(rng)];
      if (rng.UniformReal() >= params.mutation_prob) {
        next.push_back(parent);
        continue;
      }
      auto child = MutateRandom(parent, device, rng, params.annotation);
      if (child.ok()) {
        ++counters->mutations_ok;
        next.push_back(*std::move(child));
      } else {
        ++counters->mutations_failed;
      }
    }
    pop = std::move(next);
  }
  return best.TakeSorted();
}

}  // namespace pruner
