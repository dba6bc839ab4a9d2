// The Symbol-based Analyzer: Eq. 1 over the rows of symbols.cc with the
// penalties of penalties.cc.
//
// Choices where the paper (ASPLOS'25 §4.1) and Pruner's public code
// (../shared/specs/pruner.md §2.5-§2.6) differ. The default follows the paper's
// intent; AnalyzerOptions::CodeBehaviour() switches every switchable one to
// the code.
//
// GPU, switchable (analyzer_options.h):
//  1. S7 and P_l2,m exist (paper); the code has neither [use_s7]. S7 is the
//     bytes of the innermost dimension the first warp touches per access
//     (threadIdx.x lanes and vectorized loops), over the DRAM sector.
//  2. Registers: P_l0,m = min(reg_cap / S1, 1) multiplies memory throughput
//     (paper), with S1 the largest of the kernel's compute rows, since
//     spills slow every transfer the kernel makes; the code instead divides
//     compute throughput by S1/reg_cap when S1 >= reg_cap
//     [register_penalty_on_compute].
//  3. P_l1,m = min(m_l1 / S3, 1) exists (paper), with S3 the shared bytes a
//     block allocates; the code computes a different S3 (elements fetched
//     over the whole kernel) and never uses it. m_l1 is our reading of "the
//     L1 allocation limit": the shared memory per SM divided by the blocks
//     its thread slots hold, i.e. the most a block may use before shared
//     memory rather than threads limits occupancy. (A per-block capacity
//     would never bind: lowering rejects blocks over 48 KiB.)
//     [use_memory_penalties switches all three memory penalties off]
//  4. P_l1,c and P_l2,c are separate factors (paper); the code folds warp
//     scheduling into its grid term peak_pen [fold_warp_scheduling_into_grid].
//  5. L = sum(L_c + L_m) (Eq. 1) versus the code's sum(max(L_c, L_m))
//     [combine]. Rows are mostly pure compute or pure memory, where the
//     two agree.
//  6. S5 is the actual global traffic of every store (paper: "the actual
//     memory access"), so element-wise kernels and fused epilogues pay for
//     memory; the code gives compute rows no DRAM term and charges memory
//     rows every element written, whatever its scope
//     [count_actual_global_traffic].
//  7. Flops count every float operator, comparisons, min/max and math
//     calls included (paper: "the number of float operators"); the code
//     counts add/sub, mul, div/mod only [count_all_float_ops].
//  8. Units: bytes over 10^9 B/s (paper); the code divides elements by
//     GB/s as if bytes, with 2^30 [code_units].
// GPU, not switchable:
//  9. P_l0,c = 1 / (1 + 1 / (1 + S2 / MemWorkload)) as in the code. The
//     paper writes 1 + S2/S1 as a factor of U_p, which is unbounded (it
//     would put U_p thousands of times above T_p for a GEMM); the code's
//     bounded form has the intended direction ("bigger is better") and its
//     denominator is the per-thread arithmetic intensity.
// 10. The switch for P_l1,c (Table 10 ablations) also removes alpha_l1,
//     its "supplement" in the paper. Under the code's folding, removing
//     P_l2,c removes all of peak_pen.
// 11. Rows are keyed by the written buffer and the last store wins, as in
//     the code; MemWorkload restarts per store (the code accumulates it
//     over stores of one buffer, which our lowering never emits twice).
//     Loop products skip every thread binding (the code skips the names
//     threadIdx.x and blockIdx.x only). "Loop v moves buffer B" is asked of
//     global coordinates (index + region_min), as the spec recommends for
//     an IR with tile-relative indices. Guards are transparent.
// 12. A program whose estimate is 0 (no flops, no traffic) or not finite is
//     an error, which the cost model scores -inf like an invalid schedule;
//     the code divides by zero there.
//
// CPU (the code has no CPU analyzer; this is our mapping of the paper's
// levels, detailed in cpu_symbols.cc and penalties.cc): cores are the L2
// parallel units (P_l2,c over the parallel loops), SIMD lanes and FMA
// pipes the L1 ones (alpha = lane use of the vectorized loop, P_l1,c =
// independent accumulators of the register tile against pipes x latency),
// the vector register file is m_l0, the L1 cache m_l1 for the reduction
// tile, and S5 is the traffic past the core's L2 by a capacity model, at
// the profile's DRAM bandwidth or an assumed 20 GB/s per core. The same
// switches apply; the GPU-only ones (4, 6) do nothing there.
//
// CPU, the issue model (AnalyzerOptions::cpu_issue_model, on in
// Calibrated() and so in the draft model): each row costs the cycles of
// the instructions the LLVM backend emits for it (issue symbols,
// cpu_symbols.cc) at fitted per-instruction constants, plus its traffic
// past L2, over the cores its parallel loops use (IssueLatency).
#include "common/analysis/symbol_analyzer.h"

#include <algorithm>
#include <atomic>
#include <cmath>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_format.h"
#include "common/base/parallel_for.h"
#include "common/base/status_macros.h"
#include "common/lower/lower.h"

namespace pruner {

absl::StatusOr<SymbolAnalyzer> SymbolAnalyzer::Create(const DeviceProfile& device,
                                                      const AnalyzerOptions& options) {
  PRUNER_ASSIGN_OR_RETURN(MachineParams machine, ResolveMachineParams(device, options));
  return SymbolAnalyzer(device, options, std::move(machine));
}

absl::StatusOr<LatencyEstimate> SymbolAnalyzer::Analyze(const Program& program) const {
  if (program.target != machine_.kind) {
    return absl::InvalidArgumentError(absl::StrCat("symbol analyzer for ", device_.name,
                                                   " got a program lowered for a ",
                                                   std::string(DeviceKindName(program.target))));
  }
  LatencyEstimate out;
  out.symbols = ExtractSymbols(program, machine_, options_);
  out.rows.resize(out.symbols.rows.size());
  // Code units: elements as bytes and GiB/s; paper units: bytes and GB/s.
  const double bandwidth_unit = options_.code_units ? 1073741824.0 : 1e9;
  for (size_t i = 0; i < out.rows.size(); ++i) {
    const BufferSymbols& row = out.symbols.rows[i];
    RowLatency& r = out.rows[i];
    r.penalties = ComputePenalties(row, out.symbols.kernels[row.kernel], machine_, options_);
    if (machine_.kind == DeviceKind::kCpu && options_.cpu_issue_model) {
      IssueLatency(row, &r);
    } else if (row.s8_total_flops > 0) {
      r.compute_s =
          row.s8_total_flops / (machine_.peak_gflops * r.penalties.compute_utilization() * 1e9);
    }
    if (row.s5_global_elements > 0 && !(machine_.kind == DeviceKind::kCpu && options_.cpu_issue_model)) {
      const double bytes = row.s5_global_elements * (options_.code_units ? 1 : row.elem_bytes);
      r.memory_s =
          bytes / (machine_.bandwidth_gbps * r.penalties.memory_utilization() * bandwidth_unit);
    }
    r.latency_s = options_.combine == RowCombine::kSum ? r.compute_s + r.memory_s
                                                       : std::max(r.compute_s, r.memory_s);
    out.latency_s += r.latency_s;
  }
  if (!(out.latency_s > 0) || !std::isfinite(out.latency_s)) {
    return absl::InvalidArgumentError(
        absl::StrCat("symbol analyzer: no measurable work (latency ", out.latency_s, ")"));
  }
  return out;
}

IssueCycles CpuIssueCycles(const BufferSymbols& row, const CpuIssueConstants& c) {
  const double ops = std::max(row.issue_float_ops, 1.0);
  IssueCycles out;
  out.compute = c.statement * row.issue_statements * std::pow(ops, c.ops_exponent) +
                c.load * row.issue_loads + c.gather_lane * row.issue_gathered_lanes +
                c.store * row.issue_stores +
                c.loop_iteration * row.issue_loop_iterations +
                c.chain_step * row.issue_chain_steps;
  out.memory = c.l2_miss_element * row.s5_global_elements +
               c.dram_element * row.issue_dram_elements + c.l1_line * row.issue_l1_lines +
               c.l2_line * row.issue_l2_lines;
  return out;
}

void SymbolAnalyzer::IssueLatency(const BufferSymbols& row, RowLatency* r) const {
  const IssueCycles cycles = CpuIssueCycles(row, options_.cpu_issue);
  // The parallel loops spread the row over cores x P_l2,c of them (1 when
  // the analyzer's device has one core or the row has no parallel loop).
  const double cores = std::max(1.0, machine_.l2_units * r->penalties.l2_compute);
  r->compute_s = cycles.compute / (machine_.clock_hz * cores);
  r->memory_s = cycles.memory / (machine_.clock_hz * cores);
}

absl::StatusOr<double> SymbolAnalyzer::EstimateLatency(const Program& program) const {
  PRUNER_ASSIGN_OR_RETURN(LatencyEstimate estimate, Analyze(program));
  return estimate.latency_s;
}

absl::StatusOr<double> SymbolAnalyzer::EstimateState(const State& state) const {
  PRUNER_ASSIGN_OR_RETURN(Program program, Lower(state, device_));
  return EstimateLatency(program);
}

std::vector<absl::StatusOr<double>> SymbolAnalyzer::EstimateStates(
    const std::vector<State>& states, int num_threads) const {
  const int n = static_cast<int>(states.size());
  std::vector<absl::StatusOr<double>> out(n, absl::UnknownError("not estimated"));
  if (num_threads <= 0) num_threads = HardwareThreads();
  // A thread start costs tens of microseconds, about one lowering.
  num_threads = std::min(num_threads, std::max(1, n / 8));
  ParallelFor(n, num_threads, [&](int i) { out[i] = EstimateState(states[i]); });
  return out;
}

std::string LatencyEstimate::ToString(const Program& program) const {
  std::string out = absl::StrFormat("latency %.6g s\n", latency_s);
  absl::StrAppend(&out, symbols.ToString(program));
  for (size_t i = 0; i < rows.size(); ++i) {
    const int buffer = symbols.rows[i].buffer;
    absl::StrAppendFormat(&out, "%s: L_c=%.4g s L_m=%.4g s | %s\n", program.buffer(buffer).name,
                          rows[i].compute_s, rows[i].memory_s, rows[i].penalties.ToString());
  }
  return out;
}

absl::StatusOr<double> EstimateLatency(const Program& program, const DeviceProfile& device,
                                       const AnalyzerOptions& options) {
  PRUNER_ASSIGN_OR_RETURN(SymbolAnalyzer analyzer, SymbolAnalyzer::Create(device, options));
  return analyzer.EstimateLatency(program);
}

std::vector<absl::StatusOr<double>> EstimateStateLatencies(const std::vector<State>& states,
                                                           const DeviceProfile& device,
                                                           const AnalyzerOptions& options,
                                                           int num_threads) {
  absl::StatusOr<SymbolAnalyzer> analyzer = SymbolAnalyzer::Create(device, options);
  if (!analyzer.ok()) {
    return std::vector<absl::StatusOr<double>>(states.size(), analyzer.status());
  }
  return analyzer->EstimateStates(states, num_threads);
}

}  // namespace pruner
