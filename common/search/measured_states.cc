#include "common/search/measured_states.h"

#include <algorithm>
#include <numeric>

#include "common/lower/bound_inference.h"

namespace pruner {

bool MeasuredStates::AddProposed(const State& state, const std::string& str) {
  proposed_strs_.emplace(state.ToSentence(), str);
  return strs_.insert(str).second;
}

std::string MeasuredStates::CanonicalStr(const State& state) const {
  auto it = proposed_strs_.find(state.ToSentence());
  if (it != proposed_strs_.end()) return it->second;
  // Bound inference is what sampling and mutation end with; without it
  // attached stages print their unbounded extents.
  auto inferred = InferBound(state);
  return inferred.ok() ? inferred->ToStr() : state.ToStr();
}

void MeasuredStates::AddResults(const std::vector<MeasuredState>& results) {
  for (const MeasuredState& r : results) {
    std::string str = CanonicalStr(r.state);
    strs_.insert(str);
    if (!r.ok || !(r.mean_cost_s > 0)) continue;
    const double throughput = 1.0 / r.mean_cost_s;
    auto [it, inserted] = ok_index_.emplace(str, ok_.size());
    if (inserted) {
      // Seeds are mutated, and mutation replays the sentence, but the
      // cost model may read the loop extents: keep the inferred form.
      // States this object proposed are in that form already.
      if (proposed_strs_.count(r.state.ToSentence()) > 0) {
        ok_.push_back(OkState{r.state, throughput});
        continue;
      }
      auto inferred = InferBound(r.state);
      ok_.push_back(OkState{inferred.ok() ? *std::move(inferred) : r.state, throughput});
    } else {
      ok_[it->second].throughput = std::max(ok_[it->second].throughput, throughput);
    }
  }
}

std::vector<State> MeasuredStates::BestMeasured(size_t k) const {
  std::vector<size_t> order(ok_.size());
  std::iota(order.begin(), order.end(), 0);
  k = std::min(k, order.size());
  std::partial_sort(order.begin(), order.begin() + k, order.end(), [&](size_t a, size_t b) {
    if (ok_[a].throughput != ok_[b].throughput) return ok_[a].throughput > ok_[b].throughput;
    return a < b;
  });
  std::vector<State> best;
  best.reserve(k);
  for (size_t i = 0; i < k; ++i) best.push_back(ok_[order[i]].state);
  return best;
}

}  // namespace pruner
