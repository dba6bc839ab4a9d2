#include "common/search/evolutionary_search.h"

#include <algorithm>
#include <cmath>
#include <string_view>
#include <unordered_map>
#include <unordered_set>

#include "absl/strings/str_cat.h"
#include "common/sketch/mutate.h"
#include "common/search/roulette.h"

namespace pruner {
namespace {

// The out_size best distinct states seen so far: a min-heap on score whose
// smallest entry is replaced by a better newcomer (Ansor's heap + in_heap).
class BestStates {
 public:
  explicit BestStates(size_t capacity) : capacity_(capacity) {}

  void Offer(const State& state, const std::string& str, double score) {
    if (capacity_ == 0 || in_heap_.count(str) > 0) return;
    if (heap_.size() < capacity_) {
      heap_.push_back(ScoredState{state, str, score});
      std::push_heap(heap_.begin(), heap_.end(), Worse);
      in_heap_.insert(str);
    } else if (score > heap_.front().score) {
      std::pop_heap(heap_.begin(), heap_.end(), Worse);
      in_heap_.erase(heap_.back().str);
      heap_.back() = ScoredState{state, str, score};
      std::push_heap(heap_.begin(), heap_.end(), Worse);
      in_heap_.insert(str);
    }
  }

  std::vector<ScoredState> TakeSorted() {
    std::sort(heap_.begin(), heap_.end(), [](const ScoredState& a, const ScoredState& b) {
      return a.score != b.score ? a.score > b.score : a.str < b.str;
    });
    return std::move(heap_);
  }

 private:
  // Heap order: the front is the worst entry.
  static bool Worse(const ScoredState& a, const ScoredState& b) { return a.score > b.score; }

  size_t capacity_;
  std::vector<ScoredState> heap_;
  std::unordered_set<std::string> in_heap_;
};

}  // namespace

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
    // They are moved out of the population for the call and back after it
    // (copying states is most of this loop's cost otherwise).
    std::vector<size_t> fresh_index;
    std::unordered_set<std::string_view> queued;
    for (size_t i = 0; i < pop.size(); ++i) {
      if (score_of.count(strs[i]) == 0 && queued.insert(strs[i]).second) fresh_index.push_back(i);
    }
    if (!fresh_index.empty()) {
      std::vector<State> fresh;
      fresh.reserve(fresh_index.size());
      for (size_t i : fresh_index) fresh.push_back(std::move(pop[i]));
      std::vector<double> scores;
      {
        ScopedSeconds timer(&counters->predict_s);
        scores = model.Predict(fresh);
      }
      for (size_t j = 0; j < fresh_index.size(); ++j) pop[fresh_index[j]] = std::move(fresh[j]);
      ++counters->predict_calls;
      counters->predicted_states += static_cast<int64_t>(fresh.size());
      if (scores.size() != fresh.size()) {
        return absl::InternalError(absl::StrCat("cost model ", model.Name(), " returned ",
                                                scores.size(), " scores for ", fresh.size(),
                                                " states"));
      }
      for (size_t j = 0; j < fresh_index.size(); ++j) {
        const double s = scores[j];
        score_of[strs[fresh_index[j]]] = std::isnan(s) ? -INFINITY : s;
      }
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
