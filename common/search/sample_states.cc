#include "common/search/sample_states.h"

#include <algorithm>
#include <unordered_set>

namespace pruner {

SampledStates SampleDistinctStates(const std::vector<Sketch>& sketches,
                                   const DeviceProfile& device,
                                   const AnnotationOptions& options, const SampleRequest& request,
                                   Rng& rng, SearchCounters* counters) {
  SampledStates out;
  if (sketches.empty() || request.target <= 0) return out;
  ScopedSeconds timer(&counters->sample_s);
  std::unordered_set<std::string> seen;
  size_t target = static_cast<size_t>(request.target);
  const int batch = std::max(request.batch_size, 1);
  int fruitless = 0;
  while (out.states.size() < target) {
    const size_t before = out.states.size();
    for (int i = 0; i < batch; ++i) {
      if (request.stop_at_target && out.states.size() >= target) break;
      const Sketch& sketch = sketches[rng.Below(sketches.size())];
      ++counters->sample_attempts;
      auto state = SampleSchedule(sketch, device, rng, options);
      if (!state.ok()) continue;
      ++counters->sampled_valid;
      std::string str = state->ToStr();
      if (request.excluded && request.excluded(str)) continue;
      if (!seen.insert(str).second) continue;
      out.states.push_back(*std::move(state));
      out.strs.push_back(std::move(str));
    }
    if (out.states.size() > before) {
      fruitless = 0;
      continue;
    }
    if (++fruitless < request.max_fruitless_batches) continue;
    fruitless = 0;
    if (!request.halve_on_stall || target <= 1) break;
    target /= 2;
  }
  return out;
}

}  // namespace pruner
