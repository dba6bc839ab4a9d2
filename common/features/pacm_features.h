// Everything PaCM reads of one program (../shared/specs/pruner.md §4.1): the statement
// rows with the task's workload tag, and the dataflow blocks.
//
// The statement rows are the existing 164-value Ansor rows: they already
// keep max_n_bufs = 5 buffer slots, the setting PaCM uses, so PaCM's 174
// inputs per row are that row followed by the 10-value tag. The tag is kept
// once per program rather than copied into every row; PaCMBatch
// (pacm_batch.h) lays out the 174-wide rows a model consumes.
#ifndef PRUNER_COMMON_FEATURES_PACM_FEATURES_H_
#define PRUNER_COMMON_FEATURES_PACM_FEATURES_H_

#include <array>

#include "absl/status/statusor.h"
#include "common/device/device_profile.h"
#include "common/features/dataflow_features.h"
#include "common/features/statement_features.h"
#include "common/features/workload_tag.h"
#include "common/lower/program.h"
#include "common/schedule/state.h"

namespace pruner {

inline constexpr int kPaCMStatementWidth = kNumStatementFeatures + kWorkloadTagSize;  // 174

// Our addition to PaCM's inputs, used only by networks built with an
// analyzer branch (PaCMNetworkShape::symbol_hidden > 0): what the Symbol
// Analyzer reads of the program (its register tile, the lanes and loads the
// backend issues, cache lines, its estimate), one vector per program. The
// model layer fills it (common/model/pacm_symbols.h says which values),
// since the analyzer sits above this library.
inline constexpr int kProgramSymbolWidth = 36;
using ProgramSymbolVector = std::array<float, kProgramSymbolWidth>;

struct PaCMFeatures {
  // One row per stored buffer, as ExtractStatementFeatures gives them.
  ProgramFeatures statements;
  WorkloadTag tag{};
  DataflowFeatures dataflow;
  // All zeros unless the caller asked for them (see kProgramSymbolWidth).
  ProgramSymbolVector symbols{};
};

// Lowers `state` for `device` and extracts its features; the tag comes from
// the state's workload. Lowering errors come back as the error (PaCM scores
// such states -inf; PaCMBatch::AddInvalid holds their place in a batch).
absl::StatusOr<PaCMFeatures> ExtractPaCMFeatures(const State& state, const DeviceProfile& device);

// Features of an already lowered program of a workload with tag `tag`.
PaCMFeatures ExtractPaCMFeatures(const Program& program, const WorkloadTag& tag,
                                 const DeviceProfile& device);

}  // namespace pruner

#endif  // PRUNER_COMMON_FEATURES_PACM_FEATURES_H_
