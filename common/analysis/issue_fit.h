// Fitting the CPU issue model's device constants (analyzer_options.h,
// CpuIssueConstants) to measured records: the handful of numbers that make
// the analyzer's ranking follow one CPU's timings.
//
// The objective is what the draft needs: the mean over workloads of
// Spearman's rho between estimated and measured latency. It is a step
// function of the constants, so the fit is a coordinate search: each
// constant in turn tries 0 and its value scaled by 2^k (k = -6..6; the
// exponent tries 0..1.5 in quarters), keeping any change that raises the
// objective, until a whole pass changes nothing. The estimate is invariant
// to scaling all constants together, so the result is normalized to
// load = 1 (when load is not 0) for reading.
//
// `pruner calibrate` fits them on a records database and stores them per
// device (common/tune/draft_constants.h); bench_dataset_metrics fits them
// on some workloads and scores the rest.
#ifndef PRUNER_COMMON_ANALYSIS_ISSUE_FIT_H_
#define PRUNER_COMMON_ANALYSIS_ISSUE_FIT_H_

#include <vector>

#include "common/analysis/analyzer_options.h"
#include "common/analysis/machine_params.h"
#include "common/analysis/symbol_analyzer.h"
#include "common/analysis/symbols.h"

namespace pruner {

// One row of a schedule's symbols and the cores its parallel loops use.
struct IssueRow {
  BufferSymbols symbols;
  double cores = 1;
};
struct IssueWorkload {
  // Per schedule, its rows; empty when the schedule has no estimate (it
  // ranks last, as in EvaluateLse).
  std::vector<std::vector<IssueRow>> schedules;
  std::vector<double> latency_s;  // measured, parallel to schedules
};

// The rows of one analyzed schedule, each with the cores its parallel loops
// keep busy (cores x P_l2,c, at least 1), as SymbolAnalyzer divides by.
std::vector<IssueRow> IssueRowsOf(const LatencyEstimate& estimate, const MachineParams& machine);

// The issue model's cycles for each schedule of `w` (+infinity: none).
std::vector<double> IssueEstimates(const IssueWorkload& w, const CpuIssueConstants& constants);

// Mean per-workload Spearman rho over `which` (workloads with fewer than 3
// schedules are left out).
double MeanIssueSpearman(const std::vector<IssueWorkload>& data, const std::vector<int>& which,
                         const CpuIssueConstants& constants);

struct IssueFit {
  CpuIssueConstants constants;
  double spearman = 0;  // the objective on the workloads it was fitted on
  int passes = 0;
};
IssueFit FitIssueConstants(const std::vector<IssueWorkload>& data, const std::vector<int>& which,
                           const CpuIssueConstants& start = {});

}  // namespace pruner

#endif  // PRUNER_COMMON_ANALYSIS_ISSUE_FIT_H_
