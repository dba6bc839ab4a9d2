// What the model-guided searches (Ansor's evolutionary search, AutoTVM's
// simulated annealing) share about scored states: the best-N archive and the
// one-Predict-per-batch scoring of states not scored before.
#ifndef PRUNER_COMMON_SEARCH_SCORED_STATES_H_
#define PRUNER_COMMON_SEARCH_SCORED_STATES_H_

#include <cstddef>
#include <string>
#include <unordered_map>
#include <unordered_set>
#include <vector>

#include "absl/status/status.h"
#include "common/model/cost_model.h"
#include "common/schedule/state.h"
#include "common/search/search_counters.h"

namespace pruner {

struct ScoredState {
  State state;
  std::string str;  // state.ToStr()
  double score = 0;
};

// The `capacity` best distinct states offered so far: a min-heap on score
// whose smallest entry is replaced by a better newcomer (Ansor's heap +
// in_heap; AutoTVM's SA heap).
class BestStates {
 public:
  explicit BestStates(size_t capacity) : capacity_(capacity) {}

  // True when the state entered the archive.
  bool Offer(const State& state, const std::string& str, double score);
  // Best first (equal scores: by str); leaves the archive empty.
  std::vector<ScoredState> TakeSorted();

 private:
  size_t capacity_;
  std::vector<ScoredState> heap_;  // the front is the worst entry
  std::unordered_set<std::string> in_heap_;
};

// Scores with ONE Predict call the distinct states of `states` (strs[i] =
// states[i].ToStr()) that `score_of` does not hold yet, and adds them to it
// (NaN becomes -inf: unscorable). The states are moved into the call and
// back, so they are unchanged afterwards. Internal error when the model
// answers with the wrong number of scores.
absl::Status ScoreUnscored(std::vector<State>& states, const std::vector<std::string>& strs,
                           CostModel& model, std::unordered_map<std::string, double>* score_of,
                           SearchCounters* counters);

}  // namespace pruner

#endif  // PRUNER_COMMON_SEARCH_SCORED_STATES_H_
