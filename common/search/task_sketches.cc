#include "common/search/task_sketches.h"

#include "absl/strings/str_cat.h"
#include "common/base/absl_compat.h"

namespace pruner {

absl::StatusOr<std::vector<Sketch>> TaskSketches(const SearchTask& task,
                                                 const SketchOptions& options) {
  if (task.dag == nullptr) {
    return absl::InvalidArgumentError(absl::StrCat("task ", task.name, " has no workload"));
  }
  auto sketches = GenerateSketches(task.dag, task.device, options);
  if (!sketches.ok()) {
    return absl::Status(sketches.status().code(),
                        absl::StrCat("task ", task.name, ": generating sketches for ",
                                     task.device.name, ": ", sketches.status().message()));
  }
  if (sketches->empty()) {
    return absl::FailedPreconditionError(absl::StrCat(
        "task ", task.name, ": no sketch rule applies on ", task.device.name, " (",
        ToAbsl(DeviceKindName(task.device.kind)), ")"));
  }
  return sketches;
}

}  // namespace pruner
