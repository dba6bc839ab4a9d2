#include "tests/analysis/analysis_test_util.h"

#include "common/ir/ops.h"
#include "common/lower/lower.h"
#include "gtest/gtest.h"
#include "tests/lower/lower_test_util.h"

namespace pruner::testing {

absl::StatusOr<Program> LowerSteps(const std::string& spec, const std::string& steps,
                                   const DeviceProfile& device) {
  auto dag = Share(BuildOperator(spec));
  if (dag == nullptr) return absl::InvalidArgumentError("bad operator " + spec);
  absl::StatusOr<State> state = ReplayText(dag, steps);
  if (!state.ok()) return state.status();
  return Lower(*state, device);
}

int RowIndexOf(const Program& program, const ProgramSymbols& symbols, const std::string& name) {
  for (size_t i = 0; i < symbols.rows.size(); ++i) {
    if (program.buffer(symbols.rows[i].buffer).name == name) return static_cast<int>(i);
  }
  return -1;
}

BufferSymbols RowOf(const Program& program, const ProgramSymbols& symbols,
                    const std::string& name) {
  const int i = RowIndexOf(program, symbols, name);
  EXPECT_GE(i, 0) << "no row for " << name << "\n" << symbols.ToString(program);
  return i >= 0 ? symbols.rows[i] : BufferSymbols{};
}

Analyzed AnalyzeSteps(const std::string& spec, const std::string& steps,
                      const DeviceProfile& device, const AnalyzerOptions& options) {
  Analyzed out;
  absl::StatusOr<Program> program = LowerSteps(spec, steps, device);
  EXPECT_TRUE(program.ok()) << program.status();
  if (!program.ok()) return out;
  out.program = *std::move(program);
  absl::StatusOr<SymbolAnalyzer> analyzer = SymbolAnalyzer::Create(device, options);
  EXPECT_TRUE(analyzer.ok()) << analyzer.status();
  if (!analyzer.ok()) return out;
  absl::StatusOr<LatencyEstimate> estimate = analyzer->Analyze(out.program);
  EXPECT_TRUE(estimate.ok()) << estimate.status() << "\n" << out.program.ToString();
  if (estimate.ok()) out.estimate = *std::move(estimate);
  return out;
}

}  // namespace pruner::testing
