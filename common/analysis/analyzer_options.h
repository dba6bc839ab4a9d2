// Switches of the symbol-based analyzer (../shared/specs/pruner.md §2.5-§2.6).
//
// The defaults implement the paper's intent (ASPLOS'25 §4.1, Eq. 1): all
// six penalties, S7 and the memory-side penalties the public code dropped.
// CodeBehaviour() selects what Pruner's public code (`PSAModelInternal._inf`)
// does instead, term by term, so that the two can be compared; every
// difference is listed at the top of symbol_analyzer.cc.
#ifndef PRUNER_COMMON_ANALYSIS_ANALYZER_OPTIONS_H_
#define PRUNER_COMMON_ANALYSIS_ANALYZER_OPTIONS_H_

#include <array>
#include <string>
#include <string_view>

#include "absl/status/statusor.h"
#include "common/device/cpu_backend.h"

namespace pruner {

// The six penalty terms P_{li,*} of the paper (level li, c = compute,
// m = memory), plus the warp/lane waste alpha_l1 that the paper adds to
// P_l1,c "as a supplement".
enum class Penalty : int {
  kL0Compute = 0,  // P_l0,c: data reuse in registers
  kL1Compute,      // P_l1,c and alpha_l1: warp scheduling (GPU) / FMA chains and lanes (CPU)
  kL2Compute,      // P_l2,c: blocks over SMs (GPU) / parallel tasks over cores (CPU)
  kL0Memory,       // P_l0,m: register footprint over its capacity
  kL1Memory,       // P_l1,m: shared-memory (GPU) / L1 working set (CPU) over its capacity
  kL2Memory,       // P_l2,m: transfer length (S7) over the DRAM transaction / cache line
};
inline constexpr int kNumPenalties = 6;
inline constexpr std::array<Penalty, kNumPenalties> kAllPenalties = {
    Penalty::kL0Compute, Penalty::kL1Compute, Penalty::kL2Compute,
    Penalty::kL0Memory,  Penalty::kL1Memory,  Penalty::kL2Memory};
// "P_l0,c", "P_l1,m", ...
const char* PenaltyName(Penalty penalty);
inline bool IsComputePenalty(Penalty p) { return static_cast<int>(p) < 3; }

// How a row's compute and memory times combine.
enum class RowCombine {
  kSum,  // paper Eq. 1: L = sum_i (L_c^i + L_m^i)
  kMax,  // code: L = sum_i max(L_c^i, L_m^i) (a roofline per row)
};

// CPU issue model: the cycles one row costs, from the issue symbols
// (cpu_symbols.cc) of what the LLVM backend emits, instead of Eq. 1's flops
// over a penalized peak. The constants are device constants fitted on
// measured records (bench_dataset_metrics --calibrate; defaults: the fit on
// the developers' AMD EPYC dataset, bench/README.md "LSE on the CPU").
//   cycles = statement x statements x max(float ops per statement, 1)^ops_exponent
//          + load x loads + gather_lane x gathered lanes (on top of their load)
//          + store x stores + loop_iteration x loop iterations
//          + l2_miss_element x S5 (elements past the core's L2)
//          + dram_element x elements past the shared L3 (part of S5)
//          + l1_line x lines into L1 + l2_line x lines into L2
// divided by the cores the parallel loops keep busy (cores x P_l2,c).
//
// The fit gives statement = 0: on this CPU's random schedules the loads,
// stores and loop overhead of the emitted code decide the ranking, and the
// arithmetic never binds on its own. An element past the L2 that the L3
// serves costs 1/6 of a cycle, one DRAM serves 1 + 1/6; a line into L1
// costs 1 cycle; lines into L2 add nothing beyond those elements (the fit
// leaves l2_line 0). A gathered lane (a vector loop that strides a read,
// as over a stride-2 convolution's input) costs a second load on top of
// its own: both CPUs' fits choose gather_lane = 1 (session 31). Refitted
// in session 30 after the L3 level (session 28: the SLP and cache-line
// symbols).
struct CpuIssueConstants {
  double statement = 0;
  double ops_exponent = 0.25;
  double load = 1;
  double gather_lane = 1;
  double store = 2.0 / 3;
  double loop_iteration = 0.5;
  double l2_miss_element = 1.0 / 6;
  double dram_element = 1;
  double l1_line = 1;
  double l2_line = 0;
  // Cycles per step of an update's accumulator chains (issue_chain_steps).
  // 1: a step waits an FMA latency (4 cycles) minus what the out-of-order
  // core overlaps. The random-schedule datasets barely move it (fits
  // choose 0-0.25, held-out rho within 0.005); among tuned schedules it is
  // what ranks a 3x3 window summed into one accumulator (5.6 ms measured)
  // below the best ResNet convolutions (1.03 ms): bench/README.md,
  // "LSE on tuned schedules: loads the body really issues".
  // `pruner calibrate` fits it per device.
  double chain_step = 1;

  friend bool operator==(const CpuIssueConstants&, const CpuIssueConstants&) = default;
  std::string ToString() const;  // "statement=0.3 ops_exponent=0.5 ..." (6 digits)
  // The same names with every digit a double holds: the text a records
  // database stores (common/tune/draft_constants.h), read back exactly by
  // Parse.
  std::string Encode() const;
  // "name=value" pairs separated by spaces; names left out keep their
  // defaults. InvalidArgument on an unknown name, a repeated one, or a
  // value that is not a finite number >= 0.
  static absl::StatusOr<CpuIssueConstants> Parse(std::string_view text);
};

struct AnalyzerOptions {
  // Per-penalty switches, indexed by Penalty. A disabled penalty is 1.
  std::array<bool, kNumPenalties> penalties = {true, true, true, true, true, true};
  // Master switch for the three memory penalties (the code has none). When
  // false, P_l*,m are 1 whatever `penalties` says.
  bool use_memory_penalties = true;
  // Extract S7 (innermost transfer length); P_l2,m needs it. The code has
  // no S7; without it P_l2,m is 1.
  bool use_s7 = true;

  // Code: the register penalty max(S1 / reg_cap, 1) divides *compute*
  // throughput (and no register term touches memory). Paper: P_l0,m =
  // min(reg_cap / S1, 1) multiplies memory throughput.
  bool register_penalty_on_compute = false;
  // Code: warp scheduling is folded into the grid term ("peak_pen": for
  // grids smaller than the SM count the warps of a block, at most 4, count
  // as units over 4 x SMs; otherwise plain wave quantization over SMs).
  // Paper: P_l1,c and P_l2,c are separate factors. GPU only.
  bool fold_warp_scheduling_into_grid = false;
  RowCombine combine = RowCombine::kSum;
  // Paper: S5 is "the actual memory access of each statement": every
  // store pays for the global elements it reads and writes, so an
  // element-wise kernel, a fused epilogue or a reduction without shared
  // caching has a memory term, and a copy between local and shared memory
  // has none. Code: compute rows have no DRAM term at all, and other
  // non-shared stores count every element they write, whatever its scope.
  // GPU only (on CPUs every statement's traffic counts).
  bool count_actual_global_traffic = true;
  // Paper: "the number of float operators": comparisons, min/max and math
  // calls count as one operation each. Code: only float add/sub, mul and
  // div/mod count, so a max-ReLU has no flops and becomes a memory row.
  bool count_all_float_ops = true;
  // Code's units: DRAM elements divided by GB/s as if they were bytes, with
  // a 2^30 conversion (fp32 memory time under-weighted 4x). Paper: bytes
  // over 10^9 bytes/s.
  bool code_units = false;

  // CPU only: bandwidth (GB/s per physical core) assumed for traffic that
  // misses the core's L2 when the profile has no mem_bandwidth_gbps (the
  // detected local CPU never has one).
  double cpu_fallback_gbps_per_core = 20.0;

  // CPU only: estimate with the issue model (CpuIssueConstants) rather than
  // Eq. 1. The paper's analyzer has no CPU variant; Eq. 1 mapped onto a CPU
  // ranks our kernels barely better than chance (bench/README.md).
  bool cpu_issue_model = false;
  CpuIssueConstants cpu_issue;
  // CPU only: the compiler whose code the estimate describes. The issue symbols count
  // what the emitted code does, and where the two backends' code differs in
  // a way that changes the ranking, they count each one's:
  // - a read in a select's arm (a padding copy's `in bounds ? in[i] : 0`) is
  //   a branch around a scalar load in LLVM's code (cpu_llvm_codegen.cc,
  //   Guarded), which LLVM's SLP vectorizer does not pack; g++ if-converts it
  //   into a load and a blend (cpu_codegen.h), which packs like any other row;
  // - g++ prefers 256-bit vectors on Intel's AVX-512 cores, splits a partial
  //   vector into halving pieces, and keeps a reduction's accumulators in
  //   registers only at constant addresses (cpu_symbols.cc says how each is
  //   counted; MachineParams holds the switches).
  CpuBackend cpu_codegen = CpuBackend::kLlvm;

  bool enabled(Penalty p) const {
    if (!penalties[static_cast<int>(p)]) return false;
    if (!IsComputePenalty(p) && !use_memory_penalties) return false;
    if (p == Penalty::kL2Memory && !use_s7) return false;
    return true;
  }

  // The paper's analyzer (the defaults above).
  static AnalyzerOptions Paper() { return AnalyzerOptions(); }
  // Pruner's public code (../shared/specs/pruner.md §2.5), term by term.
  static AnalyzerOptions CodeBehaviour();
  // The paper's analyzer, with the CPU issue model for CPU targets (GPU
  // estimates are the paper's): what the draft model uses.
  static AnalyzerOptions Calibrated(const CpuIssueConstants& constants = {});
  // Table 10's ablations.
  AnalyzerOptions Without(Penalty p) const;
  AnalyzerOptions WithoutComputePenalties() const;
  AnalyzerOptions WithoutMemoryPenalties() const;

  // "paper", "code", or the paper with a list of what differs, e.g.
  // "paper -P_l1,m"; for logs and benchmark labels.
  std::string Describe() const;
};

}  // namespace pruner

#endif  // PRUNER_COMMON_ANALYSIS_ANALYZER_OPTIONS_H_
