// Hand-shaped complete schedules that the search measures before its own
// picks and that an untuned build uses: the window reductions' banded
// schedules (window_seeds.h), the Winograd convolutions' block schedules
// (winograd_seeds.h) and the matrix products' register tiles
// (matmul_seeds.h). Hints, measured like any candidate.
#ifndef PRUNER_COMMON_SKETCH_SEED_SCHEDULES_H_
#define PRUNER_COMMON_SKETCH_SEED_SCHEDULES_H_

#include <vector>

#include "common/device/device_profile.h"
#include "common/schedule/state.h"
#include "common/sketch/sketch.h"

namespace pruner {

// Every seed of the task whose sketches these are, the most promising
// first; empty when no seed shape applies (every GPU task).
std::vector<State> SeedSchedules(const std::vector<Sketch>& sketches, const DeviceProfile& device);

}  // namespace pruner

#endif  // PRUNER_COMMON_SKETCH_SEED_SCHEDULES_H_
