#include "common/model/state_featurizer.h"

#include <algorithm>
#include <atomic>
#include <thread>

namespace pruner {

std::vector<absl::StatusOr<ProgramFeatures>> FeaturizeStates(
    int n, const std::function<const State&(int)>& state_at, const DeviceProfile& device,
    int num_threads) {
  std::vector<absl::StatusOr<ProgramFeatures>> out(n, absl::UnknownError("not featurized"));
  if (num_threads <= 0) num_threads = std::max(1u, std::thread::hardware_concurrency());
  // Small batches are not worth a thread start (~tens of microseconds each).
  num_threads = std::min(num_threads, std::max(1, n / 8));
  // Threads take the next index from a shared counter: lowering times vary
  // a lot between schedules, so static chunks would leave threads idle.
  std::atomic<int> next{0};
  auto work = [&] {
    for (int i = next.fetch_add(1); i < n; i = next.fetch_add(1)) {
      out[i] = ExtractStateFeatures(state_at(i), device);
    }
  };
  std::vector<std::thread> threads;
  for (int t = 1; t < num_threads; ++t) threads.emplace_back(work);
  work();
  for (std::thread& t : threads) t.join();
  return out;
}

}  // namespace pruner
