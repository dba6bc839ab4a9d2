#include "bench/search_efficiency/workload_set.h"

#include <cstdio>
#include <memory>

#include "absl/strings/numbers.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_split.h"
#include "common/base/status_macros.h"
#include "common/ir/ops.h"
#include "common/ir/reference.h"
#include "common/tune/job_tasks.h"

namespace pruner::bench {

absl::StatusOr<std::vector<SearchTask>> ParseWorkloads(const std::string& comma_list) {
  std::vector<SearchTask> out;
  // Operator specs contain commas themselves ("dense:M=512,K=512,N=512"):
  // a comma-separated part that is a bare "K=512" continues the previous
  // item; anything with ':' or '/' (or no '=') starts a new one.
  std::vector<std::string> items;
  for (absl::string_view part : absl::StrSplit(comma_list, ',', absl::SkipEmpty())) {
    const bool starts_item = part.find(':') != absl::string_view::npos ||
                             part.find('/') != absl::string_view::npos ||
                             part.find('=') == absl::string_view::npos;
    if (items.empty() || starts_item) {
      items.emplace_back(part);
    } else {
      absl::StrAppend(&items.back(), ",", part);
    }
  }
  for (const std::string& item : items) {
    const size_t slash = item.find('/');
    if (slash != std::string::npos && item.find(':') == std::string::npos) {
      const std::string network = item.substr(0, slash);
      int index = -1;
      if (!absl::SimpleAtoi(item.substr(slash + 1), &index) || index < 0) {
        return absl::InvalidArgumentError(absl::StrCat(item, ": want NETWORK/INDEX"));
      }
      PRUNER_ASSIGN_OR_RETURN(auto tasks, BuildJobTasks({}, network));
      if (index >= static_cast<int>(tasks.size())) {
        return absl::InvalidArgumentError(
            absl::StrCat(item, ": ", network, " has ", tasks.size(), " tasks"));
      }
      SearchTask t = tasks[index];
      t.name = absl::StrCat(item, " ", t.name);
      t.weight = 1;
      out.push_back(std::move(t));
      continue;
    }
    auto dag = BuildOperator(item);
    if (!dag.ok()) return dag.status();
    SearchTask t;
    t.name = item;
    t.dag = std::make_shared<const ComputeDag>(*std::move(dag));
    t.workload_key = t.dag->WorkloadKey();
    out.push_back(std::move(t));
  }
  if (out.empty()) return absl::InvalidArgumentError("no workloads");
  return out;
}

void PrintNetworkTasks(const std::string& network) {
  auto tasks = BuildJobTasks({}, network);
  if (!tasks.ok()) {
    std::printf("%s\n", std::string(tasks.status().message()).c_str());
    return;
  }
  for (size_t i = 0; i < tasks->size(); ++i) {
    const SearchTask& t = (*tasks)[i];
    std::printf("  %s/%zu  %-50s weight %g  %.3f GFLOP\n", network.c_str(), i, t.name.c_str(),
                t.weight, t.dag->FlopCount() / 1e9);
  }
}

absl::StatusOr<Workload> MakeTaskWorkload(const SearchTask& task) {
  Workload w;
  w.name = task.name;
  w.dag = task.dag;
  w.inputs = RandomInputs(*w.dag, 7);
  auto want = RunReference(*w.dag, w.inputs);
  if (!want.ok()) return want.status();
  w.want = *std::move(want);
  w.flops = w.dag->FlopCount();
  return w;
}

}  // namespace pruner::bench
