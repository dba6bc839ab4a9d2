// The last steps every hand-shaped seed schedule (window_seeds.h,
// winograd_seeds.h, matmul_seeds.h) takes.
#ifndef PRUNER_COMMON_SKETCH_SEED_FINISH_H_
#define PRUNER_COMMON_SKETCH_SEED_FINISH_H_

#include <memory>
#include <optional>
#include <vector>

#include "common/device/device_profile.h"
#include "common/ir/compute_dag.h"
#include "common/schedule/state.h"
#include "common/schedule/step.h"

namespace pruner {

// Vectorizes the innermost loop of each of `stages`; false if a stage
// refuses it.
bool VectorizeInnermostLoops(State& state, const std::vector<int>& stages);

// `steps` replayed as every sampled schedule is: the device's limits
// checked, the state in the form the search de-duplicates by; nullopt when
// a step fails or a limit is exceeded.
std::optional<State> ReplaySeed(std::shared_ptr<const ComputeDag> dag,
                                const std::vector<Step>& steps, const DeviceProfile& device);

}  // namespace pruner

#endif  // PRUNER_COMMON_SKETCH_SEED_FINISH_H_
