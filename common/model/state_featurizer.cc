#include "common/model/state_featurizer.h"

#include <algorithm>

#include "common/base/parallel_for.h"
#include "common/base/status_macros.h"
#include "common/lower/lower.h"
#include "common/model/pacm_symbols.h"

namespace pruner {

namespace {

// Calls extract(state_at(i), device) for i in [0, n) on up to `num_threads`
// threads (0 = hardware threads) and returns the results in order.
template <typename Features, typename Extract>
std::vector<absl::StatusOr<Features>> FeaturizeInParallel(
    int n, const std::function<const State&(int)>& state_at, const DeviceProfile& device,
    int num_threads, Extract extract) {
  std::vector<absl::StatusOr<Features>> out(n, absl::UnknownError("not featurized"));
  if (num_threads <= 0) num_threads = HardwareThreads();
  // Small batches are not worth a thread start (~tens of microseconds each).
  num_threads = std::min(num_threads, std::max(1, n / 8));
  ParallelFor(n, num_threads, [&](int i) { out[i] = extract(state_at(i), device); });
  return out;
}

}  // namespace

std::vector<absl::StatusOr<ProgramFeatures>> FeaturizeStates(
    int n, const std::function<const State&(int)>& state_at, const DeviceProfile& device,
    int num_threads) {
  return FeaturizeInParallel<ProgramFeatures>(
      n, state_at, device, num_threads,
      [](const State& state, const DeviceProfile& d) { return ExtractStateFeatures(state, d); });
}

std::vector<absl::StatusOr<PaCMFeatures>> FeaturizePaCMStates(
    int n, const std::function<const State&(int)>& state_at, const DeviceProfile& device,
    int num_threads, const SymbolAnalyzer* analyzer) {
  return FeaturizeInParallel<PaCMFeatures>(
      n, state_at, device, num_threads,
      [analyzer](const State& state, const DeviceProfile& d) -> absl::StatusOr<PaCMFeatures> {
        if (analyzer == nullptr) return ExtractPaCMFeatures(state, d);
        // One lowering for both.
        PRUNER_ASSIGN_OR_RETURN(Program program, Lower(state, d));
        PaCMFeatures features =
            ExtractPaCMFeatures(program, ComputeWorkloadTag(*state.original_dag()), d);
        if (auto symbols = ProgramSymbolsOf(program, *analyzer); symbols.ok()) {
          features.symbols = *symbols;
        }
        return features;
      });
}

}  // namespace pruner
