// A schedule for a task nobody has tuned: what `pruner compile` runs when
// the records database has no measurement of a task on the target device.
//
// It is the draft of Pruner's own search without the measurements: `draws`
// random schedules from the task's sketches (so tiled, parallel and
// vectorized as the sketch rules make every schedule), ranked by the
// Symbol-based Analyzer (common/analysis), the best kept. Deterministic for
// a seed; never the naive loop nest unless the task has no other schedule.
// A window reduction (a depthwise convolution) or a Winograd convolution
// gets seed_schedules.h's first schedule instead.
#ifndef PRUNER_COMMON_COMPILE_DEFAULT_SCHEDULE_H_
#define PRUNER_COMMON_COMPILE_DEFAULT_SCHEDULE_H_

#include <cstdint>
#include <memory>

#include "absl/status/statusor.h"
#include "common/device/device_profile.h"
#include "common/ir/compute_dag.h"
#include "common/schedule/state.h"

namespace pruner {

struct DefaultScheduleOptions {
  int draws = 64;
  uint64_t seed = 1;
};

absl::StatusOr<State> DefaultSchedule(std::shared_ptr<const ComputeDag> dag,
                                      const DeviceProfile& device,
                                      const DefaultScheduleOptions& options = {});

}  // namespace pruner

#endif  // PRUNER_COMMON_COMPILE_DEFAULT_SCHEDULE_H_
