// Runs fn(i) for i in [0, n) on up to `threads` threads (0 or 1: inline).
// The work items here (lowering, analysis) are independent and of similar
// size, so a shared counter hands them out one at a time.
#ifndef PRUNER_BENCH_DATASET_PARALLEL_FOR_H_
#define PRUNER_BENCH_DATASET_PARALLEL_FOR_H_

#include <algorithm>
#include <atomic>
#include <functional>
#include <thread>
#include <vector>

namespace pruner::dataset {

inline void ParallelFor(int n, int threads, const std::function<void(int)>& fn) {
  threads = std::min(threads, n);
  if (threads <= 1) {
    for (int i = 0; i < n; ++i) fn(i);
    return;
  }
  std::atomic<int> next{0};
  std::vector<std::thread> pool;
  for (int t = 0; t < threads; ++t) {
    pool.emplace_back([&] {
      for (int i = next++; i < n; i = next++) fn(i);
    });
  }
  for (std::thread& t : pool) t.join();
}

}  // namespace pruner::dataset

#endif  // PRUNER_BENCH_DATASET_PARALLEL_FOR_H_
