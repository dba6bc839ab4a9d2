// A policy's memory of what it has already handed out or been told about
// (ansor.md §3.2: measured_states_set_ / _vector_ / _throughputs_).
//
// Every state is known by its State::ToStr, the loop-nest print that two
// step lists giving the same nest share, so a schedule is never proposed
// twice however it was reached. States enter when they are proposed, before
// measurement, so failed programs are never retried.
//
// The states measured ok are also kept with their throughput (1 / mean cost):
// the best of them seed the next population.
#ifndef PRUNER_COMMON_SEARCH_MEASURED_STATES_H_
#define PRUNER_COMMON_SEARCH_MEASURED_STATES_H_

#include <cstddef>
#include <string>
#include <unordered_map>
#include <unordered_set>
#include <vector>

#include "common/model/cost_model.h"
#include "common/schedule/state.h"

namespace pruner {

class MeasuredStates {
 public:
  bool Contains(const std::string& str) const { return strs_.count(str) > 0; }
  size_t size() const { return strs_.size(); }

  // Marks a state as handed out. `str` must be state.ToStr() of the
  // bound-inferred state (what sampling and mutation return). Returns false
  // when it was already known.
  bool AddProposed(const State& state, const std::string& str);

  // Adds measured results: they join the set, and the ok ones (mean cost
  // > 0) join the seeds. The same schedule recorded twice keeps its best
  // throughput.
  void AddResults(const std::vector<MeasuredState>& results);

  // The canonical ToStr of a state handed to AddResults: states this object
  // proposed are found by their sentence; others (records restored from the
  // database, replayed without bound inference) are bound-inferred first so
  // that they print exactly as the sampled form does.
  std::string CanonicalStr(const State& state) const;

  // The `k` best ok states by throughput, best first (ties: recorded first).
  std::vector<State> BestMeasured(size_t k) const;
  size_t num_ok() const { return ok_.size(); }

 private:
  struct OkState {
    State state;
    double throughput = 0;
  };
  std::unordered_set<std::string> strs_;
  // Sentence -> ToStr of every proposed state, so that Record need not
  // re-infer bounds for the states it gets back from the loop.
  std::unordered_map<std::string, std::string> proposed_strs_;
  std::vector<OkState> ok_;
  std::unordered_map<std::string, size_t> ok_index_;  // ToStr -> index in ok_
};

}  // namespace pruner

#endif  // PRUNER_COMMON_SEARCH_MEASURED_STATES_H_
