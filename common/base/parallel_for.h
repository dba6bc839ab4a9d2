// Runs fn(i) for every i in [0, n) on up to `threads` threads, the calling
// thread among them (threads <= 1: inline, in order). Threads take the next
// index from a shared counter, because the work items here (lowering a
// schedule, analysing it, compiling a kernel) vary a lot in cost and static
// chunks would leave threads idle. fn must be safe to call concurrently for
// different i.
#ifndef PRUNER_COMMON_BASE_PARALLEL_FOR_H_
#define PRUNER_COMMON_BASE_PARALLEL_FOR_H_

#include <algorithm>
#include <atomic>
#include <functional>
#include <thread>
#include <vector>

namespace pruner {

inline void ParallelFor(int n, int threads, const std::function<void(int)>& fn) {
  threads = std::min(threads, n);
  if (threads <= 1) {
    for (int i = 0; i < n; ++i) fn(i);
    return;
  }
  std::atomic<int> next{0};
  auto work = [&] {
    for (int i = next.fetch_add(1); i < n; i = next.fetch_add(1)) fn(i);
  };
  std::vector<std::thread> pool;
  pool.reserve(threads - 1);
  for (int t = 1; t < threads; ++t) pool.emplace_back(work);
  work();
  for (std::thread& t : pool) t.join();
}

// The hardware threads of this machine (at least 1).
inline int HardwareThreads() {
  return static_cast<int>(std::max(1u, std::thread::hardware_concurrency()));
}

}  // namespace pruner

#endif  // PRUNER_COMMON_BASE_PARALLEL_FOR_H_
