// Drawing distinct random schedules from a task's sketches, in batches, with
// a stop rule that ends on small or exhausted spaces (ansor.md §2.5).
//
// Both policies use it: the evolutionary policy for its initial population
// (Ansor's SampleInitPopulation: whole batches of `population` draws until
// at least sample_init_min_population distinct valid states, the target
// halved after 5 fruitless batches) and the random policy for its picks
// (stop as soon as n new states are found, give up after 5 fruitless
// batches). Unlike Ansor's loop, which spins forever on a space with no
// valid schedule, this one always ends.
#ifndef PRUNER_COMMON_SEARCH_SAMPLE_STATES_H_
#define PRUNER_COMMON_SEARCH_SAMPLE_STATES_H_

#include <functional>
#include <string>
#include <vector>

#include "common/device/device_profile.h"
#include "common/sketch/annotate.h"
#include "common/sketch/random.h"
#include "common/sketch/sketch.h"
#include "common/schedule/state.h"
#include "common/search/search_counters.h"

namespace pruner {

struct SampleRequest {
  int target = 1;      // distinct states wanted
  int batch_size = 1;  // draws per batch
  // Stop in the middle of a batch once `target` states are found (the
  // random policy); otherwise every valid state of the batch is kept, as
  // Ansor's parallel batch does.
  bool stop_at_target = false;
  // After this many batches in a row without a new state: halve the target
  // (when `halve_on_stall`, until it is 1) or stop.
  int max_fruitless_batches = 5;
  bool halve_on_stall = false;
  // States (by ToStr) that do not count as new; may be empty.
  std::function<bool(const std::string&)> excluded;
};

struct SampledStates {
  std::vector<State> states;
  std::vector<std::string> strs;  // ToStr of each
};

SampledStates SampleDistinctStates(const std::vector<Sketch>& sketches,
                                   const DeviceProfile& device,
                                   const AnnotationOptions& options, const SampleRequest& request,
                                   Rng& rng, SearchCounters* counters);

}  // namespace pruner

#endif  // PRUNER_COMMON_SEARCH_SAMPLE_STATES_H_
