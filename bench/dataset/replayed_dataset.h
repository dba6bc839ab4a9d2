// The dataset's schedules replayed to States (what models score), with their
// latencies beside them. A record whose sentence no longer parses or replays
// (a database from an older engine) is dropped and counted.
#ifndef PRUNER_BENCH_DATASET_REPLAYED_DATASET_H_
#define PRUNER_BENCH_DATASET_REPLAYED_DATASET_H_

#include <cstdint>
#include <string>
#include <vector>

#include "bench/dataset/dataset_loader.h"
#include "common/schedule/state.h"

namespace pruner::dataset {

struct ReplayedWorkload {
  std::string key, name, group;
  double weight = 1;
  std::vector<State> states;
  std::vector<double> latency_s;  // parallel to states
};

struct ReplayedDataset {
  std::vector<ReplayedWorkload> workloads;  // those with at least one state
  int64_t dropped = 0;                      // schedules that did not replay

  int64_t NumStates() const;
};

ReplayedDataset ReplayDataset(const Dataset& data);

}  // namespace pruner::dataset

#endif  // PRUNER_BENCH_DATASET_REPLAYED_DATASET_H_
