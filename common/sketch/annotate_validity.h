// The final checks every sampled or mutated schedule passes (ansor.md
// §2.5): replay from the sentence, bound inference, and the device's limits.
#ifndef PRUNER_COMMON_SKETCH_ANNOTATE_VALIDITY_H_
#define PRUNER_COMMON_SKETCH_ANNOTATE_VALIDITY_H_

#include <memory>
#include <vector>

#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "common/device/device_profile.h"
#include "common/ir/compute_dag.h"
#include "common/sketch/annotate.h"
#include "common/schedule/state.h"
#include "common/schedule/step.h"

namespace pruner {

// OutOfRange naming the stage and the limit when a bound-inferred state
// breaks one of the device's limits:
// - GPU (per kernel, i.e. a root stage and everything attached in it):
//   threadIdx extent <= max_threads_per_block, vthread extent <=
//   max_vthread_extent, shared-memory footprint <= max_shared_memory_per_block,
//   vectorized bytes <= vector_unit_bytes, no parallel loop;
// - CPU: no thread binding, no parallel loop nested in another (Ansor prunes
//   those after sampling), vectorized loops within MaxVectorElements.
// Lower() checks the same limits; doing it here keeps invalid candidates
// out of the population without lowering each one.
absl::Status CheckDeviceLimits(const State& state, const DeviceProfile& device,
                               const AnnotationOptions& options = {});

// Replays `steps` on the DAG, infers bounds and checks the limits: the
// canonical form of every schedule this library returns.
absl::StatusOr<State> ReplayValidSchedule(std::shared_ptr<const ComputeDag> dag,
                                          const std::vector<Step>& steps,
                                          const DeviceProfile& device,
                                          const AnnotationOptions& options = {});

}  // namespace pruner

#endif  // PRUNER_COMMON_SKETCH_ANNOTATE_VALIDITY_H_
