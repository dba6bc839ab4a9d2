#include "bench/dataset/model_topk.h"

#include <algorithm>
#include <chrono>
#include <cmath>
#include <map>
#include <numeric>
#include <random>
#include <regex>
#include <set>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_format.h"

namespace pruner::dataset {
namespace {

double SecondsSince(std::chrono::steady_clock::time_point start) {
  return std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
}

}  // namespace

uint64_t StableHash(const std::string& text) {
  uint64_t h = 1469598103934665603ull;
  for (unsigned char c : text) {
    h ^= c;
    h *= 1099511628211ull;
  }
  return h;
}

Spread SpreadOf(const std::vector<double>& values) {
  std::vector<double> finite;  // a fold without a k-th schedule gives NaN
  for (double v : values) {
    if (std::isfinite(v)) finite.push_back(v);
  }
  Spread s;
  if (finite.empty()) return s;
  for (double v : finite) s.mean += v / static_cast<double>(finite.size());
  if (finite.size() < 2) return s;
  double ss = 0;
  for (double v : finite) ss += (v - s.mean) * (v - s.mean);
  s.sd = std::sqrt(ss / static_cast<double>(finite.size() - 1));
  return s;
}

std::vector<Fold> MakeFolds(const ReplayedDataset& data, int folds, FoldBy by, int group_folds) {
  const int n = static_cast<int>(data.workloads.size());
  if (n < 2) return {};
  std::map<std::string, std::vector<int>> by_group;
  std::vector<std::string> group_order;
  for (int w = 0; w < n; ++w) {
    const std::string& g = data.workloads[w].group;
    if (!by_group.count(g)) group_order.push_back(g);
    by_group[g].push_back(w);
  }
  std::vector<Fold> out;
  if (by == FoldBy::kGroup && group_order.size() < 2) return out;
  if (by != FoldBy::kWorkload && group_order.size() >= 2) {
    if (group_folds <= 0 || group_folds >= static_cast<int>(group_order.size())) {
      for (const std::string& g : group_order) out.push_back({g, by_group[g]});
      return out;
    }
    std::sort(group_order.begin(), group_order.end(), [](const std::string& a, const std::string& b) {
      return StableHash(a) != StableHash(b) ? StableHash(a) < StableHash(b) : a < b;
    });
    out.resize(std::max(group_folds, 2));
    for (size_t i = 0; i < group_order.size(); ++i) {
      Fold& f = out[i % out.size()];
      f.label += (f.label.empty() ? "" : "+") + group_order[i];
      f.test.insert(f.test.end(), by_group[group_order[i]].begin(), by_group[group_order[i]].end());
    }
    for (Fold& f : out) std::sort(f.test.begin(), f.test.end());
    return out;
  }
  folds = std::clamp(folds, 2, n);
  std::vector<int> order(n);
  std::iota(order.begin(), order.end(), 0);
  std::sort(order.begin(), order.end(), [&](int a, int b) {
    const uint64_t ha = StableHash(data.workloads[a].key), hb = StableHash(data.workloads[b].key);
    return ha != hb ? ha < hb : data.workloads[a].key < data.workloads[b].key;
  });
  for (int f = 0; f < folds; ++f) out.push_back({absl::StrCat("fold ", f + 1), {}});
  for (int i = 0; i < n; ++i) out[i % folds].test.push_back(order[i]);
  for (Fold& f : out) std::sort(f.test.begin(), f.test.end());
  return out;
}

std::vector<int> TrainingSubset(const ReplayedWorkload& workload, double fraction, uint64_t seed) {
  const int n = static_cast<int>(workload.states.size());
  std::vector<int> order(n);
  std::iota(order.begin(), order.end(), 0);
  std::mt19937_64 rng(StableHash(workload.key) ^ seed);
  std::shuffle(order.begin(), order.end(), rng);
  const int keep = std::clamp(static_cast<int>(std::ceil(fraction * n - 1e-9)), 1, n);
  order.resize(keep);
  std::sort(order.begin(), order.end());
  return order;
}

ModelTopK EvaluateModel(const LearnedModelFactory& factory, const ReplayedDataset& data,
                        const DeviceProfile& device, const std::vector<Fold>& folds,
                        const TopKSettings& settings) {
  ModelTopK out;
  const std::regex train_matching(settings.train_matching.empty() ? ".*" : settings.train_matching);
  out.model = factory.name;
  auto own = settings.model_fractions.find(factory.name);
  const std::vector<double>& fractions =
      own != settings.model_fractions.end() ? own->second : settings.fractions;
  for (double fraction : fractions) {
    TopKPoint point;
    point.fraction = fraction;
    // Each workload is scored by the model of the fold that holds it out.
    std::vector<ScoredWorkload> scored(data.workloads.size());
    for (size_t f = 0; f < folds.size(); ++f) {
      const std::set<int> test(folds[f].test.begin(), folds[f].test.end());
      std::vector<MeasuredState> train;
      std::vector<int> train_workloads;
      for (size_t w = 0; w < data.workloads.size(); ++w) {
        if (test.count(static_cast<int>(w))) continue;
        const ReplayedWorkload& wl = data.workloads[w];
        if (!std::regex_search(wl.name, train_matching)) continue;
        train_workloads.push_back(static_cast<int>(w));
        for (int j : TrainingSubset(wl, fraction, settings.seed)) {
          train.push_back({wl.states[j], wl.key, wl.latency_s[j], true});
        }
      }
      if (train.empty()) {
        out.error = absl::StrCat(factory.name, " f=", fraction, " ", folds[f].label,
                                 ": no training workload matches '", settings.train_matching, "'");
        return out;
      }
      point.train_records += static_cast<int64_t>(train.size());
      std::set<std::string> held_out;
      for (int w : folds[f].test) held_out.insert(data.workloads[w].key);
      std::unique_ptr<CostModel> model = factory.make(device, held_out);
      auto start = std::chrono::steady_clock::now();
      if (absl::Status st = model->Update(train); !st.ok()) {
        out.error = absl::StrCat(factory.name, " f=", fraction, " ", folds[f].label, ": ",
                                 st.ToString());
        return out;
      }
      const double train_s = SecondsSince(start);
      point.train_s += train_s;
      start = std::chrono::steady_clock::now();
      std::vector<ScoredWorkload> fold_scored;
      for (int w : folds[f].test) {
        const ReplayedWorkload& wl = data.workloads[w];
        scored[w] = {wl.weight, wl.latency_s, model->Predict(wl.states)};
        fold_scored.push_back(scored[w]);
        point.predicted_states += static_cast<int64_t>(wl.states.size());
      }
      point.predict_s += SecondsSince(start);
      point.fold_top1.push_back(ExpectedTopK(fold_scored, 1).value);
      point.fold_top5.push_back(ExpectedTopK(fold_scored, 5).value);
      std::string fit;
      if (settings.report_fit) {
        // Every schedule of each training workload, the unseen ones of a
        // fraction below 1 included.
        std::vector<ScoredWorkload> fit_scored;
        for (int w : train_workloads) {
          const ReplayedWorkload& wl = data.workloads[w];
          fit_scored.push_back({wl.weight, wl.latency_s, model->Predict(wl.states)});
        }
        point.fold_fit_top1.push_back(ExpectedTopK(fit_scored, 1).value);
        fit = absl::StrFormat("; on its %zu training workloads Top_1 %.4f", train_workloads.size(),
                              point.fold_fit_top1.back());
      }
      if (settings.log) {
        settings.log(absl::StrFormat(
            "%s f=%.2f %s (%zu/%zu): trained on %zu records in %.1f s; its Top_1 %.4f, "
            "Top_5 %.4f%s",
            factory.name, fraction, folds[f].label, f + 1, folds.size(), train.size(), train_s,
            point.fold_top1.back(), point.fold_top5.back(), fit));
      }
    }
    point.top1 = ExpectedTopK(scored, 1);
    point.top5 = ExpectedTopK(scored, 5);
    point.scored = std::move(scored);
    out.points.push_back(point);
  }
  return out;
}

}  // namespace pruner::dataset
