#include "server/result_plausibility.h"

#include <cmath>
#include <string>

#include "absl/strings/str_cat.h"

namespace pruner {
namespace {

constexpr double kDefaultRunTimeoutS = 10;  // as the worker's default

void Cut(std::string* text, size_t limit) {
  if (text->size() <= limit) return;
  const size_t dropped = text->size() - limit;
  text->resize(limit);
  absl::StrAppend(text, "... (", dropped, " more bytes cut by the server)");
}

absl::Status Implausible(const std::string& why) {
  return absl::FailedPreconditionError(absl::StrCat("implausible result: ", why));
}

bool FiniteNonNegative(double v) { return std::isfinite(v) && v >= 0; }

}  // namespace

absl::Status CheckPlausible(const PlausibilityLimits& limits, v1::MeasureResult* result) {
  Cut(result->mutable_message(), kMaxResultMessageBytes);
  Cut(result->mutable_phase(), kMaxResultFieldBytes);
  Cut(result->mutable_measured_by(), kMaxResultFieldBytes);
  if (!v1::MeasureError_IsValid(result->error())) {
    return Implausible(absl::StrCat("unknown error code ", result->error()));
  }
  if (!FiniteNonNegative(result->build_s()) || !FiniteNonNegative(result->run_s())) {
    return Implausible(absl::StrCat("build_s ", result->build_s(), ", run_s ", result->run_s()));
  }
  if (result->repeat_costs_s_size() > kMaxRepeatCosts) {
    return Implausible(absl::StrCat(result->repeat_costs_s_size(), " repeat costs (at most ",
                                    kMaxRepeatCosts, ")"));
  }
  if (result->error() != v1::MEASURE_ERROR_NONE) return absl::OkStatus();

  // A measured time: positive and finite, the mean of its repeats, possible
  // on the device, and shorter than the deadline the worker enforces.
  const double mean = result->mean_s();
  if (!std::isfinite(mean) || mean <= 0) {
    return Implausible(absl::StrCat("an ok result with mean_s ", mean));
  }
  double sum = 0;
  for (double c : result->repeat_costs_s()) {
    if (!std::isfinite(c) || c <= 0) return Implausible(absl::StrCat("a repeat cost of ", c, " s"));
    sum += c;
  }
  if (result->repeat_costs_s_size() > 0) {
    const double average = sum / result->repeat_costs_s_size();
    if (std::abs(average - mean) > 0.01 * average) {
      return Implausible(absl::StrCat("mean_s ", mean, " is not the mean of its repeats (",
                                      average, ")"));
    }
  }
  if (limits.flops > 0 && limits.peak_gflops > 0) {
    const double gflops = limits.flops / mean * 1e-9;
    if (gflops > kPeakMargin * limits.peak_gflops) {
      return Implausible(absl::StrCat(gflops, " GFLOP/s on a device whose peak is ",
                                      limits.peak_gflops, " GFLOP/s"));
    }
  }
  const double timeout = limits.run_timeout_s > 0 ? limits.run_timeout_s : kDefaultRunTimeoutS;
  if (mean > timeout) {
    return Implausible(absl::StrCat("one call took ", mean, " s, longer than the run timeout of ",
                                    timeout, " s the worker enforces"));
  }
  return absl::OkStatus();
}

}  // namespace pruner
