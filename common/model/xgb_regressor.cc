#include "common/model/xgb_regressor.h"

#include <xgboost/c_api.h>  // XGBoosterBoostOneIter, XGBoosterSlice

#include <algorithm>
#include <chrono>
#include <cmath>
#include <limits>
#include <thread>
#include <utility>
#include <vector>

#include "absl/strings/str_cat.h"
#include "common/base/status_macros.h"
#include "common/model/xgb_handles.h"

namespace pruner {
namespace {

absl::StatusOr<XgbDMatrix> MakeDMatrix(const PackedRows& packs) {
  return MakeXgbDMatrix(packs.values().data(), packs.num_rows(), packs.num_columns());
}

class XgbPackRegressor : public PackRegressor {
 public:
  explicit XgbPackRegressor(const XgbParams& params) : params_(params) {
    if (params_.nthread <= 0) params_.nthread = DefaultXgbThreads();
  }

  absl::StatusOr<FitReport> Fit(const PackedRows& packs, const std::vector<float>& labels) override;
  bool IsTrained() const override { return booster_ != nullptr; }
  absl::StatusOr<std::vector<double>> Predict(const PackedRows& packs) const override;
  absl::StatusOr<std::string> Save() const override;
  absl::Status Load(std::string_view bytes) override;

 private:
  absl::Status Configure(BoosterHandle b) const;

  XgbParams params_;
  XgbBooster booster_;
  int num_columns_ = 0;
};

absl::Status XgbPackRegressor::Configure(BoosterHandle b) const {
  const std::pair<const char*, std::string> settings[] = {
      {"max_depth", absl::StrCat(params_.max_depth)},
      {"gamma", absl::StrCat(params_.gamma)},
      {"min_child_weight", absl::StrCat(params_.min_child_weight)},
      {"eta", absl::StrCat(params_.eta)},
      {"tree_method", params_.tree_method},
      {"nthread", absl::StrCat(params_.nthread)},
      {"seed", absl::StrCat(params_.seed)},
      {"verbosity", "0"},
      // The objective only fixes the output transform (identity); gradients
      // are ours. Base score 0 so an empty ensemble sums to 0 for any pack
      // size instead of 0.5 per row.
      {"objective", "reg:squarederror"},
      {"base_score", "0"},
  };
  for (const auto& [name, value] : settings) {
    PRUNER_RETURN_IF_ERROR(SetXgbParam(b, name, value));
  }
  return absl::OkStatus();
}

absl::StatusOr<FitReport> XgbPackRegressor::Fit(const PackedRows& packs,
                                                const std::vector<float>& labels) {
  const auto start = std::chrono::steady_clock::now();
  if (static_cast<int>(labels.size()) != packs.num_packs()) {
    return absl::InvalidArgumentError(
        absl::StrCat("xgb: ", labels.size(), " labels for ", packs.num_packs(), " packs"));
  }
  if (params_.max_rounds < 1 || params_.early_stopping_rounds < 1) {
    return absl::InvalidArgumentError("xgb: max_rounds and early_stopping_rounds must be >= 1");
  }
  const std::vector<int> pack_of_row = packs.PackOfRow();
  std::vector<float> weight(packs.num_rows(), 1.0f);
  double total_weight = 0;
  for (int64_t r = 0; r < packs.num_rows(); ++r) {
    if (params_.weight_by_label) weight[r] = labels[pack_of_row[r]];
    total_weight += weight[r];
  }
  if (packs.num_rows() == 0 || total_weight <= 0) {
    return absl::FailedPreconditionError(
        "xgb: nothing to learn (no rows, or every row has weight 0: all labels are 0)");
  }

  PRUNER_ASSIGN_OR_RETURN(XgbDMatrix dtrain, MakeDMatrix(packs));
  PRUNER_ASSIGN_OR_RETURN(XgbBooster booster, MakeXgbBooster(dtrain.get()));
  PRUNER_RETURN_IF_ERROR(Configure(booster.get()));

  std::vector<float> grad(packs.num_rows()), hess(packs.num_rows());
  double best_rmse = std::numeric_limits<double>::infinity();
  int best_trees = 0, trees = 0;
  while (true) {
    PRUNER_ASSIGN_OR_RETURN(std::vector<float> rows,
                            PredictXgbMargins(booster.get(), dtrain.get(), packs.num_rows(), /*training=*/true));
    const std::vector<double> sums = packs.SumByPack(rows);
    if (trees > 0) {
      // Unweighted RMSE over packs, as upstream's pack_sum_rmse.
      double se = 0;
      for (int p = 0; p < packs.num_packs(); ++p) se += (sums[p] - labels[p]) * (sums[p] - labels[p]);
      const double rmse = std::sqrt(se / packs.num_packs());
      if (rmse < best_rmse - params_.early_stopping_tolerance) {
        best_rmse = rmse;
        best_trees = trees;
      } else if (trees - best_trees >= params_.early_stopping_rounds) {
        break;
      }
    }
    if (trees == params_.max_rounds) break;
    for (int64_t r = 0; r < packs.num_rows(); ++r) {
      const int p = pack_of_row[r];
      grad[r] = static_cast<float>((sums[p] - labels[p]) * weight[r]);
      hess[r] = weight[r];
    }
    if (absl::Status s = XgbStatus(XGBoosterBoostOneIter(booster.get(), dtrain.get(), grad.data(),
                                                         hess.data(), packs.num_rows()),
                                   "boost");
        !s.ok()) {
      return s;
    }
    ++trees;
  }
  if (best_trees < trees) {
    BoosterHandle sliced = nullptr;
    if (absl::Status s =
            XgbStatus(XGBoosterSlice(booster.get(), 0, best_trees, 1, &sliced), "slice");
        !s.ok()) {
      return s;
    }
    booster.reset(sliced);
  }
  booster_ = std::move(booster);
  num_columns_ = packs.num_columns();
  FitReport report;
  report.iterations = best_trees;
  report.train_loss = best_rmse;
  report.seconds =
      std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  return report;
}

absl::StatusOr<std::vector<double>> XgbPackRegressor::Predict(const PackedRows& packs) const {
  if (!booster_) return absl::FailedPreconditionError("xgb: predict before training");
  if (packs.num_columns() != num_columns_) {
    return absl::InvalidArgumentError(absl::StrCat("xgb: model has ", num_columns_,
                                                   " features, data has ", packs.num_columns()));
  }
  if (packs.num_rows() == 0) return std::vector<double>(packs.num_packs(), 0.0);
  PRUNER_ASSIGN_OR_RETURN(XgbDMatrix dmat, MakeDMatrix(packs));
  PRUNER_ASSIGN_OR_RETURN(std::vector<float> rows,
                          PredictXgbMargins(booster_.get(), dmat.get(), packs.num_rows(), /*training=*/false));
  return packs.SumByPack(rows);
}

absl::StatusOr<std::string> XgbPackRegressor::Save() const {
  if (!booster_) return absl::FailedPreconditionError("xgb: save before training");
  return SaveXgbBooster(booster_.get());
}

absl::Status XgbPackRegressor::Load(std::string_view bytes) {
  PRUNER_ASSIGN_OR_RETURN(XgbBooster booster, LoadXgbBooster(bytes, params_.nthread));
  PRUNER_ASSIGN_OR_RETURN(num_columns_, XgbNumFeatures(booster.get()));
  booster_ = std::move(booster);
  return absl::OkStatus();
}

}  // namespace

int DefaultXgbThreads() {
  const int hw = static_cast<int>(std::thread::hardware_concurrency());
  return std::max(1, hw / 2);
}

std::unique_ptr<PackRegressor> MakeXgbPackRegressor(const XgbParams& params) {
  return std::make_unique<XgbPackRegressor>(params);
}

}  // namespace pruner
