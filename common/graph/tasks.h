// Task extraction: the tuning tasks of a network, as Ansor's extract_tasks
// returns them (../shared/specs/ansor.md §9.1): one task per distinct fused subgraph,
// weighted by how many times the network runs it.
#ifndef PRUNER_COMMON_GRAPH_TASKS_H_
#define PRUNER_COMMON_GRAPH_TASKS_H_

#include <memory>
#include <string>
#include <vector>

#include "absl/status/statusor.h"
#include "common/graph/fusion.h"
#include "common/graph/graph.h"
#include "common/ir/compute_dag.h"

namespace pruner {

struct ExtractOptions {
  // Also return groups without a reduction (element-wise leftovers); Ansor's
  // include_simple_tasks. Layout views are never tasks.
  bool include_simple_tasks = false;
};

struct GraphTask {
  // Readable and unique within one extraction, e.g.
  // "conv2d_bias_relu_N1_C64_H56_W56_K64_R3_S3_pad1": the anchor's kind,
  // the element-wise ops fused after it, then the anchor's shape.
  std::string name;
  std::string workload_key;  // dag->WorkloadKey()
  std::shared_ptr<const ComputeDag> dag;
  int weight = 0;                        // occurrences in the network
  double flops = 0;                      // dag->FlopCount(), per occurrence
  std::vector<std::string> occurrences;  // node name of each occurrence's first node
};

// Fuses `graph` (fusion.h), builds every group's DAG, and de-duplicates by
// WorkloadKey: equal subgraphs are one task whose weight counts them. Tasks
// come in order of first occurrence.
absl::StatusOr<std::vector<GraphTask>> ExtractTasks(const Graph& graph,
                                                    const ExtractOptions& options = {});

// The readable task name of a group (see GraphTask::name), before
// de-duplication suffixes.
std::string GroupName(const Graph& graph, const FusedGroup& group);

// Sum of weight * flops: the network's FLOPs spent in the tasks.
double WeightedFlops(const std::vector<GraphTask>& tasks);

}  // namespace pruner

#endif  // PRUNER_COMMON_GRAPH_TASKS_H_
