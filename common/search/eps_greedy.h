// Ansor's PickStatesWithEpsGreedy (ansor.md §3.2 step 4): the states one
// round hands to measurement. The first n - num_random picks come from the
// model's best list (falling back to the random list when it runs out), the
// rest from the random list (falling back to the best list). States already
// measured or proposed are skipped; picked states join that set at once, so
// a failed program is never retried.
#ifndef PRUNER_COMMON_SEARCH_EPS_GREEDY_H_
#define PRUNER_COMMON_SEARCH_EPS_GREEDY_H_

#include <vector>

#include "common/schedule/state.h"
#include "common/search/evolutionary_search.h"
#include "common/search/measured_states.h"
#include "common/search/search_counters.h"

namespace pruner {

// floor(eps_greedy * n), as Ansor computes it.
int NumRandomPicks(double eps_greedy, int n);

std::vector<State> PickStatesWithEpsGreedy(const std::vector<ScoredState>& best,
                                           const std::vector<ScoredState>& random, int n,
                                           int num_random, MeasuredStates* measured,
                                           PickStats* stats);

}  // namespace pruner

#endif  // PRUNER_COMMON_SEARCH_EPS_GREEDY_H_
