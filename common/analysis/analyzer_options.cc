#include "common/analysis/analyzer_options.h"

#include <algorithm>
#include <cmath>
#include <set>
#include <utility>
#include <vector>

#include "absl/strings/numbers.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_format.h"
#include "absl/strings/str_split.h"
#include "common/base/absl_compat.h"

namespace pruner {

const char* PenaltyName(Penalty penalty) {
  switch (penalty) {
    case Penalty::kL0Compute: return "P_l0,c";
    case Penalty::kL1Compute: return "P_l1,c";
    case Penalty::kL2Compute: return "P_l2,c";
    case Penalty::kL0Memory: return "P_l0,m";
    case Penalty::kL1Memory: return "P_l1,m";
    case Penalty::kL2Memory: return "P_l2,m";
  }
  return "P_?";
}

AnalyzerOptions AnalyzerOptions::CodeBehaviour() {
  AnalyzerOptions o;
  o.use_memory_penalties = false;
  o.use_s7 = false;
  o.register_penalty_on_compute = true;
  o.fold_warp_scheduling_into_grid = true;
  o.combine = RowCombine::kMax;
  o.count_actual_global_traffic = false;
  o.count_all_float_ops = false;
  o.code_units = true;
  return o;
}

AnalyzerOptions AnalyzerOptions::Calibrated(const CpuIssueConstants& constants) {
  AnalyzerOptions o;
  o.cpu_issue_model = true;
  o.cpu_issue = constants;
  return o;
}

namespace {

// Every constant by name, in the order ToString and Encode write them.
const std::vector<std::pair<const char*, double CpuIssueConstants::*>>& IssueConstantFields() {
  using C = CpuIssueConstants;
  static const auto* fields = new std::vector<std::pair<const char*, double C::*>>{
      {"statement", &C::statement},       {"ops_exponent", &C::ops_exponent},
      {"load", &C::load},                 {"gather_lane", &C::gather_lane},
      {"store", &C::store},               {"loop_iteration", &C::loop_iteration},
      {"l2_miss_element", &C::l2_miss_element}, {"dram_element", &C::dram_element},
      {"l1_line", &C::l1_line},           {"l2_line", &C::l2_line},
      {"chain_step", &C::chain_step},
  };
  return *fields;
}

// `digits` significant digits per value.
std::string JoinFields(const CpuIssueConstants& c, int digits) {
  std::string out;
  for (const auto& [name, field] : IssueConstantFields()) {
    if (!out.empty()) out += ' ';
    absl::StrAppend(&out, name, "=", absl::StrFormat("%.*g", digits, c.*field));
  }
  return out;
}

}  // namespace

std::string CpuIssueConstants::ToString() const { return JoinFields(*this, 6); }

std::string CpuIssueConstants::Encode() const { return JoinFields(*this, 17); }

absl::StatusOr<CpuIssueConstants> CpuIssueConstants::Parse(std::string_view text) {
  CpuIssueConstants out;
  std::set<std::string> seen;
  for (absl::string_view pair : absl::StrSplit(ToAbsl(text), ' ', absl::SkipWhitespace())) {
    const size_t eq = pair.find('=');
    const std::string name(pair.substr(0, eq));
    double value = 0;
    if (eq == absl::string_view::npos || !absl::SimpleAtod(pair.substr(eq + 1), &value) ||
        !std::isfinite(value) || value < 0) {
      return absl::InvalidArgumentError(
          absl::StrCat("issue constants: \"", pair, "\" is not name=value with a value >= 0"));
    }
    const auto& fields = IssueConstantFields();
    const auto it = std::find_if(fields.begin(), fields.end(),
                                 [&](const auto& f) { return name == f.first; });
    if (it == fields.end()) {
      return absl::InvalidArgumentError(absl::StrCat("issue constants: unknown name \"", name, "\""));
    }
    if (!seen.insert(name).second) {
      return absl::InvalidArgumentError(absl::StrCat("issue constants: \"", name, "\" given twice"));
    }
    out.*(it->second) = value;
  }
  return out;
}

AnalyzerOptions AnalyzerOptions::Without(Penalty p) const {
  AnalyzerOptions o = *this;
  o.penalties[static_cast<int>(p)] = false;
  return o;
}

AnalyzerOptions AnalyzerOptions::WithoutComputePenalties() const {
  AnalyzerOptions o = *this;
  for (Penalty p : kAllPenalties) {
    if (IsComputePenalty(p)) o.penalties[static_cast<int>(p)] = false;
  }
  // The code's register divisor is a compute-side term as well.
  o.register_penalty_on_compute = false;
  return o;
}

AnalyzerOptions AnalyzerOptions::WithoutMemoryPenalties() const {
  AnalyzerOptions o = *this;
  o.use_memory_penalties = false;
  return o;
}

std::string AnalyzerOptions::Describe() const {
  const AnalyzerOptions paper = Paper();
  const AnalyzerOptions code = CodeBehaviour();
  auto same_flags = [&](const AnalyzerOptions& o) {
    return use_memory_penalties == o.use_memory_penalties && use_s7 == o.use_s7 &&
           register_penalty_on_compute == o.register_penalty_on_compute &&
           fold_warp_scheduling_into_grid == o.fold_warp_scheduling_into_grid &&
           combine == o.combine && count_actual_global_traffic == o.count_actual_global_traffic &&
           count_all_float_ops == o.count_all_float_ops && code_units == o.code_units;
  };
  std::string out;
  if (same_flags(code)) {
    out = "code";
  } else {
    out = "paper";
    if (!use_memory_penalties) absl::StrAppend(&out, " -memory_penalties");
    if (!use_s7) absl::StrAppend(&out, " -s7");
    if (register_penalty_on_compute) absl::StrAppend(&out, " +register_penalty_on_compute");
    if (fold_warp_scheduling_into_grid) absl::StrAppend(&out, " +fold_warp_scheduling");
    if (combine != paper.combine) absl::StrAppend(&out, " +row_max");
    if (!count_actual_global_traffic) absl::StrAppend(&out, " -actual_global_traffic");
    if (!count_all_float_ops) absl::StrAppend(&out, " -all_float_ops");
    if (code_units) absl::StrAppend(&out, " +code_units");
  }
  for (Penalty p : kAllPenalties) {
    if (!penalties[static_cast<int>(p)]) absl::StrAppend(&out, " -", PenaltyName(p));
  }
  if (cpu_issue_model) {
    absl::StrAppend(&out, " +cpu_issue_model");
    if (!(cpu_issue == CpuIssueConstants{})) absl::StrAppend(&out, "(", cpu_issue.ToString(), ")");
    if (cpu_codegen == CpuBackend::kGcc) absl::StrAppend(&out, " +gcc_code");
  }
  if (cpu_fallback_gbps_per_core != paper.cpu_fallback_gbps_per_core) {
    absl::StrAppend(&out, " cpu_gbps_per_core=", cpu_fallback_gbps_per_core);
  }
  return out;
}

}  // namespace pruner
