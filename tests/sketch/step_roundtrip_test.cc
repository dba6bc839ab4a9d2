// Schedules as text: every sampled or mutated schedule survives
// StepsToString -> ParseSteps unchanged, and bad sentences or steps fail
// with messages that say what is wrong.
#include <iostream>

#include "common/sketch/annotate.h"
#include "common/sketch/mutate.h"
#include "common/sketch/sketch.h"
#include "gtest/gtest.h"
#include "tests/sketch/test_support.h"

namespace pruner::testing {
namespace {

TEST(StepRoundTrip, TenThousandRandomSchedules) {
  Rng rng(2024);
  int checked = 0;
  std::vector<std::pair<std::shared_ptr<const ComputeDag>, std::vector<Sketch>>> cpu, gpu;
  for (const auto& spec : SmallWorkloads()) {
    auto dag = Build(spec);
    cpu.emplace_back(dag, *GenerateSketches(dag, TestCpu()));
    gpu.emplace_back(dag, *GenerateSketches(dag, TestGpu()));
  }
  const DeviceProfile devices[] = {TestCpu(), TestGpu()};
  int attempts = 0;
  while (checked < 10000 && attempts < 400000) {
    ++attempts;
    const bool on_gpu = rng.Below(2) == 1;
    const auto& [dag, sketches] = (on_gpu ? gpu : cpu)[rng.Below(cpu.size())];
    const DeviceProfile& device = devices[on_gpu ? 1 : 0];
    auto state = SampleSchedule(sketches[rng.Below(sketches.size())], device, rng);
    if (!state.ok()) continue;
    // Every other schedule is a mutant, so edited step lists are covered.
    if (checked % 2 == 1) {
      auto child = MutateRandom(*state, device, rng);
      if (child.ok()) state = std::move(child);
    }
    const std::string text = StepsToString(state->steps());
    auto parsed = ParseSteps(text);
    ASSERT_TRUE(parsed.ok()) << parsed.status() << "\n" << text;
    ASSERT_EQ(*parsed, state->steps()) << text;
    ASSERT_EQ(StepsToString(*parsed), text);
    ++checked;
  }
  EXPECT_EQ(checked, 10000);
}

TEST(StepRoundTrip, MalformedSentencesAreRejectedWithAReason) {
  for (const char* text : {
           "SP 2 0 24 [4,?; RE 2 [0,1]",          // unterminated list
           "SP 2 0 24 [4,0]",                     // zero length
           "XX 1 2",                              // unknown tag
           "AN 3 0 sideways",                     // unknown annotation
           "CA 3 4",                              // missing field
           "CHR 1 texture [2]",                   // unknown scope
           "PR 2 0 auto_unroll_max_step$-4",      // negative pragma
           "FU 2 [0,a]",                          // bad list item
       }) {
    auto steps = ParseSteps(text);
    EXPECT_FALSE(steps.ok()) << text;
    std::cout << text << "\n  -> " << steps.status() << "\n";
  }
}

TEST(StepRoundTrip, InvalidStepsAreRejectedOnReplay) {
  auto dag = Build("matmul:M=24,K=36,N=20");
  for (const char* text : {
           "SP 7 0 24 [4]",             // stage out of range
           "SP 2 5 24 [4]",             // iterator out of range
           "FU 2 [0,2]",                // not consecutive
           "CI 2",                      // a reduction cannot be inlined
           "RE 2 [0,0,1]",              // not a permutation
           "SP 0 0 24 [4]",             // a placeholder
           "AN 2 0 parallel; AN 2 0 vectorize",  // annotated twice
       }) {
    auto steps = ParseSteps(text);
    ASSERT_TRUE(steps.ok()) << text << ": " << steps.status();
    auto state = State::Replay(dag, *steps);
    EXPECT_FALSE(state.ok()) << text;
    std::cout << text << "\n  -> " << state.status() << "\n";
  }
}

}  // namespace
}  // namespace pruner::testing
