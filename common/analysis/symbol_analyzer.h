// The Symbol-based Analyzer of Pruner's Latent Schedule Explorer (paper
// §4.1, Eq. 1; ../shared/specs/pruner.md §2): the draft model that estimates a
// schedule's latency from hardware-aware symbols and penalties, with no
// learned parameters, fast enough to score thousands of candidates per
// search round. GPU programs follow the paper (the public code behind a
// switch, analyzer_options.h); CPU programs get a CPU variant of the same
// symbols and penalties. The choices are listed in symbol_analyzer.cc.
//
//   U_p = T_p x prod P_li,c        U_m = T_m x prod P_li,m
//   L_c = S8 / U_p                 L_m = S5 / U_m
//   L   = sum over rows of (L_c + L_m)            (or max, as the code)
//
// Typical use (one analyzer per device and options; thread-safe):
//   absl::StatusOr<SymbolAnalyzer> analyzer = SymbolAnalyzer::Create(device);
//   std::vector<absl::StatusOr<double>> seconds = analyzer->EstimateStates(states);
#ifndef PRUNER_COMMON_ANALYSIS_SYMBOL_ANALYZER_H_
#define PRUNER_COMMON_ANALYSIS_SYMBOL_ANALYZER_H_

#include <string>
#include <utility>
#include <vector>

#include "absl/status/statusor.h"
#include "common/analysis/analyzer_options.h"
#include "common/analysis/machine_params.h"
#include "common/analysis/penalties.h"
#include "common/analysis/symbols.h"
#include "common/device/device_profile.h"
#include "common/lower/program.h"
#include "common/schedule/state.h"

namespace pruner {

struct RowLatency {
  RowPenalties penalties;
  double compute_s = 0;  // L_c
  double memory_s = 0;   // L_m
  double latency_s = 0;  // their sum (or max)
};

// Everything behind one estimate, for tests and debugging.
struct LatencyEstimate {
  double latency_s = 0;
  ProgramSymbols symbols;
  std::vector<RowLatency> rows;  // parallel to symbols.rows

  std::string ToString(const Program& program) const;
};

// Cycles of one CPU row on one core under the issue model
// (AnalyzerOptions::cpu_issue_model): instructions and DRAM traffic, before
// the parallel loops divide them over cores.
struct IssueCycles {
  double compute = 0;
  double memory = 0;
};
IssueCycles CpuIssueCycles(const BufferSymbols& row, const CpuIssueConstants& constants);

class SymbolAnalyzer {
 public:
  // FailedPrecondition when the profile lacks peak throughput (and, for
  // GPUs, bandwidth or SM count).
  static absl::StatusOr<SymbolAnalyzer> Create(const DeviceProfile& device,
                                               const AnalyzerOptions& options = {});

  // Estimated seconds of a program lowered for this analyzer's device.
  // InvalidArgument when the program targets the other kind of device or
  // does no work the analyzer can see (no flops, no traffic).
  absl::StatusOr<double> EstimateLatency(const Program& program) const;
  absl::StatusOr<LatencyEstimate> Analyze(const Program& program) const;

  // Lowers `state` for the device, then estimates. Lowering errors (an
  // invalid schedule) come back as they are.
  absl::StatusOr<double> EstimateState(const State& state) const;
  // EstimateState for every state, in order, on up to `num_threads` threads
  // (0 = hardware threads).
  std::vector<absl::StatusOr<double>> EstimateStates(const std::vector<State>& states,
                                                     int num_threads = 0) const;

  const DeviceProfile& device() const { return device_; }
  const AnalyzerOptions& options() const { return options_; }
  const MachineParams& machine() const { return machine_; }

 private:
  // A CPU row's time under the issue model (AnalyzerOptions::cpu_issue_model).
  void IssueLatency(const BufferSymbols& row, RowLatency* r) const;
  SymbolAnalyzer(DeviceProfile device, AnalyzerOptions options, MachineParams machine)
      : device_(std::move(device)), options_(options), machine_(std::move(machine)) {}

  DeviceProfile device_;
  AnalyzerOptions options_;
  MachineParams machine_;
};

// One-shot forms of the above (they resolve the device every call).
absl::StatusOr<double> EstimateLatency(const Program& program, const DeviceProfile& device,
                                       const AnalyzerOptions& options = {});
std::vector<absl::StatusOr<double>> EstimateStateLatencies(const std::vector<State>& states,
                                                           const DeviceProfile& device,
                                                           const AnalyzerOptions& options = {},
                                                           int num_threads = 0);

}  // namespace pruner

#endif  // PRUNER_COMMON_ANALYSIS_SYMBOL_ANALYZER_H_
