#include "bench/dataset/replayed_dataset.h"

#include <utility>

#include "common/schedule/step.h"

namespace pruner::dataset {

int64_t ReplayedDataset::NumStates() const {
  int64_t n = 0;
  for (const ReplayedWorkload& w : workloads) n += static_cast<int64_t>(w.states.size());
  return n;
}

ReplayedDataset ReplayDataset(const Dataset& data) {
  ReplayedDataset out;
  for (const DatasetWorkload& w : data.workloads) {
    ReplayedWorkload r{w.key, w.name, w.group, w.weight, {}, {}};
    for (const DatasetSchedule& s : w.schedules) {
      auto steps = ParseSteps(s.steps);
      if (!steps.ok()) {
        ++out.dropped;
        continue;
      }
      auto state = State::Replay(w.dag, *steps);
      if (!state.ok()) {
        ++out.dropped;
        continue;
      }
      r.states.push_back(*std::move(state));
      r.latency_s.push_back(s.latency_s);
    }
    if (!r.states.empty()) out.workloads.push_back(std::move(r));
  }
  return out;
}

}  // namespace pruner::dataset
