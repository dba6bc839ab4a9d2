// Random CPU schedules from the sketch rules and the annotation sampler, for
// every operator and both backends: each one must build, run and match the
// reference. A few
// per operator here; codegen_cpu_check runs as many as asked.
#include <cctype>
#include <filesystem>
#include <iostream>
#include <string>
#include <tuple>

#include "absl/strings/str_cat.h"
#include "common/device/device_profile.h"
#include "gtest/gtest.h"
#include "tests/codegen/cpu_check_util.h"

namespace pruner {
namespace {

// (operator spec, backend)
using Case = std::tuple<std::string, CpuBackend>;
class RandomCpuSchedules : public ::testing::TestWithParam<Case> {
 protected:
  void SetUp() override {
    // g++ takes more than the 60 s build limit on some F(4x4, 3x3)
    // schedules: their unrolled transforms print as 576 copies of a body
    // with nested conditional expressions, which the LLVM backend (the
    // default) folds as it emits them and g++ folds only after parsing.
    const auto& [spec, backend] = GetParam();
    if (backend == CpuBackend::kGcc && spec.find("tile=4") != std::string::npos) {
      GTEST_SKIP() << "F(4x4, 3x3) with g++: builds exceed the limit; the LLVM backend runs it";
    }
  }
};

TEST_P(RandomCpuSchedules, BuildRunAndMatchTheReference) {
  const std::string& spec = std::get<0>(GetParam());
  testing::CpuCheckOptions options;
  options.build.backend = std::get<1>(GetParam());
  options.num_schedules = 5;
  options.seed = 11;
  options.max_parallel_builds = 2;
  const std::string work_dir = testing::MakeWorkDir("random");
  absl::StatusOr<testing::CpuCheckCounts> counts =
      testing::CheckRandomCpuSchedules(spec, DetectLocalCpu(), options, work_dir);
  std::filesystem::remove_all(work_dir);
  ASSERT_TRUE(counts.ok()) << counts.status();
  std::cout << spec << ": " << counts->matched << " of " << counts->sampled
            << " sampled schedules built, ran and matched\n";
  EXPECT_GT(counts->sampled, 0);
  EXPECT_EQ(counts->matched, counts->sampled) << counts->first_failure;
}

// Split lengths redrawn so that most splits leave a tail: guards built too.
TEST_P(RandomCpuSchedules, NonDivisibleSplitsBuildRunAndMatch) {
  const std::string& spec = std::get<0>(GetParam());
  testing::CpuCheckOptions options;
  options.build.backend = std::get<1>(GetParam());
  options.num_schedules = 5;
  options.seed = 23;
  options.redraw_split_lengths = true;
  const std::string work_dir = testing::MakeWorkDir("redrawn");
  absl::StatusOr<testing::CpuCheckCounts> counts =
      testing::CheckRandomCpuSchedules(spec, DetectLocalCpu(), options, work_dir);
  std::filesystem::remove_all(work_dir);
  ASSERT_TRUE(counts.ok()) << counts.status();
  std::cout << spec << ": " << counts->matched << " of " << counts->sampled
            << " redrawn schedules built, ran and matched, " << counts->skipped
            << " over a limit\n";
  EXPECT_EQ(counts->matched + counts->skipped, counts->sampled) << counts->first_failure;
}

std::string CaseName(const ::testing::TestParamInfo<Case>& info) {
  std::string name = absl::StrCat(CpuBackendName(std::get<1>(info.param)), "_");
  for (char c : std::get<0>(info.param)) {
    if (std::isalnum(static_cast<unsigned char>(c)) != 0) {
      name.push_back(c);
    } else if (!name.empty() && name.back() != '_') {
      name.push_back('_');
    }
  }
  return name;
}

INSTANTIATE_TEST_SUITE_P(Operators, RandomCpuSchedules,
                         ::testing::Combine(::testing::ValuesIn(testing::CpuCheckOperators()),
                                            ::testing::Values(CpuBackend::kLlvm,
                                                              CpuBackend::kGcc)),
                         CaseName);

}  // namespace
}  // namespace pruner
