#include "bench/dataset/lse_evaluation.h"

#include <algorithm>
#include <atomic>
#include <cmath>
#include <limits>
#include <numeric>
#include <optional>
#include <utility>

#include "absl/strings/str_cat.h"
#include "common/base/parallel_for.h"
#include "common/analysis/symbol_analyzer.h"
#include "common/base/status_macros.h"
#include "common/lower/lower.h"

namespace pruner::dataset {
namespace {

constexpr double kInf = std::numeric_limits<double>::infinity();

// Lowering dominates an estimate's cost and every variant analyzes the same
// programs, so each state is lowered once.
struct LoweredDataset {
  std::vector<std::vector<std::optional<Program>>> programs;  // [workload][schedule]
  int64_t failures = 0;
};

LoweredDataset LowerAll(const ReplayedDataset& data, const DeviceProfile& device, int threads) {
  LoweredDataset out;
  std::vector<std::pair<int, int>> items;
  for (size_t w = 0; w < data.workloads.size(); ++w) {
    out.programs.emplace_back(data.workloads[w].states.size());
    for (size_t j = 0; j < data.workloads[w].states.size(); ++j) {
      items.emplace_back(static_cast<int>(w), static_cast<int>(j));
    }
  }
  std::atomic<int64_t> failures{0};
  ParallelFor(static_cast<int>(items.size()), threads, [&](int i) {
    const auto [w, j] = items[i];
    auto program = Lower(data.workloads[w].states[j], device);
    if (program.ok()) {
      out.programs[w][j] = *std::move(program);
    } else {
      ++failures;
    }
  });
  out.failures = failures.load();
  return out;
}

// Per workload, the estimated latency of each schedule (+inf: none).
std::vector<std::vector<double>> Estimate(const LoweredDataset& lowered,
                                          const SymbolAnalyzer& analyzer, int threads,
                                          int64_t* unscored) {
  std::vector<std::vector<double>> out;
  std::vector<std::pair<int, int>> items;
  for (size_t w = 0; w < lowered.programs.size(); ++w) {
    out.emplace_back(lowered.programs[w].size(), kInf);
    for (size_t j = 0; j < lowered.programs[w].size(); ++j) {
      items.emplace_back(static_cast<int>(w), static_cast<int>(j));
    }
  }
  std::atomic<int64_t> failures{0};
  ParallelFor(static_cast<int>(items.size()), threads, [&](int i) {
    const auto [w, j] = items[i];
    const std::optional<Program>& program = lowered.programs[w][j];
    if (!program.has_value()) {
      ++failures;
      return;
    }
    auto latency = analyzer.EstimateLatency(*program);
    if (latency.ok() && std::isfinite(*latency) && *latency > 0) {
      out[w][j] = *latency;
    } else {
      ++failures;
    }
  });
  *unscored = failures.load();
  return out;
}

std::vector<ScoredWorkload> Scored(const ReplayedDataset& data,
                                   const std::vector<std::vector<double>>* estimates) {
  std::vector<ScoredWorkload> out;
  for (size_t w = 0; w < data.workloads.size(); ++w) {
    ScoredWorkload s;
    s.weight = data.workloads[w].weight;
    s.latency_s = data.workloads[w].latency_s;
    s.score.assign(s.latency_s.size(), 0.0);  // no estimates: all tie (random draft)
    if (estimates != nullptr) {
      for (size_t j = 0; j < s.score.size(); ++j) {
        const double e = (*estimates)[w][j];
        s.score[j] = std::isfinite(e) ? 1.0 / e : -kInf;
      }
    }
    out.push_back(std::move(s));
  }
  return out;
}

BestKRow BestKOverSizes(std::string label, const std::vector<ScoredWorkload>& scored,
                        const std::vector<SpecSize>& sizes) {
  BestKRow row;
  row.label = std::move(label);
  for (const SpecSize& size : sizes) {
    row.best1.push_back(ExpectedBestK(scored, size.counts, 1));
    row.best5.push_back(ExpectedBestK(scored, size.counts, 5));
  }
  for (const ScoredWorkload& w : scored) {
    row.favourite.push_back(ExpectedBestK({w}, 1, 1).value);
  }
  return row;
}

// Every schedule's issue-model rows (symbols and cores), for fitting.
std::vector<IssueWorkload> IssueData(const ReplayedDataset& data, const LoweredDataset& lowered,
                                     const SymbolAnalyzer& analyzer, int threads) {
  std::vector<IssueWorkload> out(data.workloads.size());
  std::vector<std::pair<int, int>> items;
  for (size_t w = 0; w < data.workloads.size(); ++w) {
    out[w].latency_s = data.workloads[w].latency_s;
    out[w].schedules.resize(data.workloads[w].states.size());
    for (size_t j = 0; j < data.workloads[w].states.size(); ++j) {
      items.emplace_back(static_cast<int>(w), static_cast<int>(j));
    }
  }
  ParallelFor(static_cast<int>(items.size()), threads, [&](int i) {
    const auto [w, j] = items[i];
    const std::optional<Program>& program = lowered.programs[w][j];
    if (!program.has_value()) return;
    auto estimate = analyzer.Analyze(*program);
    if (estimate.ok()) out[w].schedules[j] = IssueRowsOf(*estimate, analyzer.machine());
  });
  return out;
}

}  // namespace

DeviceProfile AnalyzerDevice(const DeviceProfile& device, int kernel_threads) {
  if (device.IsGpu() || kernel_threads <= 0 || kernel_threads >= device.num_cores) return device;
  DeviceProfile d = device;
  const int physical = d.physical_cores > 0 ? d.physical_cores : d.num_cores;
  d.num_cores = kernel_threads;
  d.physical_cores = std::min(physical, kernel_threads);
  d.peak_gflops = device.peak_gflops * d.physical_cores / physical;
  d.notes = absl::StrCat(d.notes, d.notes.empty() ? "" : "; ", "restricted to ", kernel_threads,
                         " core(s): the kernels' OpenMP threads");
  return d;
}

std::vector<AnalyzerVariant> Table10Variants() {
  const AnalyzerOptions paper = AnalyzerOptions::Paper();
  std::vector<AnalyzerVariant> out = {
      {"LSE (paper)", paper, "lse", std::nullopt},
      {"LSE (public code)", AnalyzerOptions::CodeBehaviour(), "code", std::nullopt},
      {"LSE (CPU issue model)", AnalyzerOptions::Calibrated(), "issue", std::nullopt},
      {"w/o P_li,c (compute)", paper.WithoutComputePenalties(), "wo_compute", std::nullopt},
      {"w/o P_li,m (memory)", paper.WithoutMemoryPenalties(), "wo_memory", std::nullopt},
  };
  for (Penalty p : kAllPenalties) {
    out.push_back({absl::StrCat("w/o ", PenaltyName(p)), paper.Without(p), "", std::nullopt});
  }
  return out;
}

std::vector<SpecSize> MakeSpecSizes(const ReplayedDataset& data, const std::vector<int>& sizes,
                                    bool proportional, int space) {
  const std::vector<ScoredWorkload> plain = Scored(data, nullptr);
  std::vector<SpecSize> out;
  for (int s : sizes) {
    SpecSize size{absl::StrCat(s), absl::StrCat("s", s), s, {}};
    for (const ScoredWorkload& w : plain) {
      size.counts.push_back(ClippedSize(s, static_cast<int>(w.latency_s.size())));
    }
    out.push_back(std::move(size));
  }
  if (proportional) {
    for (int s : sizes) {
      SpecSize size{absl::StrCat(s, "/", space), absl::StrCat("s", s, "of", space), s,
                    ProportionalSpecSizes(plain, s, space)};
      for (size_t w = 0; w < plain.size(); ++w) {
        size.counts[w] = ClippedSize(size.counts[w], static_cast<int>(plain[w].latency_s.size()));
      }
      out.push_back(std::move(size));
    }
  }
  return out;
}

absl::StatusOr<LseEvaluation> EvaluateLse(const ReplayedDataset& data, const DeviceProfile& device,
                                          const LseSettings& settings) {
  LseEvaluation out;
  out.sizes = MakeSpecSizes(data, settings.sizes, settings.proportional_sizes);
  const LoweredDataset lowered = LowerAll(data, device, settings.threads);
  out.lowering_failures = lowered.failures;

  for (const AnalyzerVariant& variant : settings.variants) {
    AnalyzerOptions options = variant.options;
    options.cpu_codegen = settings.codegen;
    PRUNER_ASSIGN_OR_RETURN(auto analyzer,
                            SymbolAnalyzer::Create(variant.device.value_or(device), options));
    int64_t unscored = 0;
    const auto estimates = Estimate(lowered, analyzer, settings.threads, &unscored);
    const std::vector<ScoredWorkload> scored = Scored(data, &estimates);
    BestKRow row = BestKOverSizes(variant.label, scored, out.sizes);
    row.unscored = unscored;
    row.result_key = variant.result_key;
    for (size_t w = 0; w < data.workloads.size(); ++w) {
      row.spearman.push_back(SpearmanCorrelation(estimates[w], data.workloads[w].latency_s));
    }
    out.analyzers.push_back(std::move(row));
  }

  if (settings.calibrate_folds > 0 && !device.IsGpu()) {
    AnalyzerOptions options = AnalyzerOptions::Calibrated();
    options.cpu_codegen = settings.codegen;
    PRUNER_ASSIGN_OR_RETURN(auto analyzer, SymbolAnalyzer::Create(device, options));
    const std::vector<IssueWorkload> issue = IssueData(data, lowered, analyzer, settings.threads);
    const int k = settings.calibrate_folds;
    std::vector<std::vector<double>> estimates(data.workloads.size());
    std::vector<int> all(issue.size());
    std::iota(all.begin(), all.end(), 0);
    for (int f = 0; f < k; ++f) {
      std::vector<int> train, test;
      for (int w : all) (w % k == f ? test : train).push_back(w);
      IssueFit fit = FitIssueConstants(issue, k > 1 ? train : test);
      for (int w : test) {
        estimates[w] = IssueEstimates(issue[w], fit.constants);
        for (double& e : estimates[w]) {
          if (!(e > 0)) e = kInf;  // no work to rank: last, as an unscored schedule
        }
      }
      fit.spearman = MeanIssueSpearman(issue, test, fit.constants);  // held out
      out.fold_fits.push_back(fit);
    }
    out.all_fit = FitIssueConstants(issue, all);
    BestKRow row = BestKOverSizes(
        absl::StrCat("LSE (CPU issue model, fitted on the other ", k > 1 ? k - 1 : 1, " fold",
                     k > 2 ? "s" : "", ")"),
        Scored(data, &estimates), out.sizes);
    row.result_key = "issue_cv";
    for (size_t w = 0; w < data.workloads.size(); ++w) {
      row.spearman.push_back(SpearmanCorrelation(estimates[w], data.workloads[w].latency_s));
    }
    out.analyzers.push_back(std::move(row));
  }

  const std::vector<ScoredWorkload> unscored = Scored(data, nullptr);
  out.random_expected = BestKOverSizes("random draft (expected)", unscored, out.sizes);
  for (size_t i = 0; i < out.sizes.size(); ++i) {
    const uint64_t seed = settings.seed + i;
    out.random_draws_best1.push_back(
        RandomDraftBestK(unscored, out.sizes[i].counts, 1, settings.draws, seed));
    out.random_draws_best5.push_back(
        RandomDraftBestK(unscored, out.sizes[i].counts, 5, settings.draws, seed));
  }
  return out;
}

}  // namespace pruner::dataset
