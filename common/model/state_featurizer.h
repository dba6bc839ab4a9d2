// Featurization of many states at once for the learned models.
//
// Lowering plus feature extraction costs far more than scoring the rows, and
// the search asks for thousands of states per round, so the states are
// spread over worker threads (each state is independent: lowering reads the
// shared DAG and writes only its own program).
#ifndef PRUNER_COMMON_MODEL_STATE_FEATURIZER_H_
#define PRUNER_COMMON_MODEL_STATE_FEATURIZER_H_

#include <functional>
#include <span>
#include <vector>

#include "absl/status/statusor.h"
#include "common/analysis/symbol_analyzer.h"
#include "common/device/device_profile.h"
#include "common/features/pacm_features.h"
#include "common/features/statement_features.h"
#include "common/model/packed_rows.h"
#include "common/schedule/state.h"

namespace pruner {

// ExtractStateFeatures(state_at(i), device) for i in [0, n), in order, on up
// to `num_threads` threads (0 = hardware threads).
std::vector<absl::StatusOr<ProgramFeatures>> FeaturizeStates(
    int n, const std::function<const State&(int)>& state_at, const DeviceProfile& device,
    int num_threads);

// The same with PaCM's features (ExtractPaCMFeatures), and, when `analyzer`
// is not null, their analyzer vector (pacm_symbols.h; left zeros where the
// analyzer cannot estimate the program).
std::vector<absl::StatusOr<PaCMFeatures>> FeaturizePaCMStates(
    int n, const std::function<const State&(int)>& state_at, const DeviceProfile& device,
    int num_threads, const SymbolAnalyzer* analyzer = nullptr);

// The rows of one program as the flat span PackedRows::AddPack takes.
inline std::span<const float> FlatRows(const ProgramFeatures& features) {
  static_assert(sizeof(StatementFeatures) == kNumStatementFeatures * sizeof(float));
  return {features.empty() ? nullptr : features.front().data(),
          features.size() * kNumStatementFeatures};
}

}  // namespace pruner

#endif  // PRUNER_COMMON_MODEL_STATE_FEATURIZER_H_
