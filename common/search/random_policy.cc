#include "common/search/random_policy.h"

#include <algorithm>
#include <utility>

#include "absl/strings/str_cat.h"
#include "common/base/status_macros.h"
#include "common/search/sample_states.h"
#include "common/search/task_sketches.h"

namespace pruner {

RandomSearchPolicy::RandomSearchPolicy(SearchTask task, uint64_t seed,
                                       RandomPolicyOptions options)
    : task_(std::move(task)), options_(std::move(options)), rng_(seed) {}

absl::StatusOr<std::vector<State>> RandomSearchPolicy::Propose(int n) {
  ScopedSeconds total(&counters_.total_s);
  if (n < 1) return absl::InvalidArgumentError(absl::StrCat("Propose(", n, "): n must be >= 1"));
  if (!have_sketches_) {
    ScopedSeconds timer(&counters_.sketch_s);
    PRUNER_ASSIGN_OR_RETURN(auto sketches, TaskSketches(task_, options_.sketch));
    sketches_ = std::move(sketches);
    have_sketches_ = true;
  }
  ++counters_.rounds;
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
  counters_.proposed += static_cast<int64_t>(drawn.states.size());
  return std::move(drawn.states);
}

void RandomSearchPolicy::Record(const std::vector<MeasuredState>& results) {
  measured_.AddResults(results);
}

}  // namespace pruner
