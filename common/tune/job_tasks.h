// What a job tunes, from what a user typed: operator specs ("dense 1024
// 1024 1024", see `pruner ops`), a built-in network or an ONNX model, turned into search
// tasks with weights. Shared by `pruner tune` (in process) and the server.
#ifndef PRUNER_COMMON_TUNE_JOB_TASKS_H_
#define PRUNER_COMMON_TUNE_JOB_TASKS_H_

#include <string>
#include <vector>

#include "absl/status/statusor.h"
#include "common/graph/graph.h"
#include "common/graph/onnx_import.h"
#include "common/search/search_policy.h"

namespace pruner {

// At most this many operator specs per job.
inline constexpr int kMaxOpsPerJob = 256;

// Exactly one of `ops` and `network` must be given. Operators repeated in
// `ops` become one task with the repeat count as weight. Errors
// (InvalidArgument / NotFound) name the offending spec or network and what
// would be accepted. The tasks' device is left empty.
absl::StatusOr<std::vector<SearchTask>> BuildJobTasks(const std::vector<std::string>& ops,
                                                      const std::string& network);

// The tasks of a network graph (a built-in one or an imported model): one
// per distinct fused group with a reduction, weighted by its occurrences.
absl::StatusOr<std::vector<SearchTask>> TasksOfGraph(const Graph& graph);

// The tasks of an ONNX model file (onnx_import.h), with its errors.
absl::StatusOr<std::vector<SearchTask>> BuildModelTasks(const std::string& path,
                                                        const OnnxImportOptions& options);

}  // namespace pruner

#endif  // PRUNER_COMMON_TUNE_JOB_TASKS_H_
