#include "common/sketch/sketch_state_queries.h"

#include <cstring>
#include <string>
#include <vector>

namespace pruner {

bool HasReduceIter(const Stage& stage) {
  for (size_t i = 0; i < stage.iters.size(); ++i) {
    if (stage.iter_kind(static_cast<int>(i)) == IterKind::kReduce) return true;
  }
  return false;
}

std::pair<int64_t, int64_t> SpaceAndReduceLength(const Stage& stage) {
  int64_t space = 1;
  int64_t reduce = 1;
  for (size_t i = 0; i < stage.iters.size(); ++i) {
    const IterNode& n = stage.node_of(static_cast<int>(i));
    const int64_t extent = n.extent > 0 ? n.extent : 1;
    if (n.kind == IterKind::kSpatial) space *= extent;
    if (n.kind == IterKind::kReduce) reduce *= extent;
  }
  return {space, reduce};
}

std::set<int> RootAxesOf(const Stage& stage, int node) {
  std::set<int> roots;
  std::vector<int> pending = {node};
  while (!pending.empty()) {
    const int n = pending.back();
    pending.pop_back();
    if (n < stage.num_root_nodes()) {
      roots.insert(n);
      continue;
    }
    // Nodes are only ever created as outputs of one relation.
    for (const IterRelation& rel : stage.relations) {
      bool produced = false;
      for (int out : rel.outputs) produced |= out == n;
      if (produced) {
        pending.insert(pending.end(), rel.inputs.begin(), rel.inputs.end());
        break;
      }
    }
  }
  return roots;
}

int LastReduceIterInOutermostReduceTile(const Stage& stage) {
  const size_t num_reduce_axes = stage.op->reduce_axes.size();
  if (num_reduce_axes == 0) return -1;
  std::set<int> seen;
  for (size_t i = 0; i < stage.iters.size(); ++i) {
    const int node = stage.iters[i].node;
    if (stage.nodes[node].kind != IterKind::kReduce) continue;
    for (int root : RootAxesOf(stage, node)) seen.insert(root);
    if (seen.size() >= num_reduce_axes) return static_cast<int>(i);
  }
  return -1;
}

bool HasAnnotation(const Stage& stage, IterAnnotation annotation) {
  for (const Iterator& it : stage.iters) {
    if (it.annotation == annotation) return true;
  }
  return false;
}

bool NameEndsWith(const std::string& name, const char* suffix) {
  const size_t n = std::strlen(suffix);
  return name.size() >= n && name.compare(name.size() - n, n, suffix) == 0;
}

}  // namespace pruner
