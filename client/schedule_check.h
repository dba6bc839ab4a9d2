// Sample random schedules of a workload, lower them, run them in the program
// interpreter and compare with the naive reference. This is what the
// `pruner check` and `pruner demo` commands print, and the engine's own
// end-to-end sanity check before any real measurement exists.
#ifndef PRUNER_CLIENT_SCHEDULE_CHECK_H_
#define PRUNER_CLIENT_SCHEDULE_CHECK_H_

#include <cstdint>
#include <map>
#include <string>

#include "absl/status/statusor.h"
#include "common/device/device_profile.h"

namespace pruner {

struct ScheduleCheckOptions {
  int num_schedules = 20;
  uint64_t seed = 1;
  bool show_example = false;  // print one sentence and its lowered program
};

struct ScheduleCheckReport {
  std::string workload_key;
  double gflop = 0;
  int num_sketches = 0;
  int sampled = 0;
  int lowered = 0;
  int matched = 0;
  // Failure message → count, for every stage that can fail.
  std::map<std::string, int> failures;
  std::string example;  // sentence + program, when requested
};

absl::StatusOr<ScheduleCheckReport> CheckRandomSchedules(const std::string& op_spec,
                                                         const DeviceProfile& device,
                                                         const ScheduleCheckOptions& options);

}  // namespace pruner

#endif  // PRUNER_CLIENT_SCHEDULE_CHECK_H_
