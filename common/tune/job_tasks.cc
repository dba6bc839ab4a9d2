#include "common/tune/job_tasks.h"

#include <map>
#include <memory>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "common/base/status_macros.h"
#include "common/graph/networks.h"
#include "common/graph/tasks.h"
#include "common/ir/ops.h"

namespace pruner {

absl::StatusOr<std::vector<SearchTask>> BuildJobTasks(const std::vector<std::string>& ops,
                                                      const std::string& network) {
  std::vector<SearchTask> tasks;
  if (!network.empty()) {
    if (!ops.empty()) return absl::InvalidArgumentError("give operators or a network, not both");
    auto graph = BuildNetwork(network);
    if (!graph.ok()) {
      return absl::Status(graph.status().code(),
                          absl::StrCat(graph.status().message(), " (built-in networks: ",
                                       absl::StrJoin(KnownNetworks(), ", "), ")"));
    }
    return TasksOfGraph(*graph);
  }
  if (ops.empty()) {
    return absl::InvalidArgumentError("nothing to tune: give an operator spec or a network");
  }
  if (static_cast<int>(ops.size()) > kMaxOpsPerJob) {
    return absl::InvalidArgumentError(
        absl::StrCat(ops.size(), " operators in one job; at most ", kMaxOpsPerJob));
  }
  std::map<std::string, size_t> index_of_key;
  for (const std::string& spec : ops) {
    auto dag = BuildOperator(spec);
    if (!dag.ok()) {
      return absl::Status(dag.status().code(),
                          absl::StrCat("operator '", spec, "': ", dag.status().message()));
    }
    const std::string key = dag->WorkloadKey();
    if (auto it = index_of_key.find(key); it != index_of_key.end()) {
      tasks[it->second].weight += 1;
      continue;
    }
    SearchTask task;
    task.name = spec;
    task.dag = std::make_shared<const ComputeDag>(*std::move(dag));
    task.workload_key = key;
    index_of_key[key] = tasks.size();
    tasks.push_back(std::move(task));
  }
  return tasks;
}

absl::StatusOr<std::vector<SearchTask>> TasksOfGraph(const Graph& graph) {
  PRUNER_ASSIGN_OR_RETURN(auto graph_tasks, ExtractTasks(graph));
  std::vector<SearchTask> tasks;
  for (const GraphTask& t : graph_tasks) {
    SearchTask task;
    task.name = t.name;
    task.dag = t.dag;
    task.workload_key = t.dag->WorkloadKey();
    task.weight = t.weight;
    tasks.push_back(std::move(task));
  }
  return tasks;
}

absl::StatusOr<std::vector<SearchTask>> BuildModelTasks(const std::string& path,
                                                        const OnnxImportOptions& options) {
  PRUNER_ASSIGN_OR_RETURN(OnnxModel model, ImportOnnxFile(path, options));
  return TasksOfGraph(model.graph);
}

}  // namespace pruner
