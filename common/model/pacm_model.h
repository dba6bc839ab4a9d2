// PaCM, Pruner's pattern-aware cost model (paper §4.2; ../shared/specs/pruner.md §5),
// as a CostModel named "pacm", with its three ways of learning (§5.4, §6):
//
// online (Pruner; the code's `pam`, base_only)
//   Every Update adds the records to one data set covering all tasks and
//   trains a fresh, randomly initialized network on all of it (§5.3), which
//   then predicts. Load is only for predicting before the first Update.
//
// moa (MoA-Pruner; `pam-siamese-update`)
//   Load(pretrained checkpoint, from any device) first: the loaded network
//   becomes the Siamese and, as a copy, the predictor, with its own
//   (pretraining) column scales, until the first retrain. Every Update adds
//   the records and counts; on every 4th (retrain_every; the counter spans
//   all tasks, like Pruner's `iter`) a target network is copied from the
//   Siamese (parameters and BatchNorm statistics), trained on all online
//   data with column scales refitted on that data, and then
//     φ_siamese ← m·φ_siamese + (1 − m)·φ_target,  m = 0.99,
//   for parameters only (the Siamese's BatchNorm statistics never change).
//   **The target predicts** until the next retrain (Pruner sets base_model
//   = target; paper Algorithm 1 scores with C_PaT and updates C_MoA); the
//   Siamese never scores anything, it only seeds the next target. In the
//   three other rounds nothing is trained. Update before Load is a
//   FailedPrecondition (Pruner silently ignores a missing --load-model and
//   crashes at the 4th update).
//
// offline (`pam-no-update`)
//   Load(checkpoint) and predict with it unchanged; Update does nothing
//   (FailedPrecondition if nothing was loaded).
//
// Predict featurizes the states in parallel (ExtractPaCMFeatures is
// thread-safe), scores them in one eval-mode pass (a score depends on its
// state only; pacm_network.h says how BatchNorm is handled) and gives
// -infinity to states whose lowering fails. Before any network exists every
// valid state scores 0, as in Pruner (draft candidates come first in the
// verifier's population and ties keep the earliest, so the first round
// measures the drafter's best).
//
// Save writes the predictor, its column scales and layer widths, and in moa
// mode the Siamese and the update counter (pacm_checkpoint.h), so a stopped
// MoA job resumes with the Siamese it had drifted to. The data set is not
// saved: records live in the records database, and a resumed job passes
// them to Update again. Load takes a checkpoint from any device in moa and
// offline modes (that is their purpose) and only from this device in
// online mode; the checkpoint, not the options, fixes the layer widths.
//
// Not thread-safe: one caller at a time.
#ifndef PRUNER_COMMON_MODEL_PACM_MODEL_H_
#define PRUNER_COMMON_MODEL_PACM_MODEL_H_

#include <cstdint>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "common/analysis/symbol_analyzer.h"
#include "common/device/device_profile.h"
#include "common/model/cost_model.h"
#include "common/model/pacm_network.h"
#include "common/model/pacm_training_set.h"

namespace pruner {

enum class PaCMMode { kOnline, kMoA, kOffline };

// "online", "moa", "offline".
std::string_view PaCMModeName(PaCMMode mode);
std::optional<PaCMMode> ParsePaCMMode(std::string_view name);

struct PaCMModelOptions {
  PaCMMode mode = PaCMMode::kOnline;
  // Widths of the networks online mode creates (moa and offline take the
  // loaded checkpoint's).
  PaCMNetworkShape network;
  // §5.3's schedule, used by every retrain.
  PaCMTrainingParams training;
  // Retrain on every retrain_every-th Update; 0 = the mode's: 1 online
  // (§5.4), 4 moa (§6.2, the paper's "lowering the training frequency").
  int retrain_every = 0;
  double momentum = 0.99;
  // Threads that lower and featurize states; 0 = hardware threads.
  int featurize_threads = 0;
};

class PaCMCostModel final : public CostModel {
 public:
  PaCMCostModel(const DeviceProfile& device, const PaCMModelOptions& options);

  std::string Name() const override;
  absl::Status Update(const std::vector<MeasuredState>& records) override;
  std::vector<double> Predict(const std::vector<State>& states) override;
  // Records passed to Update (none in offline mode), or, before any, the
  // count the loaded checkpoint names.
  int64_t NumTrainingRecords() const override;
  absl::StatusOr<std::string> Save() const override;
  absl::Status Load(std::string_view blob) override;

  PaCMMode mode() const { return options_.mode; }
  // The network that scores, and MoA's Siamese; null when absent.
  const PaCMNetwork* predictor() const { return predictor_.get(); }
  const PaCMNetwork* siamese() const { return siamese_.get(); }
  bool IsTrained() const { return predictor_ != nullptr; }
  // Update calls that added records (MoA's counter), retrains done here,
  // and the last retrain's report.
  int64_t num_updates() const { return num_updates_; }
  int num_retrains() const { return num_retrains_; }
  const std::optional<FitReport>& last_fit() const { return last_fit_; }
  // Records whose state could not be lowered (kept for labels only).
  int64_t num_unfeaturized_records() const { return data_.num_unfeaturized(); }

 private:
  int RetrainEvery() const;
  // The analyzer when the network that trains or predicts next reads the
  // analyzer vector (PaCMNetworkShape::symbol_hidden > 0), else null.
  const SymbolAnalyzer* SymbolSource() const;
  absl::Status Retrain();

  DeviceProfile device_;
  PaCMModelOptions options_;
  std::optional<SymbolAnalyzer> analyzer_;  // absent when the profile has no analyzer
  PaCMTrainingSet data_;
  std::unique_ptr<PaCMNetwork> predictor_;
  std::unique_ptr<PaCMNetwork> siamese_;
  std::string predictor_device_;  // the device the predictor was trained for
  int64_t loaded_records_ = 0;
  int64_t num_updates_ = 0;
  int num_retrains_ = 0;
  std::optional<FitReport> last_fit_;
};

std::unique_ptr<PaCMCostModel> MakePaCMModel(const DeviceProfile& device,
                                             const PaCMModelOptions& options = {});

}  // namespace pruner

#endif  // PRUNER_COMMON_MODEL_PACM_MODEL_H_
