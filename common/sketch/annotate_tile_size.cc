#include "common/sketch/annotate_tile_size.h"

#include <map>
#include <mutex>
#include <optional>
#include <tuple>

#include "absl/strings/str_cat.h"

namespace pruner {
namespace {

void Enumerate(int64_t remaining, int position, int num_lengths, int64_t max_innermost,
               std::vector<int64_t>* current, std::vector<std::vector<int64_t>>* out) {
  if (position == num_lengths) {
    out->push_back(*current);
    return;
  }
  const bool innermost = position == num_lengths - 1;
  for (int64_t d : Divisors(remaining)) {
    if (innermost && d > max_innermost) break;
    (*current)[position] = d;
    Enumerate(remaining / d, position + 1, num_lengths, max_innermost, current, out);
  }
}

}  // namespace

std::vector<int64_t> Divisors(int64_t n) {
  std::vector<int64_t> small;
  std::vector<int64_t> large;
  for (int64_t d = 1; d * d <= n; ++d) {
    if (n % d != 0) continue;
    small.push_back(d);
    if (d != n / d) large.push_back(n / d);
  }
  small.insert(small.end(), large.rbegin(), large.rend());
  return small;
}

const std::vector<std::vector<int64_t>>& Factorizations(int64_t extent, int num_lengths,
                                                        int64_t max_innermost) {
  static std::mutex mu;
  static auto* cache =
      new std::map<std::tuple<int64_t, int, int64_t>, std::vector<std::vector<int64_t>>>();
  std::lock_guard<std::mutex> lock(mu);
  auto key = std::make_tuple(extent, num_lengths, max_innermost);
  auto it = cache->find(key);
  if (it != cache->end()) return it->second;
  std::vector<std::vector<int64_t>> schemes;
  std::vector<int64_t> current(num_lengths, 1);
  Enumerate(extent, 0, num_lengths, max_innermost, &current, &schemes);
  return cache->emplace(key, std::move(schemes)).first->second;
}

absl::StatusOr<State> FillTileSizes(std::shared_ptr<const ComputeDag> dag,
                                    const std::vector<Step>& steps, int64_t max_innermost,
                                    Rng& rng) {
  State state = State::Initial(std::move(dag));
  for (size_t i = 0; i < steps.size(); ++i) {
    Step step = steps[i];
    if (step.kind == StepKind::kSplit && !step.IsDefined()) {
      if (step.stage < 0 || step.stage >= state.num_stages() || step.iter < 0 ||
          step.iter >= static_cast<int>(state.stage(step.stage).iters.size())) {
        return absl::InvalidArgumentError(
            absl::StrCat("step ", i, " '", StepToString(step), "' names no loop"));
      }
      const int64_t extent = state.stage(step.stage).iter_extent(step.iter);
      if (extent < 1) {
        return absl::FailedPreconditionError(absl::StrCat(
            "step ", i, " '", StepToString(step), "' splits a loop of unknown extent"));
      }
      const auto& schemes =
          Factorizations(extent, static_cast<int>(step.lengths.size()), max_innermost);
      // Length 1 everywhere always qualifies, so schemes is never empty.
      const std::vector<int64_t>& chosen = rng.Choice(schemes);
      step.extent = extent;
      for (size_t k = 0; k < chosen.size(); ++k) step.lengths[k] = chosen[k];
    }
    if (absl::Status st = state.Apply(step); !st.ok()) {
      return absl::InvalidArgumentError(absl::StrCat("step ", i, ": ", st.message()));
    }
  }
  return state;
}

}  // namespace pruner
