#include "common/analysis/issue_fit.h"

#include <algorithm>
#include <cmath>
#include <limits>

#include "common/base/rank_correlation.h"
#include "common/analysis/symbol_analyzer.h"

namespace pruner {
namespace {

constexpr int kMaxPasses = 8;
constexpr double kMinGain = 1e-4;

// The constants the search moves, by pointer into a CpuIssueConstants.
std::vector<double CpuIssueConstants::*> ScaleConstants() {
  return {&CpuIssueConstants::statement, &CpuIssueConstants::load,
          &CpuIssueConstants::gather_lane, &CpuIssueConstants::store,
          &CpuIssueConstants::loop_iteration, &CpuIssueConstants::l2_miss_element,
          &CpuIssueConstants::dram_element,
          &CpuIssueConstants::l1_line, &CpuIssueConstants::l2_line,
          &CpuIssueConstants::chain_step};
}

CpuIssueConstants Normalized(CpuIssueConstants c) {
  if (!(c.load > 0)) return c;
  const double scale = 1 / c.load;
  for (double CpuIssueConstants::*field : ScaleConstants()) c.*field *= scale;
  return c;
}

}  // namespace

std::vector<IssueRow> IssueRowsOf(const LatencyEstimate& estimate, const MachineParams& machine) {
  std::vector<IssueRow> rows;
  rows.reserve(estimate.rows.size());
  for (size_t r = 0; r < estimate.rows.size(); ++r) {
    rows.push_back({estimate.symbols.rows[r],
                    std::max(1.0, machine.l2_units * estimate.rows[r].penalties.l2_compute)});
  }
  return rows;
}

std::vector<double> IssueEstimates(const IssueWorkload& w, const CpuIssueConstants& constants) {
  std::vector<double> out;
  out.reserve(w.schedules.size());
  for (const std::vector<IssueRow>& rows : w.schedules) {
    if (rows.empty()) {
      out.push_back(std::numeric_limits<double>::infinity());
      continue;
    }
    double cycles = 0;
    for (const IssueRow& r : rows) {
      const IssueCycles c = CpuIssueCycles(r.symbols, constants);
      cycles += (c.compute + c.memory) / r.cores;
    }
    out.push_back(cycles);
  }
  return out;
}

double MeanIssueSpearman(const std::vector<IssueWorkload>& data, const std::vector<int>& which,
                         const CpuIssueConstants& constants) {
  double sum = 0;
  int n = 0;
  for (int w : which) {
    if (data[w].latency_s.size() < 3) continue;
    const double rho = SpearmanCorrelation(IssueEstimates(data[w], constants), data[w].latency_s);
    if (std::isnan(rho)) continue;
    sum += rho;
    ++n;
  }
  return n > 0 ? sum / n : std::numeric_limits<double>::quiet_NaN();
}

IssueFit FitIssueConstants(const std::vector<IssueWorkload>& data, const std::vector<int>& which,
                           const CpuIssueConstants& start) {
  IssueFit fit;
  fit.constants = start;
  fit.spearman = MeanIssueSpearman(data, which, start);
  auto try_value = [&](double* field, double value) {
    const double saved = *field;
    *field = value;
    const double objective = MeanIssueSpearman(data, which, fit.constants);
    if (objective > fit.spearman + kMinGain) {
      fit.spearman = objective;
      return true;
    }
    *field = saved;
    return false;
  };
  for (fit.passes = 1; fit.passes <= kMaxPasses; ++fit.passes) {
    bool changed = false;
    for (double CpuIssueConstants::*field : ScaleConstants()) {
      double* value = &(fit.constants.*field);
      const double base = *value > 0 ? *value : 1.0;
      changed |= try_value(value, 0.0);
      for (int k = -6; k <= 6; ++k) {
        if (k != 0) changed |= try_value(value, base * std::ldexp(1.0, k));
      }
    }
    for (int q = 0; q <= 6; ++q) changed |= try_value(&fit.constants.ops_exponent, 0.25 * q);
    if (!changed) break;
  }
  fit.constants = Normalized(fit.constants);
  return fit;
}

}  // namespace pruner
