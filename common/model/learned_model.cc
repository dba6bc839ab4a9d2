#include "common/model/learned_model.h"

#include <limits>
#include <utility>

#include "absl/strings/str_cat.h"
#include "common/base/parallel_for.h"
#include "common/base/status_macros.h"
#include "common/features/statement_features.h"
#include "common/model/checkpoint.h"
#include "common/model/state_featurizer.h"

namespace pruner {

LearnedCostModel::LearnedCostModel(std::string name, const DeviceProfile& device,
                                   const LearnedModelOptions& options,
                                   RegressorFactory make_regressor, StateRows state_rows)
    : name_(std::move(name)),
      device_(device),
      options_(options),
      make_regressor_(std::move(make_regressor)),
      state_rows_(std::move(state_rows)),
      num_columns_(state_rows_.rows ? state_rows_.num_columns : kNumStatementFeatures),
      regressor_(make_regressor_()),
      warmup_(MakeRandomModel(options.seed)),
      packs_(num_columns_) {}

std::vector<absl::StatusOr<std::vector<float>>> LearnedCostModel::Featurize(
    int n, const std::function<const State&(int)>& state_at) const {
  std::vector<absl::StatusOr<std::vector<float>>> out;
  out.reserve(n);
  if (state_rows_.rows) {
    out.resize(n, absl::UnknownError("not featurized"));
    const int threads =
        options_.featurize_threads > 0 ? options_.featurize_threads : HardwareThreads();
    ParallelFor(n, threads, [&](int i) { out[i] = state_rows_.rows(state_at(i)); });
    return out;
  }
  for (auto& features : FeaturizeStates(n, state_at, device_, options_.featurize_threads)) {
    if (!features.ok()) {
      out.push_back(features.status());
      continue;
    }
    const std::span<const float> flat = FlatRows(*features);
    out.push_back(std::vector<float>(flat.begin(), flat.end()));
  }
  return out;
}

bool LearnedCostModel::ShouldRetrain() const {
  const int64_t n = static_cast<int64_t>(records_.size());
  if (n < options_.num_warmup_sample) return false;
  if (options_.adaptive_training && regressor_->IsTrained() && last_fit_size_ > 0) {
    return n - last_fit_size_ >= options_.adaptive_ratio * static_cast<double>(last_fit_size_);
  }
  return true;
}

absl::Status LearnedCostModel::Update(const std::vector<MeasuredState>& records) {
  if (records.empty()) return absl::OkStatus();
  const auto features = Featurize(
      static_cast<int>(records.size()), [&](int i) -> const State& { return records[i].state; });
  for (size_t i = 0; i < records.size(); ++i) {
    records_.push_back({records[i].workload_key, records[i].mean_cost_s, records[i].ok});
    if (features[i].ok() && !features[i]->empty()) {
      packs_.AddPack(*features[i]);
      record_of_pack_.push_back(static_cast<int>(records_.size()) - 1);
    } else {
      ++num_unfeaturized_;
    }
  }
  if (!ShouldRetrain()) return absl::OkStatus();

  const std::vector<float> record_labels = NormalizedThroughputLabels(records_);
  std::vector<float> labels(record_of_pack_.size());
  for (size_t p = 0; p < labels.size(); ++p) labels[p] = record_labels[record_of_pack_[p]];
  absl::StatusOr<FitReport> fit = regressor_->Fit(packs_, labels);
  if (absl::IsFailedPrecondition(fit.status())) {
    // Nothing learnable yet (e.g. every record failed): keep what we have
    // and try again with the next batch.
    return absl::OkStatus();
  }
  if (!fit.ok()) return fit.status();
  last_fit_ = *fit;
  last_fit_size_ = static_cast<int64_t>(records_.size());
  return absl::OkStatus();
}

std::vector<double> LearnedCostModel::Predict(const std::vector<State>& states) {
  if (!regressor_->IsTrained()) return warmup_->Predict(states);
  constexpr double kUnscorable = -std::numeric_limits<double>::infinity();
  std::vector<double> scores(states.size(), kUnscorable);
  const auto features = Featurize(static_cast<int>(states.size()),
                                  [&](int i) -> const State& { return states[i]; });
  PackedRows packs(num_columns_);
  std::vector<int> state_of_pack;
  for (size_t i = 0; i < states.size(); ++i) {
    if (!features[i].ok() || features[i]->empty()) continue;
    packs.AddPack(*features[i]);
    state_of_pack.push_back(static_cast<int>(i));
  }
  if (packs.num_packs() == 0) return scores;
  absl::StatusOr<std::vector<double>> pack_scores = regressor_->Predict(packs);
  // A learner failure leaves every state unscorable rather than inventing
  // scores; it cannot happen with a trained regressor and rows of its width.
  if (!pack_scores.ok()) return scores;
  for (size_t p = 0; p < state_of_pack.size(); ++p) scores[state_of_pack[p]] = (*pack_scores)[p];
  return scores;
}

int64_t LearnedCostModel::NumTrainingRecords() const {
  return records_.empty() ? loaded_records_ : static_cast<int64_t>(records_.size());
}

absl::StatusOr<std::string> LearnedCostModel::Save() const {
  ModelCheckpoint c;
  c.model = name_;
  c.device = device_.name;
  c.columns = num_columns_;
  c.records = NumTrainingRecords();
  if (regressor_->IsTrained()) {
    absl::StatusOr<std::string> payload = regressor_->Save();
    if (!payload.ok()) return payload.status();
    c.payload = *std::move(payload);
  }
  return EncodeCheckpoint(c);
}

absl::Status LearnedCostModel::Load(std::string_view blob) {
  PRUNER_ASSIGN_OR_RETURN(ModelCheckpoint c, DecodeCheckpoint(blob));
  if (c.model != name_) {
    return absl::InvalidArgumentError(
        absl::StrCat("checkpoint of a '", c.model, "' model, this is '", name_, "'"));
  }
  if (c.device != device_.name) {
    return absl::FailedPreconditionError(absl::StrCat(
        "checkpoint trained for device '", c.device, "', this model is for '", device_.name, "'"));
  }
  if (c.columns != num_columns_) {
    return absl::InvalidArgumentError(absl::StrCat("checkpoint has ", c.columns,
                                                   " features per row, expected ", num_columns_));
  }
  // Decode into a fresh regressor so that a bad payload changes nothing.
  std::unique_ptr<PackRegressor> fresh = make_regressor_();
  if (!c.payload.empty()) {
    PRUNER_RETURN_IF_ERROR(fresh->Load(c.payload));
  }
  regressor_ = std::move(fresh);
  loaded_records_ = c.records;
  records_.clear();
  packs_ = PackedRows(num_columns_);
  record_of_pack_.clear();
  num_unfeaturized_ = 0;
  last_fit_size_ = 0;
  last_fit_.reset();
  return absl::OkStatus();
}

}  // namespace pruner
