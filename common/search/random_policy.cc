#include "common/search/random_policy.h"

#include <algorithm>
#include <utility>

#include "common/search/sample_states.h"

namespace pruner {

RandomSearchPolicy::RandomSearchPolicy(SearchTask task, uint64_t seed,
                                       RandomPolicyOptions options)
    : SketchSearchPolicy(std::move(task), options.sketch, seed), options_(std::move(options)) {}

absl::StatusOr<std::vector<State>> RandomSearchPolicy::SearchOneRound(int n) {
  SampleRequest request;
  request.target = n;
  request.batch_size = std::max(n, options_.min_batch);
  request.stop_at_target = true;
  request.max_fruitless_batches = options_.max_fruitless_batches;
  request.excluded = [this](const std::string& s) { return measured_.Contains(s); };
  SampledStates drawn = SampleDistinctStates(sketches_, task_.device, options_.annotation,
                                             request, rng_, &counters_);
  for (size_t i = 0; i < drawn.states.size(); ++i) {
    measured_.AddProposed(drawn.states[i], drawn.strs[i]);
  }
  return std::move(drawn.states);
}

}  // namespace pruner
