#include "common/model/pacm_model.h"

#include <limits>
#include <utility>

#include "absl/strings/str_cat.h"
#include "common/base/absl_compat.h"
#include "common/base/status_macros.h"
#include "common/model/pacm_checkpoint.h"
#include "common/model/pacm_symbols.h"
#include "common/model/state_featurizer.h"

namespace pruner {

std::string_view PaCMModeName(PaCMMode mode) {
  switch (mode) {
    case PaCMMode::kOnline: return "online";
    case PaCMMode::kMoA: return "moa";
    case PaCMMode::kOffline: return "offline";
  }
  return "?";
}

std::optional<PaCMMode> ParsePaCMMode(std::string_view name) {
  for (PaCMMode mode : {PaCMMode::kOnline, PaCMMode::kMoA, PaCMMode::kOffline}) {
    if (PaCMModeName(mode) == name) return mode;
  }
  return std::nullopt;
}

PaCMCostModel::PaCMCostModel(const DeviceProfile& device, const PaCMModelOptions& options)
    : device_(device), options_(options), analyzer_(PaCMSymbolAnalyzer(device)) {}

const SymbolAnalyzer* PaCMCostModel::SymbolSource() const {
  if (!analyzer_.has_value()) return nullptr;
  // Online mode trains fresh networks of the options' shape; the others
  // train and predict with the loaded one's.
  const bool fresh_reads = options_.mode == PaCMMode::kOnline && options_.network.symbol_hidden > 0;
  const bool loaded_reads = predictor_ != nullptr && predictor_->shape().symbol_hidden > 0;
  return fresh_reads || loaded_reads ? &*analyzer_ : nullptr;
}

std::string PaCMCostModel::Name() const { return std::string(kPaCMModelName); }

int PaCMCostModel::RetrainEvery() const {
  if (options_.retrain_every > 0) return options_.retrain_every;
  return options_.mode == PaCMMode::kMoA ? 4 : 1;
}

absl::Status PaCMCostModel::Update(const std::vector<MeasuredState>& records) {
  if (records.empty()) return absl::OkStatus();
  if (options_.mode == PaCMMode::kOffline) {
    if (predictor_ == nullptr) {
      return absl::FailedPreconditionError(
          "pacm offline mode: Load a trained checkpoint before tuning");
    }
    return absl::OkStatus();
  }
  if (options_.mode == PaCMMode::kMoA && siamese_ == nullptr) {
    return absl::FailedPreconditionError(
        "pacm moa mode: Load a pretrained checkpoint (the Siamese) before the first Update");
  }
  data_.Add(records, device_, options_.featurize_threads, SymbolSource());
  ++num_updates_;
  if (num_updates_ % RetrainEvery() != 0) return absl::OkStatus();
  return Retrain();
}

absl::Status PaCMCostModel::Retrain() {
  std::unique_ptr<PaCMNetwork> target;
  if (options_.mode == PaCMMode::kMoA) {
    target = siamese_->Clone();
  } else {
    PRUNER_ASSIGN_OR_RETURN(std::unique_ptr<PaCMNetwork> fresh,
                            PaCMNetwork::Create(options_.network, options_.training.schedule.seed));
    target = std::move(fresh);
  }
  const PaCMLabeledBatch data = data_.Batch();
  const double power = options_.training.schedule.list_weight_power;
  const std::vector<float> list_weights =
      power != 0 ? BestCostListWeights(data.workload_best_cost, power) : std::vector<float>();
  absl::StatusOr<FitReport> fit = target->Train(data.batch, data.labels, options_.training,
                                                &data.workload, power != 0 ? &list_weights : nullptr);
  if (absl::IsFailedPrecondition(fit.status())) {
    // Nothing to rank yet (e.g. one program, or every measurement failed):
    // keep predicting as before and try again with more data.
    return absl::OkStatus();
  }
  if (!fit.ok()) return fit.status();
  if (options_.mode == PaCMMode::kMoA) {
    PRUNER_RETURN_IF_ERROR(siamese_->MomentumUpdate(*target, options_.momentum));
  }
  predictor_ = std::move(target);
  predictor_device_ = device_.name;
  last_fit_ = *fit;
  ++num_retrains_;
  return absl::OkStatus();
}

std::vector<double> PaCMCostModel::Predict(const std::vector<State>& states) {
  auto features = FeaturizePaCMStates(
      static_cast<int>(states.size()), [&](int i) -> const State& { return states[i]; }, device_,
      options_.featurize_threads, SymbolSource());
  PaCMBatch batch;
  for (auto& f : features) {
    if (f.ok()) {
      batch.Add(*f);
    } else {
      batch.AddInvalid();
    }
  }
  if (predictor_ != nullptr) return predictor_->Score(batch, options_.training.num_threads);
  std::vector<double> scores(states.size(), -std::numeric_limits<double>::infinity());
  for (size_t i = 0; i < states.size(); ++i) {
    if (batch.valid[i]) scores[i] = 0.0;
  }
  return scores;
}

int64_t PaCMCostModel::NumTrainingRecords() const {
  return data_.size() > 0 ? data_.size() : loaded_records_;
}

absl::StatusOr<std::string> PaCMCostModel::Save() const {
  PaCMCheckpointContents c;
  c.device = predictor_ != nullptr ? predictor_device_ : device_.name;
  c.records = NumTrainingRecords();
  c.predictor = predictor_.get();
  c.siamese = siamese_.get();
  c.moa_updates = num_updates_;
  return EncodePaCMCheckpoint(c);
}

absl::Status PaCMCostModel::Load(std::string_view blob) {
  PRUNER_ASSIGN_OR_RETURN(PaCMCheckpoint c, DecodePaCMCheckpoint(blob));
  const bool any_device = options_.mode != PaCMMode::kOnline;
  if (!any_device && c.device != device_.name) {
    return absl::FailedPreconditionError(absl::StrCat(
        "pacm online mode: checkpoint trained for device '", c.device,
        "', this model is for '", device_.name, "' (moa and offline modes take any device)"));
  }
  if (any_device && c.predictor == nullptr) {
    return absl::FailedPreconditionError(
        absl::StrCat("pacm ", ToAbsl(PaCMModeName(options_.mode)),
                     " mode: the checkpoint holds no trained network"));
  }
  std::unique_ptr<PaCMNetwork> siamese;
  int64_t updates = 0;
  if (options_.mode == PaCMMode::kMoA) {
    if (c.siamese != nullptr) {
      // A MoA model's own checkpoint: resume where it stopped.
      siamese = std::move(c.siamese);
      updates = c.moa_updates;
    } else {
      // A pretrained model: it seeds the Siamese and predicts until the
      // first retrain.
      siamese = c.predictor->Clone();
    }
  }
  predictor_ = std::move(c.predictor);
  siamese_ = std::move(siamese);
  predictor_device_ = c.device;
  loaded_records_ = c.records;
  num_updates_ = updates;
  data_ = PaCMTrainingSet();
  num_retrains_ = 0;
  last_fit_.reset();
  return absl::OkStatus();
}

std::unique_ptr<PaCMCostModel> MakePaCMModel(const DeviceProfile& device,
                                             const PaCMModelOptions& options) {
  return std::make_unique<PaCMCostModel>(device, options);
}

}  // namespace pruner
