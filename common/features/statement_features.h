// Ansor's 164 per-statement features (../shared/specs/ansor.md §5.4), read from our
// lowered loop-nest program (common/lower/program.h).
//
// A program yields one row per buffer it stores to (init and update stores of
// a reduction share a row; the last store's values win for groups 1-3 and 5,
// as in TVM), in the order the buffers are first stored. Row layout:
//   [0, 57)    group 1: computation counts, vectorize/unroll/parallel, GPU extents
//   [57, 147)  group 2: 5 buffer-access slots x 18
//   [147, 157) group 3: arithmetic-intensity curve
//   [157, 161) group 4: allocation
//   [161, 164) group 5: outer scope
// StatementFeatureNames() names every column; feature_columns.h gives each
// column's index. What we copy from TVM's quirks and what we fix is written
// at the top of statement_features.cc.
#ifndef PRUNER_COMMON_FEATURES_STATEMENT_FEATURES_H_
#define PRUNER_COMMON_FEATURES_STATEMENT_FEATURES_H_

#include <array>
#include <string>
#include <vector>

#include "absl/status/statusor.h"
#include "common/device/device_profile.h"
#include "common/lower/program.h"
#include "common/schedule/state.h"

namespace pruner {

inline constexpr int kNumStatementFeatures = 164;
using StatementFeatures = std::array<float, kNumStatementFeatures>;
// All rows of one program: what a cost model scores.
using ProgramFeatures = std::vector<StatementFeatures>;

// The 164 column names, in TVM's spelling ("float_addsub", "B0.bytes",
// "arith_intensity_curve_3", ...).
const std::vector<std::string>& StatementFeatureNames();

// Features of an already lowered program. Thread-safe (each thread reuses
// its own scratch memory).
ProgramFeatures ExtractStatementFeatures(const Program& program, const DeviceProfile& device);

// Lower `state` for `device` and extract its features. Lowering errors come
// back as the error (callers score such states -inf, as Ansor does).
absl::StatusOr<ProgramFeatures> ExtractStateFeatures(const State& state,
                                                     const DeviceProfile& device);

}  // namespace pruner

#endif  // PRUNER_COMMON_FEATURES_STATEMENT_FEATURES_H_
