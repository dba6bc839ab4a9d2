// The hardware-aware penalties of one row (paper §4.1): each is a factor in
// (0, 1] of the peak a row can use, compute penalties of T_p and memory
// penalties of T_m. penalties.cc gives the formulas for both targets.
#ifndef PRUNER_COMMON_ANALYSIS_PENALTIES_H_
#define PRUNER_COMMON_ANALYSIS_PENALTIES_H_

#include <string>

#include "common/analysis/analyzer_options.h"
#include "common/analysis/machine_params.h"
#include "common/analysis/symbols.h"

namespace pruner {

struct RowPenalties {
  double l0_compute = 1;  // P_l0,c
  double l1_compute = 1;  // P_l1,c
  double l1_waste = 1;    // alpha_l1 (switched with P_l1,c)
  double l2_compute = 1;  // P_l2,c (code: peak_pen)
  double l0_memory = 1;   // P_l0,m
  double l1_memory = 1;   // P_l1,m
  double l2_memory = 1;   // P_l2,m
  // Code only: compute throughput is divided by max(S1 / reg_cap, 1).
  double register_divisor = 1;

  // U_p / T_p and U_m / T_m.
  double compute_utilization() const {
    return l0_compute * l1_compute * l1_waste * l2_compute / register_divisor;
  }
  double memory_utilization() const { return l0_memory * l1_memory * l2_memory; }
  std::string ToString() const;
};

RowPenalties ComputePenalties(const BufferSymbols& row, const KernelSymbols& kernel,
                              const MachineParams& machine, const AnalyzerOptions& options);

}  // namespace pruner

#endif  // PRUNER_COMMON_ANALYSIS_PENALTIES_H_
