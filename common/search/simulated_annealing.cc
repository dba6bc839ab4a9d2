#include "common/search/simulated_annealing.h"

#include <algorithm>
#include <cmath>
#include <unordered_map>
#include <utility>

#include "absl/strings/str_cat.h"
#include "common/sketch/mutate.h"

namespace pruner {

absl::StatusOr<std::vector<ScoredState>> SimulatedAnnealing(
    AnnealingChains* chains, int num, const AnnealingParams& params, const DeviceProfile& device,
    CostModel& model, const std::function<bool(const std::string&)>& excluded, Rng& rng,
    SearchCounters* counters, AnnealingStats* stats) {
  AnnealingStats local;
  if (stats == nullptr) stats = &local;
  *stats = AnnealingStats{};
  if (chains->points.empty() || chains->points.size() != chains->strs.size()) {
    return absl::InvalidArgumentError(absl::StrCat("simulated annealing: ", chains->points.size(),
                                                   " chains with ", chains->strs.size(),
                                                   " strings"));
  }
  BestStates best(static_cast<size_t>(std::max(num, 0)));
  std::unordered_map<std::string, double> score_of;  // every state scored in this call
  auto offer = [&](const State& state, const std::string& str) {
    const double score = score_of[str];
    if (!std::isfinite(score) || (excluded && excluded(str))) return false;
    return best.Offer(state, str, score);
  };

  if (absl::Status st = ScoreUnscored(chains->points, chains->strs, model, &score_of, counters);
      !st.ok()) {
    return st;
  }
  for (size_t i = 0; i < chains->points.size(); ++i) offer(chains->points[i], chains->strs[i]);

  const double cool = params.temperature / (params.n_iter + 1);
  double t = params.temperature;
  int last_modified = 0;
  for (int k = 0; k < params.n_iter && k < last_modified + params.early_stop; ++k) {
    // Every chain proposes one neighbour; those without one sit this step out.
    std::vector<State> proposals;
    std::vector<std::string> strs;
    std::vector<size_t> chain_of;
    {
      ScopedSeconds timer(&counters->mutate_s);
      for (size_t i = 0; i < chains->points.size(); ++i) {
        for (int attempt = 0; attempt < std::max(params.max_walk_tries, 1); ++attempt) {
          auto next = MutateRandom(chains->points[i], device, rng, params.annotation);
          if (!next.ok()) {
            ++counters->mutations_failed;
            continue;
          }
          ++counters->mutations_ok;
          strs.push_back(next->ToStr());
          proposals.push_back(*std::move(next));
          chain_of.push_back(i);
          break;
        }
      }
    }
    if (absl::Status st = ScoreUnscored(proposals, strs, model, &score_of, counters); !st.ok()) {
      return st;
    }
    stats->proposals += static_cast<int>(proposals.size());
    for (size_t p = 0; p < proposals.size(); ++p) {
      if (offer(proposals[p], strs[p])) {
        last_modified = k;
        ++stats->archive_changes;
      }
      const size_t i = chain_of[p];
      const double delta = score_of[strs[p]] - score_of[chains->strs[i]];
      // NaN (both -inf) is never accepted; an improvement always is.
      const double accept = std::exp(std::min(delta / (t + 1e-5), 1.0));
      if (rng.UniformReal() < accept) {
        chains->points[i] = std::move(proposals[p]);
        chains->strs[i] = std::move(strs[p]);
        ++stats->accepted;
      }
    }
    ++stats->steps;
    t -= cool;
  }

  std::vector<ScoredState> out = best.TakeSorted();
  out.erase(std::find_if(out.begin(), out.end(), [](const ScoredState& s) { return s.score < 0; }),
            out.end());
  return out;
}

}  // namespace pruner
