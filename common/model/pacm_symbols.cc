#include "common/model/pacm_symbols.h"

#include <algorithm>
#include <cmath>

#include "common/base/status_macros.h"

namespace pruner {
namespace {

float Log2p(double x) { return static_cast<float>(std::log2(1.0 + std::max(0.0, x))); }
float LogNanoseconds(double seconds) { return Log2p(seconds * 1e9); }

// The compute row with the most float work, else the row with the most
// traffic; -1 when there are no rows.
int MainRow(const ProgramSymbols& symbols) {
  int main = -1;
  for (size_t i = 0; i < symbols.rows.size(); ++i) {
    const BufferSymbols& r = symbols.rows[i];
    if (main < 0) {
      main = static_cast<int>(i);
      continue;
    }
    const BufferSymbols& m = symbols.rows[main];
    const bool r_computes = r.kind == RowKind::kCompute;
    const bool m_computes = m.kind == RowKind::kCompute;
    if (r_computes != m_computes) {
      if (r_computes) main = static_cast<int>(i);
    } else if (r_computes ? r.s8_total_flops > m.s8_total_flops
                          : r.s5_global_elements > m.s5_global_elements) {
      main = static_cast<int>(i);
    }
  }
  return main;
}

}  // namespace

std::optional<SymbolAnalyzer> PaCMSymbolAnalyzer(const DeviceProfile& device) {
  auto analyzer = SymbolAnalyzer::Create(device, AnalyzerOptions::Calibrated());
  if (!analyzer.ok()) return std::nullopt;
  return *std::move(analyzer);
}

ProgramSymbolVector ProgramSymbolsOf(const LatencyEstimate& estimate) {
  ProgramSymbolVector v{};
  const int main = MainRow(estimate.symbols);
  if (main >= 0) {
    const BufferSymbols& r = estimate.symbols.rows[main];
    const double raw[] = {r.issue_lanes,
                          r.issue_float_ops,
                          r.issue_statements,
                          r.issue_loads,
                          r.issue_gathered_lanes,
                          r.issue_stores,
                          r.issue_loop_iterations,
                          r.issue_chain_steps,
                          r.issue_l1_lines,
                          r.issue_l2_lines,
                          r.issue_dram_elements,
                          r.s1_registers,
                          r.reuse_elements > 0 ? r.reuse_flops / r.reuse_elements : 0.0,
                          r.s3_l1_bytes,
                          r.s4_l1_parallel,
                          r.register_tile_outputs,
                          r.s5_global_elements,
                          r.s6_l2_parallel,
                          r.s7_transfer_bytes,
                          r.s8_total_flops};
    static_assert(sizeof(raw) / sizeof(raw[0]) == 20);
    for (int i = 0; i < 20; ++i) v[i] = Log2p(raw[i]);
    v[20] = LogNanoseconds(estimate.rows[main].compute_s);
    v[21] = LogNanoseconds(estimate.rows[main].memory_s);
  }
  double compute = 0, memory = 0;
  for (const RowLatency& row : estimate.rows) {
    compute += row.compute_s;
    memory += row.memory_s;
  }
  v[22] = LogNanoseconds(compute);
  v[23] = LogNanoseconds(memory);
  v[24] = LogNanoseconds(estimate.latency_s);
  v[25] = Log2p(static_cast<double>(estimate.symbols.rows.size()));
  // The whole program's instructions and traffic: the epilogues and copies
  // the main row does not show (a fused GELU, a padded input's copy).
  constexpr int kSums = kProgramSymbolWidth - 26;
  double sums[kSums] = {};
  for (const BufferSymbols& r : estimate.symbols.rows) {
    const double each[] = {r.issue_statements, r.issue_loads,           r.issue_gathered_lanes,
                           r.issue_stores,     r.issue_loop_iterations, r.issue_l1_lines,
                           r.issue_l2_lines,   r.issue_dram_elements,   r.s5_global_elements,
                           r.s8_total_flops};
    static_assert(sizeof(each) / sizeof(each[0]) == kSums);
    for (int i = 0; i < kSums; ++i) sums[i] += each[i];
  }
  for (int i = 0; i < kSums; ++i) v[26 + i] = Log2p(sums[i]);
  return v;
}

absl::StatusOr<ProgramSymbolVector> ProgramSymbolsOf(const Program& program,
                                                     const SymbolAnalyzer& analyzer) {
  PRUNER_ASSIGN_OR_RETURN(LatencyEstimate estimate, analyzer.Analyze(program));
  return ProgramSymbolsOf(estimate);
}

}  // namespace pruner
