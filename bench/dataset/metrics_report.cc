#include "bench/dataset/metrics_report.h"

#include <algorithm>
#include <cmath>
#include <cstdio>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_format.h"

namespace pruner::dataset {
namespace {

std::string Fixed(double v, int digits = 3) {
  return std::isnan(v) ? std::string("-") : absl::StrFormat("%.*f", digits, v);
}

double Median(std::vector<double> v) {
  std::sort(v.begin(), v.end());
  const size_t n = v.size();
  return n % 2 ? v[n / 2] : 0.5 * (v[n / 2 - 1] + v[n / 2]);
}

double MeanIgnoringNaN(const std::vector<double>& v) {
  double sum = 0;
  int n = 0;
  for (double x : v) {
    if (std::isnan(x)) continue;
    sum += x;
    ++n;
  }
  return n > 0 ? sum / n : std::nan("");
}

std::string Shorten(const std::string& s, size_t width) {
  return s.size() <= width ? s : s.substr(0, width - 3) + "...";
}

// "50..50 (0 of 8 whole)": the range of S_spec counts and how many
// workloads' S_spec is their whole dataset (Best_1 = 1 there by construction).
std::string CountsSummary(const SpecSize& size, const ReplayedDataset& data) {
  const auto [lo, hi] = std::minmax_element(size.counts.begin(), size.counts.end());
  int whole = 0;
  for (size_t w = 0; w < size.counts.size(); ++w) {
    whole += size.counts[w] >= static_cast<int>(data.workloads[w].states.size()) ? 1 : 0;
  }
  return absl::StrFormat("%d..%d (%d of %zu whole)", *lo, *hi, whole, size.counts.size());
}

void PrintBestKTable(const char* title, const LseEvaluation& lse, bool best5) {
  std::printf("\n%s\n| %-28s |", title, "S_spec size");
  for (const SpecSize& s : lse.sizes) std::printf(" %9s |", s.label.c_str());
  std::printf(best5 ? "\n" : " %8s |\n", "mean rho");
  std::printf("|%s|", std::string(30, '-').c_str());
  for (size_t i = 0; i < lse.sizes.size(); ++i) std::printf("%s|", std::string(11, '-').c_str());
  std::printf(best5 ? "\n" : "%s|\n", std::string(10, '-').c_str());
  auto row = [&](const BestKRow& r, bool with_rho) {
    std::printf("| %-28s |", r.label.c_str());
    for (const WeightedRatio& v : best5 ? r.best5 : r.best1) {
      std::printf(" %9s |", Fixed(v.value).c_str());
    }
    if (!best5) {
      std::printf(" %8s |", with_rho ? Fixed(MeanIgnoringNaN(r.spearman)).c_str() : "");
    }
    std::printf("\n");
  };
  for (const BestKRow& r : lse.analyzers) row(r, true);
  row(lse.random_expected, false);
  const std::vector<DrawStats>& draws = best5 ? lse.random_draws_best5 : lse.random_draws_best1;
  const int num_draws = draws.empty() ? 0 : draws[0].draws;
  std::printf("| %-28s |", absl::StrFormat("random, mean of %d draws", num_draws).c_str());
  for (const DrawStats& d : draws) std::printf(" %9s |", Fixed(d.mean).c_str());
  std::printf(best5 ? "\n" : " %8s |\n", "");
  std::printf("| %-28s |", "  (sd over draws)");
  for (const DrawStats& d : draws) std::printf(" %9s |", Fixed(d.stddev).c_str());
  std::printf(best5 ? "\n" : " %8s |\n", "");
  if (best5) {
    std::printf("workloads without a 5th best in S_spec (left out):");
    for (size_t i = 0; i < lse.sizes.size(); ++i) {
      std::printf(" %s:%d", lse.sizes[i].label.c_str(),
                  lse.analyzers.empty() ? 0 : lse.analyzers[0].best5[i].left_out);
    }
    std::printf("\n");
  }
}

}  // namespace

void ResultFields::Add(const std::string& key, const std::string& value) {
  fields_.emplace_back(key, value);
}

void ResultFields::Add(const std::string& key, double value) {
  Add(key, std::isnan(value) ? std::string("nan") : absl::StrFormat("%.4g", value));
}

std::string ResultFields::Line(const std::string& name) const {
  std::string line = absl::StrCat("RESULT ", name);
  for (const auto& [k, v] : fields_) absl::StrAppend(&line, " ", k, "=", v);
  return line;
}

void PrintDataset(const Dataset& data, const ReplayedDataset& replayed) {
  std::printf("Dataset on %s: %zu workloads, %lld schedules (%lld ok records, %lld repeats "
              "merged, %lld of them into medians; %lld failed and %lld busy-host records "
              "skipped; %d workloads without an ok record; %lld schedules that did not replay)\n",
              data.device.name.c_str(), replayed.workloads.size(),
              static_cast<long long>(replayed.NumStates()),
              static_cast<long long>(data.ok_records), static_cast<long long>(data.merged_repeats),
              static_cast<long long>(data.pooled_repeats),
              static_cast<long long>(data.failed_records),
              static_cast<long long>(data.busy_records), data.empty_workloads,
              static_cast<long long>(replayed.dropped));
  std::printf("| %-44s | %-18s | %6s | %9s | %10s | %10s | %11s |\n", "workload", "group", "weight",
              "schedules", "best ms", "median ms", "median/best");
  std::printf("|%s|%s|%s|%s|%s|%s|%s|\n", std::string(46, '-').c_str(),
              std::string(20, '-').c_str(), std::string(8, '-').c_str(),
              std::string(11, '-').c_str(), std::string(12, '-').c_str(),
              std::string(12, '-').c_str(), std::string(13, '-').c_str());
  for (const ReplayedWorkload& w : replayed.workloads) {
    const double best = *std::min_element(w.latency_s.begin(), w.latency_s.end());
    const double median = Median(w.latency_s);
    std::printf("| %-44s | %-18s | %6g | %9zu | %10.4f | %10.4f | %11.2f |\n",
                Shorten(w.name, 44).c_str(), Shorten(w.group, 18).c_str(), w.weight,
                w.states.size(), best * 1e3, median * 1e3, median / best);
  }
}

void PrintLse(const LseEvaluation& lse, const ReplayedDataset& data) {
  std::printf("\nLSE draft quality (Eq. 3): S_spec = the s measured schedules the analyzer ranks "
              "best; Best_k = sum w*L* / sum w*(k-th best measured latency in S_spec).\n");
  std::printf("S_spec counts per workload (min..max; whole = S_spec is all of it, Best_1 = 1 "
              "by construction):\n");
  for (const SpecSize& s : lse.sizes) {
    std::printf("  s=%-9s %s\n", s.label.c_str(), CountsSummary(s, data).c_str());
  }
  std::printf("schedules that did not lower: %lld; without an estimate per variant:",
              static_cast<long long>(lse.lowering_failures));
  for (const BestKRow& r : lse.analyzers) std::printf(" %lld", static_cast<long long>(r.unscored));
  std::printf("\n");
  PrintBestKTable("Best_1 (Table 10; mean rho = Spearman of estimated vs measured latency, "
                  "mean over workloads)",
                  lse, false);
  PrintBestKTable("Best_5", lse, true);

  std::printf("\nPer workload: Spearman rho of estimated vs measured latency, and L*/L of the "
              "analyzer's favourite schedule (random: L*/mean L)\n| %-40s |", "workload");
  const size_t shown = std::min<size_t>(lse.analyzers.size(), 4);
  for (size_t v = 0; v < shown; ++v) {
    std::printf(" %20s |", Shorten(lse.analyzers[v].label, 20).c_str());
  }
  std::printf(" %20s |\n", "random");
  for (size_t w = 0; w < data.workloads.size(); ++w) {
    std::printf("| %-40s |", Shorten(data.workloads[w].name, 40).c_str());
    for (size_t v = 0; v < shown; ++v) {
      const BestKRow& r = lse.analyzers[v];
      std::printf(" %20s |", absl::StrFormat("%6s %6s", Fixed(r.spearman[w], 2),
                                              Fixed(r.favourite[w], 3)).c_str());
    }
    std::printf(" %20s |\n", Fixed(lse.random_expected.favourite[w], 3).c_str());
  }
}

void PrintIssueFits(const LseEvaluation& lse) {
  if (lse.fold_fits.empty()) return;
  std::printf("\nCPU issue model fitted on these records (constants in cycles, normalized to "
              "load = 1; rho = mean Spearman):\n");
  for (size_t f = 0; f < lse.fold_fits.size(); ++f) {
    const IssueFit& fit = lse.fold_fits[f];
    std::printf("  fold %zu held out: %s  held-out rho %.3f (%d passes)\n", f,
                fit.constants.ToString().c_str(), fit.spearman, fit.passes);
  }
  std::printf("  all workloads:     %s  rho %.3f (%d passes)\n",
              lse.all_fit.constants.ToString().c_str(), lse.all_fit.spearman, lse.all_fit.passes);
  std::printf("  defaults:          %s\n", CpuIssueConstants{}.ToString().c_str());
}

void AddLseResults(const LseEvaluation& lse, ResultFields* result) {
  for (const BestKRow& r : lse.analyzers) {
    // Table-only variants have no key; the paper's analyzer reports every
    // size, the others s = 128 absolute and scaled.
    const std::string& key = r.result_key;
    if (key.empty()) continue;
    for (size_t i = 0; i < lse.sizes.size(); ++i) {
      const bool all_sizes = key == "lse" || key == "issue" || key == "issue_cv";
      const bool wanted = all_sizes || lse.sizes[i].key == "s128" ||
                          lse.sizes[i].key == "s128of4000";
      if (wanted) result->Add(absl::StrCat(key, "_best1_", lse.sizes[i].key), r.best1[i].value);
    }
    if (key == "lse") {
      for (size_t i = 0; i < lse.sizes.size(); ++i) {
        if (lse.sizes[i].key == "s128" || lse.sizes[i].key == "s128of4000") {
          result->Add(absl::StrCat("lse_best5_", lse.sizes[i].key), r.best5[i].value);
        }
      }
    }
    result->Add(absl::StrCat(key, "_spearman"), MeanIgnoringNaN(r.spearman));
  }
  for (size_t i = 0; i < lse.sizes.size(); ++i) {
    result->Add(absl::StrCat("random_best1_", lse.sizes[i].key), lse.random_draws_best1[i].mean);
  }
}

void PrintTopK(const std::string& title, const std::vector<ModelTopK>& models,
               const std::vector<Fold>& folds, const ReplayedDataset& data) {
  std::printf("\nLearned models, Top_k (Eq. 2) on %s; %zu folds:", title.c_str(), folds.size());
  for (const Fold& f : folds) {
    std::printf(" [%s:", f.label.c_str());
    for (int w : f.test) std::printf(" %s", Shorten(data.workloads[w].name, 28).c_str());
    std::printf("]");
  }
  std::printf("\n| %-16s | %8s | %13s | %7s | %7s | %15s | %9s | %11s |\n", "model", "fraction",
              "train records", "Top_1", "Top_5", "Top_1 per fold", "train s", "states/s");
  std::printf("|------------------|----------|---------------|---------|---------|-----------------|"
              "-----------|-------------|\n");
  for (const ModelTopK& m : models) {
    for (const TopKPoint& p : m.points) {
      const Spread spread = SpreadOf(p.fold_top1);
      std::printf("| %-16s | %7.0f%% | %13lld | %7s | %7s | %7s ± %5s | %9.1f | %11.0f |\n",
                  m.model.c_str(), p.fraction * 100, static_cast<long long>(p.train_records),
                  Fixed(p.top1.value).c_str(), Fixed(p.top5.value).c_str(),
                  Fixed(spread.mean).c_str(), Fixed(spread.sd).c_str(), p.train_s,
                  p.StatesPerSecond());
    }
    if (!m.error.empty()) std::printf("| %-16s | failed: %s\n", m.model.c_str(), m.error.c_str());
  }
  // What a model that ranks at random would get (all scores tied), on the
  // folds' workloads (all of them, unless --only-fold kept one fold).
  std::vector<ScoredWorkload> tied;
  for (const Fold& f : folds) {
    for (int i : f.test) {
      const ReplayedWorkload& w = data.workloads[i];
      tied.push_back({w.weight, w.latency_s, std::vector<double>(w.latency_s.size(), 0.0)});
    }
  }
  std::printf("| %-16s | %8s | %13s | %7s | %7s | %15s | %9s | %11s |\n", "random", "-", "-",
              Fixed(ExpectedTopK(tied, 1).value).c_str(), Fixed(ExpectedTopK(tied, 5).value).c_str(),
              "-", "-", "-");
  std::printf("(Top_k over every workload, each scored by the model of the fold that held it "
              "out; per fold: mean ± sd of the folds' own Top_1; train records and seconds "
              "summed over folds; states/s = held-out states scored per second of Predict; "
              "random = the expectation for a model whose scores are all equal)\n");
}

namespace {

struct TopOneTerm {
  int workload;
  double best, pick;  // latency: the best schedule's, the model's top-1 (expected over ties)
};

std::vector<TopOneTerm> TopOneTerms(const TopKPoint& point) {
  std::vector<TopOneTerm> terms;
  for (size_t i = 0; i < point.scored.size(); ++i) {
    const ScoredWorkload& w = point.scored[i];
    if (w.latency_s.empty()) continue;  // not held out by any fold
    terms.push_back({static_cast<int>(i), *std::min_element(w.latency_s.begin(), w.latency_s.end()),
                     ExpectedKthBestOfTop(w.latency_s, w.score, 1, 1)});
  }
  return terms;
}

const TopKPoint* FullDataPoint(const ModelTopK& m) {
  for (const TopKPoint& p : m.points) {
    if (p.fraction == 1.0) return &p;
  }
  return nullptr;
}

}  // namespace

double MeanTopOneRatio(const TopKPoint& point) {
  const std::vector<TopOneTerm> terms = TopOneTerms(point);
  if (terms.empty()) return std::nan("");
  double sum = 0;
  for (const TopOneTerm& t : terms) sum += t.best / t.pick;
  return sum / static_cast<double>(terms.size());
}

void PrintTopOneLosses(const std::string& title, const std::vector<ModelTopK>& models,
                       const ReplayedDataset& data, int worst) {
  std::printf("\nWhere Top_1 is lost on %s (fraction 100%%): a workload's share = "
              "w (pick - best) / Σ w pick; Top_1 = 1 - Σ shares\n",
              title.c_str());
  std::printf("| %-16s | %9s | %-44s | %6s | %9s | %9s | %6s |\n", "model", "mean b/p",
              "workload", "weight", "best ms", "pick ms", "share");
  std::printf("|------------------|-----------|----------------------------------------------|"
              "--------|-----------|-----------|--------|\n");
  for (const ModelTopK& m : models) {
    const TopKPoint* point = FullDataPoint(m);
    if (point == nullptr) continue;
    std::vector<TopOneTerm> terms = TopOneTerms(*point);
    double den = 0;
    for (const TopOneTerm& t : terms) den += data.workloads[t.workload].weight * t.pick;
    auto share = [&](const TopOneTerm& t) {
      return data.workloads[t.workload].weight * (t.pick - t.best) / den;
    };
    std::sort(terms.begin(), terms.end(),
              [&](const TopOneTerm& a, const TopOneTerm& b) { return share(a) > share(b); });
    const std::string mean = Fixed(MeanTopOneRatio(*point));
    for (int i = 0; i < worst && i < static_cast<int>(terms.size()); ++i) {
      const TopOneTerm& t = terms[i];
      const ReplayedWorkload& w = data.workloads[t.workload];
      std::printf("| %-16s | %9s | %-44s | %6.0f | %9.4f | %9.4f | %6.3f |\n",
                  i == 0 ? m.model.c_str() : "", i == 0 ? mean.c_str() : "",
                  Shorten(w.name, 44).c_str(), w.weight, t.best * 1e3, t.pick * 1e3, share(t));
    }
  }
}

void AddTopKResults(const std::vector<ModelTopK>& models, const std::string& prefix,
                    ResultFields* result) {
  for (const ModelTopK& m : models) {
    std::string name = m.model;
    std::replace(name.begin(), name.end(), '-', '_');
    name = prefix + name;
    for (const TopKPoint& p : m.points) {
      if (p.fraction != 1.0) continue;
      result->Add(absl::StrCat(name, "_top1"), p.top1.value);
      result->Add(absl::StrCat(name, "_top5"), p.top5.value);
      result->Add(absl::StrCat(name, "_top1_sd"), SpreadOf(p.fold_top1).sd);
      result->Add(absl::StrCat(name, "_top1_per_workload"), MeanTopOneRatio(p));
      result->Add(absl::StrCat(name, "_train_s"), p.train_s);
      result->Add(absl::StrCat(name, "_states_per_s"), p.StatesPerSecond());
    }
    for (const TopKPoint& p : m.points) {
      if (p.fraction == 1.0) continue;
      result->Add(absl::StrFormat("%s_top1_f%.0f", name, p.fraction * 100), p.top1.value);
    }
    if (!m.error.empty()) result->Add(absl::StrCat(name, "_error"), "1");
  }
}

}  // namespace pruner::dataset
