// Random schedules from the sketch rules and the annotation sampler, for
// several operators on a CPU and a GPU profile: every schedule the sampler
// accepts must lower, and its program must compute what the reference
// computes.
#include <cctype>
#include <iostream>
#include <ostream>
#include <map>
#include <string>

#include "common/ir/ops.h"
#include "common/ir/reference.h"
#include "common/lower/interpreter.h"
#include "common/lower/lower.h"
#include "common/sketch/annotate.h"
#include "common/sketch/sketch.h"
#include "gtest/gtest.h"
#include "tests/lower/lower_test_util.h"

namespace pruner {
namespace {

using testing::Share;

struct Case {
  const char* spec;
  bool gpu;
};

void PrintTo(const Case& c, std::ostream* os) { *os << c.spec << (c.gpu ? " gpu" : " cpu"); }

// "matmul_M33_K20_N17_gpu": the spec with every non-alphanumeric run as '_'.
std::string CaseName(const ::testing::TestParamInfo<Case>& info) {
  std::string name;
  for (const char* p = info.param.spec; *p != '\0'; ++p) {
    const bool alnum = std::isalnum(static_cast<unsigned char>(*p)) != 0;
    if (alnum) {
      name.push_back(*p);
    } else if (!name.empty() && name.back() != '_') {
      name.push_back('_');
    }
  }
  return name + (info.param.gpu ? "_gpu" : "_cpu");
}

class RandomSchedules : public ::testing::TestWithParam<Case> {};

TEST_P(RandomSchedules, LowerAndMatchTheReference) {
  const Case c = GetParam();
  auto dag = Share(BuildOperator(c.spec));
  ASSERT_NE(dag, nullptr);
  const DeviceProfile device = c.gpu ? testing::TestGpu() : testing::TestCpu();
  absl::StatusOr<std::vector<Sketch>> sketches = GenerateSketches(dag, device);
  ASSERT_TRUE(sketches.ok()) << sketches.status();
  Rng rng(2024);
  const std::vector<State> states = SampleInitPopulation(*sketches, device, 40, rng);
  ASSERT_FALSE(states.empty());
  const std::vector<Tensor> inputs = RandomInputs(*dag, 3);
  absl::StatusOr<std::vector<Tensor>> want = RunReference(*dag, inputs);
  ASSERT_TRUE(want.ok()) << want.status();
  std::map<std::string, int> errors;
  int checked = 0;
  for (const State& state : states) {
    absl::StatusOr<Program> program = Lower(state, device);
    if (!program.ok()) {
      ADD_FAILURE() << c.spec << ": " << program.status() << "\n" << state.ToSentence();
      continue;
    }
    absl::StatusOr<std::vector<Tensor>> got = RunProgram(*program, inputs);
    if (!got.ok()) {
      ADD_FAILURE() << c.spec << ": " << got.status() << "\n" << state.ToSentence() << "\n"
                    << program->ToString();
      continue;
    }
    for (size_t i = 0; i < got->size(); ++i) {
      absl::Status st = CheckAllClose((*got)[i], (*want)[i], 1e-4, 1e-4);
      if (!st.ok()) {
        ADD_FAILURE() << c.spec << ": " << st << "\n" << state.ToSentence() << "\n"
                      << program->ToString();
      }
    }
    ++checked;
  }
  std::cout << c.spec << (c.gpu ? " (gpu)" : " (cpu)") << ": " << checked << " of "
            << states.size() << " sampled schedules checked\n";
}

// The sampler only draws perfect tilings; here every split length of the
// sampled schedules is redrawn from [1, 7] (most no longer divide their
// extent), so the guards of non-divisible splits and overshooting regions
// get exercised. Draws that break a device limit are skipped.
TEST_P(RandomSchedules, NonDivisibleSplitsMatchTheReference) {
  const Case c = GetParam();
  auto dag = Share(BuildOperator(c.spec));
  ASSERT_NE(dag, nullptr);
  const DeviceProfile device = c.gpu ? testing::TestGpu() : testing::TestCpu();
  absl::StatusOr<std::vector<Sketch>> sketches = GenerateSketches(dag, device);
  ASSERT_TRUE(sketches.ok()) << sketches.status();
  Rng rng(77);
  const std::vector<State> states = SampleInitPopulation(*sketches, device, 40, rng);
  const std::vector<Tensor> inputs = RandomInputs(*dag, 5);
  absl::StatusOr<std::vector<Tensor>> want = RunReference(*dag, inputs);
  ASSERT_TRUE(want.ok()) << want.status();
  int checked = 0, skipped = 0;
  for (const State& sampled : states) {
    std::vector<Step> steps = sampled.steps();
    for (Step& step : steps) {
      if (step.kind != StepKind::kSplit) continue;
      for (size_t i = 0; i < step.lengths.size(); ++i) {
        // On GPUs, keep the vthread and thread levels of SSSRRSRS splits and
        // the single-length splits (thread and vector lengths) so that most
        // draws stay within the launch limits.
        if (c.gpu && (step.lengths.size() == 1 || (step.lengths.size() == 4 && i < 2))) continue;
        step.lengths[i] = 1 + rng.UniformInt(0, 6);
      }
    }
    absl::StatusOr<State> state = State::Replay(dag, steps);
    if (!state.ok()) {
      ++skipped;
      continue;
    }
    absl::StatusOr<Program> program = Lower(*state, device);
    if (!program.ok()) {
      EXPECT_EQ(program.status().code(), absl::StatusCode::kInvalidArgument)
          << program.status() << "\n" << state->ToSentence();
      ++skipped;
      continue;
    }
    absl::StatusOr<std::vector<Tensor>> got = RunProgram(*program, inputs);
    if (!got.ok()) {
      ADD_FAILURE() << c.spec << ": " << got.status() << "\n" << state->ToSentence() << "\n"
                    << program->ToString();
      continue;
    }
    for (size_t i = 0; i < got->size(); ++i) {
      absl::Status st = CheckAllClose((*got)[i], (*want)[i], 1e-4, 1e-4);
      if (!st.ok()) {
        ADD_FAILURE() << c.spec << ": " << st << "\n" << state->ToSentence() << "\n"
                      << program->ToString();
      }
    }
    ++checked;
  }
  std::cout << c.spec << (c.gpu ? " (gpu)" : " (cpu)") << ": " << checked
            << " redrawn schedules checked, " << skipped << " over a limit\n";
}

INSTANTIATE_TEST_SUITE_P(
    Operators, RandomSchedules,
    ::testing::Values(Case{"matmul:M=33,K=20,N=17", false}, Case{"matmul:M=33,K=20,N=17", true},
                      Case{"dense:M=16,K=32,N=24,bias=1,act=relu", false},
                      Case{"dense:M=16,K=32,N=24,bias=1,act=relu", true},
                      Case{"conv2d:N=1,C=4,H=9,W=9,K=8,R=3,S=3,stride=1,pad=1", false},
                      Case{"conv2d:N=1,C=4,H=9,W=9,K=8,R=3,S=3,stride=1,pad=1", true},
                      Case{"softmax:M=8,N=40", false}, Case{"softmax:M=8,N=40", true},
                      Case{"layer_norm:M=8,N=24", false}, Case{"layer_norm:M=8,N=24", true},
                      Case{"max_pool2d:C=3,H=9,W=9,kernel=3,stride=2,pad=1", false},
                      Case{"max_pool2d:C=3,H=9,W=9,kernel=3,stride=2,pad=1", true},
                      Case{"batch_matmul:B=2,M=12,K=16,N=10", false},
                      Case{"batch_matmul:B=2,M=12,K=16,N=10", true}),
    CaseName);

}  // namespace
}  // namespace pruner
