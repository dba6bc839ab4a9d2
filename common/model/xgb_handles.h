// XGBoost's C API (libxgboost 1.7) as the learners here use it: owning
// handles, Status errors, dense matrices, margin predictions and the
// universal-binary-JSON model format. Both XGBoost learners (Ansor's
// pack-sum regressor and AutoTVM's rank model) go through these.
#ifndef PRUNER_COMMON_MODEL_XGB_HANDLES_H_
#define PRUNER_COMMON_MODEL_XGB_HANDLES_H_

#include <cstdint>
#include <memory>
#include <string>
#include <string_view>
#include <vector>

#include "absl/status/status.h"
#include "absl/status/statusor.h"

namespace pruner {

// Non-zero XGBoost return codes as Internal errors naming `what`.
absl::Status XgbStatus(int rc, const char* what);

struct XgbDMatrixFree {
  void operator()(void* h) const;
};
struct XgbBoosterFree {
  void operator()(void* h) const;
};
// Every early return must free the C handles.
using XgbDMatrix = std::unique_ptr<void, XgbDMatrixFree>;
using XgbBooster = std::unique_ptr<void, XgbBoosterFree>;

// A dense row-major matrix; every value is real (NaN would mean missing).
absl::StatusOr<XgbDMatrix> MakeXgbDMatrix(const float* values, int64_t rows, int64_t columns);
// Named float info ("label", "base_margin", "weight") of `rows` values.
absl::Status SetXgbFloatInfo(void* dmatrix, const char* field, const std::vector<float>& values);
// Query groups as consecutive row counts (ranking objectives).
absl::Status SetXgbGroups(void* dmatrix, const std::vector<unsigned>& sizes);

// A booster caching `train` (may be null for one that will be loaded).
absl::StatusOr<XgbBooster> MakeXgbBooster(void* train);
absl::Status SetXgbParam(void* booster, const char* name, const std::string& value);

// Raw scores (margins: the trees plus the matrix's base_margin, if set).
// `training` lets XGBoost reuse its prediction cache for the training
// matrix, so a round costs one tree's worth of work.
absl::StatusOr<std::vector<float>> PredictXgbMargins(void* booster, void* dmatrix, int64_t rows,
                                                    bool training);

absl::StatusOr<std::string> SaveXgbBooster(void* booster);
// A booster from SaveXgbBooster's bytes, predicting with `nthread` threads.
absl::StatusOr<XgbBooster> LoadXgbBooster(std::string_view bytes, int nthread);
absl::StatusOr<int> XgbNumFeatures(void* booster);

}  // namespace pruner

#endif  // PRUNER_COMMON_MODEL_XGB_HANDLES_H_
