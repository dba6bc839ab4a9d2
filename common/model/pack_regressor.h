// A regressor from packs (the statement rows of one program) to one score per
// pack. The learned cost models are this plus featurization and bookkeeping
// (learned_model.h), so XGBoost and the MLP share everything but the learner.
#ifndef PRUNER_COMMON_MODEL_PACK_REGRESSOR_H_
#define PRUNER_COMMON_MODEL_PACK_REGRESSOR_H_

#include <string>
#include <string_view>
#include <vector>

#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "common/model/packed_rows.h"

namespace pruner {

// What one training run did, for logs and tests.
struct FitReport {
  int iterations = 0;        // boosting rounds kept, or epochs run
  double train_loss = 0;     // the learner's own training metric at the end
  double seconds = 0;
};

class PackRegressor {
 public:
  virtual ~PackRegressor() = default;

  // Trains from scratch on `packs`, one label per pack (higher is better).
  // FailedPrecondition when the data cannot train anything (e.g. every
  // example has weight 0); the previous parameters are then kept.
  virtual absl::StatusOr<FitReport> Fit(const PackedRows& packs,
                                        const std::vector<float>& labels) = 0;

  // True once Fit or Load succeeded.
  virtual bool IsTrained() const = 0;

  // One score per pack; FailedPrecondition before training.
  virtual absl::StatusOr<std::vector<double>> Predict(const PackedRows& packs) const = 0;

  // The learner's parameters as bytes, and back. Load validates what it can
  // and leaves the regressor unchanged on error.
  virtual absl::StatusOr<std::string> Save() const = 0;
  virtual absl::Status Load(std::string_view bytes) = 0;
};

}  // namespace pruner

#endif  // PRUNER_COMMON_MODEL_PACK_REGRESSOR_H_
