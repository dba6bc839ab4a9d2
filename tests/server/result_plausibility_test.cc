// What the server refuses to believe of a worker: the reports of issue 16's
// rogue client (1e-30 s, 1e300 s, NaN, negative, zero, infinite, a
// 100,000-byte message) and their neighbours that are fine.
#include "server/result_plausibility.h"

#include <cmath>
#include <limits>
#include <string>

#include "gmock/gmock.h"
#include "gtest/gtest.h"

namespace pruner {
namespace {

using ::testing::HasSubstr;

v1::MeasureResult Ok(double mean_s) {
  v1::MeasureResult r;
  r.set_mean_s(mean_s);
  r.add_repeat_costs_s(mean_s);
  return r;
}

// A 32x32x32 matmul (65,536 FLOP) on a 234 GFLOP/s CPU with a 10 s deadline.
constexpr PlausibilityLimits kMatmul{65536, 234, 10};

TEST(ResultPlausibilityTest, RefusesWhatNoDeviceCanDo) {
  const double inf = std::numeric_limits<double>::infinity();
  const struct {
    double mean_s;
    const char* why;
  } cases[] = {
      {1e-30, "GFLOP/s on a device whose peak is 234 GFLOP/s"},
      {1e300, "longer than the run timeout of 10 s"},
      {std::nan(""), "mean_s nan"},
      {-1e-3, "mean_s -0.001"},
      {0, "mean_s 0"},
      {inf, "mean_s inf"},
  };
  for (const auto& c : cases) {
    v1::MeasureResult r = Ok(c.mean_s);
    const absl::Status s = CheckPlausible(kMatmul, &r);
    EXPECT_EQ(s.code(), absl::StatusCode::kFailedPrecondition) << c.mean_s;
    EXPECT_THAT(s.message(), HasSubstr(c.why)) << c.mean_s;
  }
}

TEST(ResultPlausibilityTest, AcceptsRealTimesUpToTwiceThePeak) {
  v1::MeasureResult r = Ok(65536 / 200e9);  // 200 GFLOP/s
  EXPECT_TRUE(CheckPlausible(kMatmul, &r).ok());
  r = Ok(65536 / 400e9);  // the profile's peak is an estimate
  EXPECT_TRUE(CheckPlausible(kMatmul, &r).ok());
  r = Ok(65536 / 500e9);
  EXPECT_FALSE(CheckPlausible(kMatmul, &r).ok());
  r = Ok(9.5);  // slow but inside the deadline
  EXPECT_TRUE(CheckPlausible(kMatmul, &r).ok());
  // No FLOPs or no peak known: only the other rules apply.
  r = Ok(1e-12);
  EXPECT_TRUE(CheckPlausible(PlausibilityLimits{0, 234, 10}, &r).ok());
  EXPECT_TRUE(CheckPlausible(PlausibilityLimits{65536, 0, 10}, &r).ok());
}

TEST(ResultPlausibilityTest, TheMeanMustBeTheMeanOfItsRepeats) {
  v1::MeasureResult r = Ok(1e-3);
  r.add_repeat_costs_s(3e-3);  // repeats average 2e-3
  EXPECT_THAT(CheckPlausible(kMatmul, &r).message(), HasSubstr("is not the mean of its repeats"));
  r = Ok(1e-3);
  r.add_repeat_costs_s(-1);
  EXPECT_THAT(CheckPlausible(kMatmul, &r).message(), HasSubstr("a repeat cost of -1 s"));
  r = Ok(1e-3);
  r.set_build_s(std::nan(""));
  EXPECT_THAT(CheckPlausible(kMatmul, &r).message(), HasSubstr("build_s nan"));
}

TEST(ResultPlausibilityTest, ErrorsNeedNoTimeButTheirTextIsCut) {
  v1::MeasureResult r;
  r.set_error(v1::MEASURE_ERROR_BUILD_ERROR);
  r.set_message(std::string(100000, 'x'));
  r.set_phase(std::string(1000, 'p'));
  EXPECT_TRUE(CheckPlausible(kMatmul, &r).ok());
  EXPECT_LT(r.message().size(), kMaxResultMessageBytes + 64);
  EXPECT_THAT(r.message(), HasSubstr("(95904 more bytes cut by the server)"));
  EXPECT_LT(r.phase().size(), kMaxResultFieldBytes + 64);
  r.set_error(static_cast<v1::MeasureError>(99));
  EXPECT_THAT(CheckPlausible(kMatmul, &r).message(), HasSubstr("unknown error code 99"));
}

}  // namespace
}  // namespace pruner
