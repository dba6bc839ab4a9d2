#include "common/search/sketch_search_policy.h"

#include <utility>

#include "absl/strings/str_cat.h"
#include "common/base/status_macros.h"
#include "common/search/task_sketches.h"
#include "common/sketch/seed_schedules.h"

namespace pruner {

SketchSearchPolicy::SketchSearchPolicy(SearchTask task, SketchOptions sketch_options,
                                       uint64_t seed)
    : task_(std::move(task)), rng_(seed), sketch_options_(std::move(sketch_options)) {}

absl::StatusOr<std::vector<State>> SketchSearchPolicy::Propose(int n) {
  ScopedSeconds total(&counters_.total_s);
  if (n < 1) return absl::InvalidArgumentError(absl::StrCat("Propose(", n, "): n must be >= 1"));
  PRUNER_RETURN_IF_ERROR(CheckReady());
  if (!have_sketches_) {
    ScopedSeconds timer(&counters_.sketch_s);
    PRUNER_ASSIGN_OR_RETURN(sketches_, TaskSketches(task_, sketch_options_));
    have_sketches_ = true;
  }
  std::vector<State> seeds = TakeSeedSchedules(n);
  const int rest = n - static_cast<int>(seeds.size());
  const int retries = RetriesOnEmpty();
  for (int attempt = 0; rest > 0 && attempt <= retries; ++attempt) {
    ++counters_.rounds;
    PRUNER_ASSIGN_OR_RETURN(std::vector<State> picks, SearchOneRound(rest));
    if (!picks.empty()) {
      for (State& s : picks) seeds.push_back(std::move(s));
      break;
    }
    OnEmptyRound();
  }
  counters_.proposed += static_cast<int64_t>(seeds.size());
  return seeds;
}

std::vector<State> SketchSearchPolicy::TakeSeedSchedules(int n) {
  std::vector<State> seeds;
  if (seeds_offered_ || !sketch_options_.seed_schedules) return seeds;
  seeds_offered_ = true;
  for (State& s : SeedSchedules(sketches_, task_.device)) {
    if (static_cast<int>(seeds.size()) >= n) break;
    const std::string str = s.ToStr();
    // Known already (a resumed job measured it): not proposed again.
    if (!measured_.AddProposed(s, str)) continue;
    seeds.push_back(std::move(s));
  }
  return seeds;
}

void SketchSearchPolicy::Record(const std::vector<MeasuredState>& results) {
  measured_.AddResults(results);
}

}  // namespace pruner
