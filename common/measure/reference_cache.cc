#include "common/measure/reference_cache.h"

#include <map>
#include <mutex>
#include <string>
#include <utility>

#include "common/ir/reference.h"

namespace pruner {
namespace {

constexpr size_t kMaxWorkloads = 32;

struct Cache {
  std::mutex mu;
  std::map<std::pair<std::string, uint64_t>, std::shared_ptr<const ReferenceData>> entries;
};

Cache& TheCache() {
  static Cache* cache = new Cache;  // never destroyed: safe at exit
  return *cache;
}

}  // namespace

absl::StatusOr<std::shared_ptr<const ReferenceData>> GetReferenceData(const ComputeDag& dag,
                                                                      uint64_t seed) {
  auto key = std::make_pair(dag.WorkloadKey(), seed);
  Cache& cache = TheCache();
  {
    std::lock_guard<std::mutex> lock(cache.mu);
    auto it = cache.entries.find(key);
    if (it != cache.entries.end()) return it->second;
  }
  // Computed outside the lock; two threads may both compute a new workload,
  // with equal results.
  auto data = std::make_shared<ReferenceData>();
  data->inputs = RandomInputs(dag, seed);
  auto outputs = RunReference(dag, data->inputs);
  if (!outputs.ok()) return outputs.status();
  data->outputs = *std::move(outputs);
  std::lock_guard<std::mutex> lock(cache.mu);
  if (cache.entries.size() >= kMaxWorkloads) cache.entries.clear();
  cache.entries.emplace(std::move(key), data);
  return std::shared_ptr<const ReferenceData>(data);
}

}  // namespace pruner
