#include "common/search/eps_greedy.h"

#include <cmath>

namespace pruner {

int NumRandomPicks(double eps_greedy, int n) {
  return static_cast<int>(std::floor(eps_greedy * n));
}

std::vector<State> PickStatesWithEpsGreedy(const std::vector<ScoredState>& best,
                                           const std::vector<ScoredState>& random, int n,
                                           int num_random, MeasuredStates* measured,
                                           PickStats* stats) {
  const int num_good = n - num_random;
  std::vector<State> picks;
  size_t next_best = 0, next_random = 0;
  while (static_cast<int>(picks.size()) < n) {
    const bool has_best = next_best < best.size();
    const bool has_random = next_random < random.size();
    if (!has_best && !has_random) break;
    const bool want_best = static_cast<int>(picks.size()) < num_good;
    const bool take_best = want_best ? has_best : !has_random;
    const ScoredState& c = take_best ? best[next_best++] : random[next_random++];
    if (!measured->AddProposed(c.state, c.str)) {
      ++stats->skipped_known;
      continue;
    }
    ++(take_best ? stats->from_best : stats->from_random);
    picks.push_back(c.state);
  }
  return picks;
}

}  // namespace pruner
