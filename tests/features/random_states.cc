#include "tests/features/random_states.h"

#include <cctype>

#include "common/ir/ops.h"
#include "common/sketch/annotate.h"
#include "common/sketch/sketch.h"
#include "gtest/gtest.h"
#include "tests/lower/lower_test_util.h"

namespace pruner::testing {

std::string OperatorCaseName(const char* spec, bool gpu) {
  std::string name;
  for (const char* p = spec; *p != '\0'; ++p) {
    if (std::isalnum(static_cast<unsigned char>(*p))) {
      name.push_back(*p);
    } else if (!name.empty() && name.back() != '_') {
      name.push_back('_');
    }
  }
  return name + (gpu ? "_gpu" : "_cpu");
}

std::vector<State> SampleRandomStates(const std::string& spec, const DeviceProfile& device, int n,
                                      uint64_t seed) {
  auto dag = Share(BuildOperator(spec));
  if (dag == nullptr) return {};
  absl::StatusOr<std::vector<Sketch>> sketches = GenerateSketches(dag, device);
  EXPECT_TRUE(sketches.ok()) << sketches.status();
  if (!sketches.ok()) return {};
  Rng rng(seed);
  std::vector<State> states;
  for (int attempt = 0; static_cast<int>(states.size()) < n && attempt < 10 * n; ++attempt) {
    absl::StatusOr<State> s = SampleSchedule(rng.Choice(*sketches), device, rng);
    if (s.ok()) states.push_back(*std::move(s));
  }
  return states;
}

}  // namespace pruner::testing
