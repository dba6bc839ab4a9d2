// The check every seed-schedule test makes: each schedule lowers for the
// device and, run by the interpreter on random inputs, computes what the
// reference executor does.
#ifndef PRUNER_TESTS_SKETCH_SEED_CHECK_H_
#define PRUNER_TESTS_SKETCH_SEED_CHECK_H_

#include <string>
#include <vector>

#include "common/ir/reference.h"
#include "common/ir/tensor.h"
#include "common/lower/interpreter.h"
#include "common/lower/lower.h"
#include "common/schedule/state.h"
#include "gtest/gtest.h"
#include "tests/sketch/test_support.h"

namespace pruner::testing {

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
