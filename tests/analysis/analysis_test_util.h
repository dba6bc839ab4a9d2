// Helpers shared by the analyzer tests.
#ifndef PRUNER_TESTS_ANALYSIS_ANALYSIS_TEST_UTIL_H_
#define PRUNER_TESTS_ANALYSIS_ANALYSIS_TEST_UTIL_H_

#include <string>

#include "absl/status/statusor.h"
#include "common/analysis/symbol_analyzer.h"
#include "common/device/device_profile.h"
#include "common/lower/program.h"
#include "tests/support/pinned_cpus.h"

namespace pruner::testing {

// BuildOperator(spec), the steps replayed, lowered for `device`.
absl::StatusOr<Program> LowerSteps(const std::string& spec, const std::string& steps,
                                   const DeviceProfile& device);

// The row of the buffer named `name`; fails the test and returns an empty
// row when there is none.
BufferSymbols RowOf(const Program& program, const ProgramSymbols& symbols,
                    const std::string& name);
// Index of that row in symbols.rows (-1 when absent).
int RowIndexOf(const Program& program, const ProgramSymbols& symbols, const std::string& name);

// A lowered program and the analyzer's estimate of it.
struct Analyzed {
  Program program;
  LatencyEstimate estimate;
};
// LowerSteps, then SymbolAnalyzer::Analyze with `options`; fails the test
// (and returns what it has) when a step fails.
Analyzed AnalyzeSteps(const std::string& spec, const std::string& steps,
                      const DeviceProfile& device, const AnalyzerOptions& options = {});

}  // namespace pruner::testing

#endif  // PRUNER_TESTS_ANALYSIS_ANALYSIS_TEST_UTIL_H_
