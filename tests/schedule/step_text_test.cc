#include <iostream>

#include "common/schedule/step.h"
#include "gtest/gtest.h"

namespace pruner {
namespace {

TEST(StepText, EveryStepKindRoundTrips) {
  const std::vector<Step> steps = {
      SplitStep(2, 0, 512, {8, std::nullopt, 4}),
      FollowSplitStep(3, 1, 0, 2),
      FollowFusedSplitStep(4, 0, {0, 1}, 1, true),
      FollowFusedSplitStep(4, 0, {2}, 0, false),
      ReorderStep(2, {2, 0, 1}),
      FuseStep(2, {0, 1, 2}),
      AnnotationStep(2, 0, IterAnnotation::kParallel),
      AnnotationStep(2, 1, IterAnnotation::kThreadX),
      AutoUnrollPragmaStep(2, 0, 512),
      ComputeAtStep(1, 2, 3),
      ComputeInlineStep(1),
      ComputeRootStep(1),
      CacheReadStep(0, "shared", {3, 4}),
      CacheWriteStep(2, "local"),
      RfactorStep(2, 3, 1),
  };
  const std::string sentence = StepsToString(steps);
  std::cout << sentence << "\n";
  auto parsed = ParseSteps(sentence);
  ASSERT_TRUE(parsed.ok()) << parsed.status();
  EXPECT_EQ(*parsed, steps);
  EXPECT_EQ(StepsToString(*parsed), sentence);
  EXPECT_EQ(StepToString(steps[0]), "SP 2 0 512 [8,?,4]");
  EXPECT_EQ(StepToString(steps[8]), "PR 2 0 auto_unroll_max_step$512");
}

TEST(StepText, EmptySentenceIsEmptySchedule) {
  auto parsed = ParseSteps("  ");
  ASSERT_TRUE(parsed.ok());
  EXPECT_TRUE(parsed->empty());
}

TEST(StepText, MalformedSentencesAreRejectedWithAReason) {
  const std::vector<std::pair<std::string, std::string>> cases = {
      {"XX 1 2", "unknown step tag 'XX'"},
      {"SP 1 0 64", "expected 4 fields"},
      {"SP 1 0 64 [0,4]", "not a positive integer"},
      {"SP 1 0 64 8,4", "is not a [list]"},
      {"SP a 0 64 [8]", "is not an integer"},
      {"AN 1 0 sideways", "unknown annotation 'sideways'"},
      {"CHR 1 texture [2]", "unknown scope 'texture'"},
      {"PR 1 0 unroll_everything", "unknown pragma"},
      {"FU 2 [0,x]", "not a non-negative integer"},
      {"CI 1; RE 2 [1,0", "step 1:"},
  };
  for (const auto& [text, expected] : cases) {
    auto parsed = ParseSteps(text);
    ASSERT_FALSE(parsed.ok()) << text;
    EXPECT_EQ(parsed.status().code(), absl::StatusCode::kInvalidArgument);
    EXPECT_NE(parsed.status().message().find(expected), absl::string_view::npos)
        << "for '" << text << "' got: " << parsed.status().message();
    std::cout << text << "  ->  " << parsed.status().message() << "\n";
  }
}

}  // namespace
}  // namespace pruner
