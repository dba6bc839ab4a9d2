#include "common/model/xgb_handles.h"

#include <xgboost/c_api.h>

#include <limits>

#include "absl/strings/str_cat.h"
#include "common/base/status_macros.h"

namespace pruner {

absl::Status XgbStatus(int rc, const char* what) {
  if (rc == 0) return absl::OkStatus();
  return absl::InternalError(absl::StrCat("xgboost ", what, ": ", XGBGetLastError()));
}

void XgbDMatrixFree::operator()(void* h) const { XGDMatrixFree(h); }
void XgbBoosterFree::operator()(void* h) const { XGBoosterFree(h); }

absl::StatusOr<XgbDMatrix> MakeXgbDMatrix(const float* values, int64_t rows, int64_t columns) {
  DMatrixHandle h = nullptr;
  PRUNER_RETURN_IF_ERROR(XgbStatus(
      XGDMatrixCreateFromMat(values, static_cast<bst_ulong>(rows), static_cast<bst_ulong>(columns),
                             std::numeric_limits<float>::quiet_NaN(), &h),
      "create DMatrix"));
  return XgbDMatrix(h);
}

absl::Status SetXgbFloatInfo(void* dmatrix, const char* field, const std::vector<float>& values) {
  return XgbStatus(XGDMatrixSetFloatInfo(dmatrix, field, values.data(),
                                         static_cast<bst_ulong>(values.size())),
                   field);
}

absl::Status SetXgbGroups(void* dmatrix, const std::vector<unsigned>& sizes) {
  return XgbStatus(
      XGDMatrixSetUIntInfo(dmatrix, "group", sizes.data(), static_cast<bst_ulong>(sizes.size())),
      "group");
}

absl::StatusOr<XgbBooster> MakeXgbBooster(void* train) {
  BoosterHandle raw = nullptr;
  DMatrixHandle cache[] = {train};
  PRUNER_RETURN_IF_ERROR(
      XgbStatus(XGBoosterCreate(train != nullptr ? cache : nullptr, train != nullptr ? 1 : 0, &raw),
                "create booster"));
  return XgbBooster(raw);
}

absl::Status SetXgbParam(void* booster, const char* name, const std::string& value) {
  return XgbStatus(XGBoosterSetParam(booster, name, value.c_str()), name);
}

absl::StatusOr<std::vector<float>> PredictXgbMargins(void* booster, void* dmatrix, int64_t rows,
                                                    bool training) {
  const std::string config = absl::StrCat(R"({"type": 1, "training": )",
                                          training ? "true" : "false",
                                          R"(, "iteration_begin": 0, "iteration_end": 0,)"
                                          R"( "strict_shape": false})");
  const bst_ulong* shape = nullptr;
  bst_ulong dim = 0;
  const float* out = nullptr;
  PRUNER_RETURN_IF_ERROR(XgbStatus(
      XGBoosterPredictFromDMatrix(booster, dmatrix, config.c_str(), &shape, &dim, &out),
      "predict"));
  // The result lives in the booster's thread-local buffer: copy it now.
  return std::vector<float>(out, out + rows);
}

absl::StatusOr<std::string> SaveXgbBooster(void* booster) {
  bst_ulong len = 0;
  const char* data = nullptr;
  // Universal binary JSON: XGBoost's own versioned model format (trees and
  // learner parameters; training knobs are not part of the model).
  PRUNER_RETURN_IF_ERROR(XgbStatus(
      XGBoosterSaveModelToBuffer(booster, R"({"format": "ubj"})", &len, &data), "save"));
  return std::string(data, len);
}

absl::StatusOr<XgbBooster> LoadXgbBooster(std::string_view bytes, int nthread) {
  if (bytes.empty()) return absl::InvalidArgumentError("xgboost: empty model");
  PRUNER_ASSIGN_OR_RETURN(XgbBooster booster, MakeXgbBooster(nullptr));
  PRUNER_RETURN_IF_ERROR(XgbStatus(
      XGBoosterLoadModelFromBuffer(booster.get(), bytes.data(), bytes.size()), "load"));
  PRUNER_RETURN_IF_ERROR(SetXgbParam(booster.get(), "nthread", absl::StrCat(nthread)));
  return booster;
}

absl::StatusOr<int> XgbNumFeatures(void* booster) {
  bst_ulong n = 0;
  PRUNER_RETURN_IF_ERROR(XgbStatus(XGBoosterGetNumFeature(booster, &n), "features"));
  return static_cast<int>(n);
}

}  // namespace pruner
