// Random sketch schedules for the feature tests that sweep operators.
#ifndef PRUNER_TESTS_FEATURES_RANDOM_STATES_H_
#define PRUNER_TESTS_FEATURES_RANDOM_STATES_H_

#include <cstdint>
#include <string>
#include <vector>

#include "common/device/device_profile.h"
#include "common/schedule/state.h"

namespace pruner::testing {

// A test-name-safe form of an operator case: "dense_M_128_K_256_gpu".
std::string OperatorCaseName(const char* spec, bool gpu);

// Up to `n` schedules of `spec` for `device`, each from a sketch drawn at
// random and annotated at random, with the sampler seeded by `seed` (10 * n
// attempts at most). Fails the test and returns none when the operator or
// its sketches cannot be built.
std::vector<State> SampleRandomStates(const std::string& spec, const DeviceProfile& device, int n,
                                      uint64_t seed);

}  // namespace pruner::testing

#endif  // PRUNER_TESTS_FEATURES_RANDOM_STATES_H_
