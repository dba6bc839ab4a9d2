// The sketches of a search task, generated once per policy (Ansor caches
// them the same way). A task none of whose sketch rules applies is an error:
// nothing could ever be proposed for it.
#ifndef PRUNER_COMMON_SEARCH_TASK_SKETCHES_H_
#define PRUNER_COMMON_SEARCH_TASK_SKETCHES_H_

#include <vector>

#include "absl/status/statusor.h"
#include "common/sketch/sketch.h"
#include "common/search/search_policy.h"

namespace pruner {

absl::StatusOr<std::vector<Sketch>> TaskSketches(const SearchTask& task,
                                                 const SketchOptions& options);

}  // namespace pruner

#endif  // PRUNER_COMMON_SEARCH_TASK_SKETCHES_H_
