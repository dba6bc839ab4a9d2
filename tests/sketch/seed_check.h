// What every seed-schedule test shares: the sketches of an operator, and
// the check that each schedule lowers for the device and, run by the
// interpreter on random inputs, computes what the reference executor does.
#ifndef PRUNER_TESTS_SKETCH_SEED_CHECK_H_
#define PRUNER_TESTS_SKETCH_SEED_CHECK_H_

#include <string>
#include <vector>

#include "common/ir/reference.h"
#include "common/ir/tensor.h"
#include "common/lower/interpreter.h"
#include "common/lower/lower.h"
#include "common/schedule/state.h"
#include "common/sketch/sketch.h"
#include "gtest/gtest.h"
#include "tests/sketch/test_support.h"

namespace pruner::testing {

inline std::vector<Sketch> SketchesOf(const std::string& spec, const DeviceProfile& device) {
  auto dag = Build(spec);
  EXPECT_NE(dag, nullptr);
  if (dag == nullptr) return {};
  auto sketches = GenerateSketches(dag, device);
  EXPECT_TRUE(sketches.ok()) << sketches.status();
  return sketches.ok() ? *std::move(sketches) : std::vector<Sketch>{};
}

// How often `what` occurs in `text` (a step in a sentence).
inline int CountOf(const std::string& text, const std::string& what) {
  int n = 0;
  for (size_t at = text.find(what); at != std::string::npos; at = text.find(what, at + 1)) ++n;
  return n;
}

inline void ExpectSeedsCompute(const std::string& spec, const std::vector<State>& seeds,
                               const DeviceProfile& device) {
  auto dag = Build(spec);
  ASSERT_NE(dag, nullptr);
  const std::vector<Tensor> inputs = RandomInputs(*dag, 11);
  auto want = RunReference(*dag, inputs);
  ASSERT_TRUE(want.ok()) << want.status();
  for (const State& seed : seeds) {
    SCOPED_TRACE(seed.ToSentence());
    auto program = Lower(seed, device);
    ASSERT_TRUE(program.ok()) << program.status();
    auto got = RunProgram(*program, inputs);
    ASSERT_TRUE(got.ok()) << got.status();
    ASSERT_EQ(got->size(), want->size());
    EXPECT_TRUE(CheckAllClose((*got)[0], (*want)[0], 1e-4, 1e-4).ok());
  }
}

}  // namespace pruner::testing

#endif  // PRUNER_TESTS_SKETCH_SEED_CHECK_H_
