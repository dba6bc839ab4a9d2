#include "common/search/scored_states.h"

#include <algorithm>
#include <cmath>
#include <string_view>
#include <utility>

#include "absl/strings/str_cat.h"

namespace pruner {
namespace {

bool Worse(const ScoredState& a, const ScoredState& b) { return a.score > b.score; }

}  // namespace

bool BestStates::Offer(const State& state, const std::string& str, double score) {
  if (capacity_ == 0 || in_heap_.count(str) > 0) return false;
  if (heap_.size() < capacity_) {
    heap_.push_back(ScoredState{state, str, score});
    std::push_heap(heap_.begin(), heap_.end(), Worse);
    in_heap_.insert(str);
    return true;
  }
  if (!(score > heap_.front().score)) return false;
  std::pop_heap(heap_.begin(), heap_.end(), Worse);
  in_heap_.erase(heap_.back().str);
  heap_.back() = ScoredState{state, str, score};
  std::push_heap(heap_.begin(), heap_.end(), Worse);
  in_heap_.insert(str);
  return true;
}

std::vector<ScoredState> BestStates::TakeSorted() {
  std::sort(heap_.begin(), heap_.end(), [](const ScoredState& a, const ScoredState& b) {
    return a.score != b.score ? a.score > b.score : a.str < b.str;
  });
  in_heap_.clear();
  return std::move(heap_);
}

absl::Status ScoreUnscored(std::vector<State>& states, const std::vector<std::string>& strs,
                           CostModel& model, std::unordered_map<std::string, double>* score_of,
                           SearchCounters* counters) {
  std::vector<size_t> fresh_index;
  std::unordered_set<std::string_view> queued;
  for (size_t i = 0; i < states.size(); ++i) {
    if (score_of->count(strs[i]) == 0 && queued.insert(strs[i]).second) fresh_index.push_back(i);
  }
  if (fresh_index.empty()) return absl::OkStatus();
  // Copying states is most of a search loop's cost otherwise.
  std::vector<State> fresh;
  fresh.reserve(fresh_index.size());
  for (size_t i : fresh_index) fresh.push_back(std::move(states[i]));
  std::vector<double> scores;
  {
    ScopedSeconds timer(&counters->predict_s);
    scores = model.Predict(fresh);
  }
  for (size_t j = 0; j < fresh_index.size(); ++j) states[fresh_index[j]] = std::move(fresh[j]);
  ++counters->predict_calls;
  counters->predicted_states += static_cast<int64_t>(fresh.size());
  if (scores.size() != fresh.size()) {
    return absl::InternalError(absl::StrCat("cost model ", model.Name(), " returned ",
                                            scores.size(), " scores for ", fresh.size(),
                                            " states"));
  }
  for (size_t j = 0; j < fresh_index.size(); ++j) {
    const double s = scores[j];
    (*score_of)[strs[fresh_index[j]]] = std::isnan(s) ? -INFINITY : s;
  }
  return absl::OkStatus();
}

}  // namespace pruner
