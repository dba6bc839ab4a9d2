// Helpers shared by the feature tests.
#ifndef PRUNER_TESTS_FEATURES_FEATURE_TEST_UTIL_H_
#define PRUNER_TESTS_FEATURES_FEATURE_TEST_UTIL_H_

#include <string>

#include "common/features/statement_features.h"
#include "common/lower/program.h"

namespace pruner::testing {

// "name=value" for every non-zero column, one per line: failure messages.
std::string DescribeRow(const StatementFeatures& row);

// The row of the buffer named `name` (rows come in first-store order, so
// the test finds it through the program). Fails the test and returns a zero
// row when that buffer has no row.
StatementFeatures RowOfBuffer(const Program& program, const ProgramFeatures& features,
                              const std::string& name);

// Expected value of a count column: sign(x) * log2(|x| + 1), as a float.
float SlogOf(double x);

}  // namespace pruner::testing

#endif  // PRUNER_TESTS_FEATURES_FEATURE_TEST_UTIL_H_
