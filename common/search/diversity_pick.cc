#include "common/search/diversity_pick.h"

#include <algorithm>
#include <set>
#include <utility>

#include "common/schedule/step.h"

namespace pruner {

std::vector<std::string> StateKnobs(const State& state) {
  std::vector<std::string> out;
  out.reserve(state.steps().size());
  for (const Step& step : state.steps()) out.push_back(StepToString(step));
  return out;
}

std::vector<int> DiversityPick(const std::vector<std::vector<std::string>>& knobs, int k) {
  const int n = static_cast<int>(knobs.size());
  std::set<std::pair<size_t, std::string>> covered;  // (knob index, value)
  std::vector<bool> taken(n, false);
  std::vector<int> picks;
  while (static_cast<int>(picks.size()) < std::min(k, n)) {
    int best = -1, best_gain = -1;
    for (int c = 0; c < n; ++c) {
      if (taken[c]) continue;
      int gain = 0;
      for (size_t j = 0; j < knobs[c].size(); ++j) gain += covered.count({j, knobs[c][j]}) == 0;
      if (gain > best_gain) {  // strictly larger: ties keep the earlier candidate
        best = c;
        best_gain = gain;
      }
    }
    taken[best] = true;
    picks.push_back(best);
    for (size_t j = 0; j < knobs[best].size(); ++j) covered.insert({j, knobs[best][j]});
  }
  return picks;
}

}  // namespace pruner
