// The workloads of the search-efficiency benchmark: what --workloads names,
// turned into the tuning job's search tasks and, for the re-measurement,
// into in-process workloads with fixed inputs and reference outputs.
#ifndef PRUNER_BENCH_SEARCH_EFFICIENCY_WORKLOAD_SET_H_
#define PRUNER_BENCH_SEARCH_EFFICIENCY_WORKLOAD_SET_H_

#include <string>
#include <vector>

#include "absl/status/statusor.h"
#include "bench/inprocess_kernel.h"
#include "common/search/search_policy.h"

namespace pruner::bench {

// Each item is an operator spec ("dense:M=512,K=512,N=512", see `pruner
// ops`) or "NETWORK/I", the I-th fused subgraph task of a built-in network
// ("bert-tiny/0"). Every task gets weight 1: the set is a benchmark, not a
// network, so each workload counts the same in the job's objective.
absl::StatusOr<std::vector<SearchTask>> ParseWorkloads(const std::string& comma_list);

// Lists the subgraph tasks of `network` ("bert-tiny/0  name  GFLOP").
void PrintNetworkTasks(const std::string& network);

// The task's DAG with fixed random inputs (seed 7) and the reference
// executor's outputs, for ReadyKernel::Load's check.
absl::StatusOr<Workload> MakeTaskWorkload(const SearchTask& task);

}  // namespace pruner::bench

#endif  // PRUNER_BENCH_SEARCH_EFFICIENCY_WORKLOAD_SET_H_
