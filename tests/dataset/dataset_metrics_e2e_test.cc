// The dataset-metrics pipeline end to end on real measurements: a random
// search job measures a few dozen schedules of three small operators on this
// CPU (built, sandboxed, checked and timed by the local measurer) into an
// in-memory records database; then load, replay, LSE Best_k and XGBoost's
// Top_k run on it. The timings are real but taken with one short repeat on a
// possibly busy machine, so the test checks the pipeline's bookkeeping and
// cross-checks the numbers against independent recomputations, never their
// quality.
#include <algorithm>
#include <cmath>
#include <memory>
#include <numeric>
#include <set>
#include <string>
#include <string_view>

#include "bench/dataset/dataset_loader.h"
#include "bench/dataset/learned_models.h"
#include "bench/dataset/lse_evaluation.h"
#include "bench/dataset/model_topk.h"
#include "bench/dataset/replayed_dataset.h"
#include "common/analysis/symbol_analyzer.h"
#include "common/store/records_store.h"
#include "common/measure/measurer.h"
#include "common/tune/tuning_job.h"
#include "gtest/gtest.h"
#include "tests/tune/tune_test_util.h"

namespace pruner::dataset {
namespace {

// The measured database (~36 measurements, most of this test's time).
struct Measured {
  std::unique_ptr<RecordsStore> store;
  int64_t job_id = 0;
  DeviceProfile device;
};

Measured MeasureSchedules() {
  Measured out;
  auto store = RecordsStore::Open(":memory:");
  EXPECT_TRUE(store.ok()) << store.status();
  out.store = *std::move(store);
  out.device = LocalCpu();
  TuningOptions options = QuickOptions("random", 36, 12);  // one short repeat each
  options.name = "e2e-net";
  options.scheduler = "round-robin";
  options.measure.num_threads = 1;
  auto measurer = MakeLocalMeasurer(options.measure);
  std::vector<SearchTask> tasks = {OperatorTask("matmul:M=32,K=32,N=32", 2),
                                   OperatorTask("dense:M=16,K=64,N=32,bias=1,act=relu"),
                                   OperatorTask("matmul:M=64,K=64,N=64")};
  auto job = TuningJob::Create(out.store.get(), measurer.get(), tasks, out.device, options);
  EXPECT_TRUE(job.ok()) << job.status();
  if (!job.ok()) return out;
  EXPECT_TRUE((*job)->Run().ok());
  out.job_id = (*job)->id();
  return out;
}

void CheckLoad(const Measured& m, const Dataset& data, const ReplayedDataset& replayed) {
  auto records = m.store->JobRecords(m.job_id);
  ASSERT_TRUE(records.ok());
  int64_t ok = 0;
  for (const StoredRecord& r : *records) ok += r.result.ok() ? 1 : 0;
  ASSERT_GE(ok, 20) << "too few schedules ran correctly to test anything";
  EXPECT_EQ(data.ok_records, ok);
  EXPECT_EQ(data.ok_records + data.failed_records, static_cast<int64_t>(records->size()));
  EXPECT_EQ(data.NumSchedules(), ok - data.merged_repeats);
  ASSERT_EQ(replayed.workloads.size(), 3u);
  EXPECT_EQ(replayed.dropped, 0);
  EXPECT_EQ(data.kernel_threads, 1);  // the job's measure.num_threads
  EXPECT_EQ(replayed.workloads[0].weight, 2);
  EXPECT_EQ(replayed.workloads[1].weight, 1);
  for (const ReplayedWorkload& w : replayed.workloads) {
    EXPECT_EQ(w.group, "e2e-net");
    EXPECT_GE(w.states.size(), 2u) << w.name;
    for (double l : w.latency_s) EXPECT_GT(l, 0);
  }
}

void CheckLseAgainstADirectRanking(const Dataset& data, const ReplayedDataset& replayed) {
  LseSettings settings;
  settings.sizes = {1, 4, 1000};
  settings.proportional_sizes = false;
  settings.draws = 300;
  auto lse = EvaluateLse(replayed, data.device, settings);
  ASSERT_TRUE(lse.ok()) << lse.status();
  ASSERT_EQ(lse->analyzers.size(), Table10Variants().size());
  ASSERT_EQ(lse->sizes.size(), 3u);
  for (size_t w = 0; w < replayed.workloads.size(); ++w) {
    EXPECT_EQ(lse->sizes[2].counts[w], static_cast<int>(replayed.workloads[w].states.size()));
  }
  for (const BestKRow& row : lse->analyzers) {
    SCOPED_TRACE(row.label);
    // s = 1000 keeps every measured schedule: Best_1 is 1 by construction.
    EXPECT_DOUBLE_EQ(row.best1[2].value, 1.0);
    for (size_t i = 0; i < 3; ++i) {
      EXPECT_GT(row.best1[i].value, 0);
      EXPECT_LE(row.best1[i].value, 1.0 + 1e-12);
    }
    // Top-s sets are nested, so a larger S_spec never does worse.
    EXPECT_LE(row.best1[0].value, row.best1[1].value + 1e-12);
    EXPECT_LE(row.best1[1].value, row.best1[2].value + 1e-12);
    EXPECT_LE(row.best5[2].value, row.best1[2].value);
    ASSERT_EQ(row.spearman.size(), replayed.workloads.size());
    for (double rho : row.spearman) {
      if (!std::isnan(rho)) {
        EXPECT_LE(std::abs(rho), 1.0 + 1e-12);
      }
    }
  }

  // Independently: the paper analyzer's single favourite per workload (the
  // mean latency of its favourites if several tie).
  auto analyzer = SymbolAnalyzer::Create(data.device, AnalyzerOptions::Paper());
  ASSERT_TRUE(analyzer.ok());
  double num = 0, den = 0, random_den = 0;
  for (const ReplayedWorkload& w : replayed.workloads) {
    std::vector<double> est;
    for (const State& s : w.states) {
      auto e = analyzer->EstimateState(s);
      est.push_back(e.ok() && *e > 0 ? *e : INFINITY);
    }
    const double best_est = *std::min_element(est.begin(), est.end());
    double sum = 0;
    int ties = 0;
    for (size_t j = 0; j < est.size(); ++j) {
      if (est[j] == best_est) {
        sum += w.latency_s[j];
        ++ties;
      }
    }
    const double best = *std::min_element(w.latency_s.begin(), w.latency_s.end());
    num += w.weight * best;
    den += w.weight * sum / ties;
    random_den += w.weight * std::accumulate(w.latency_s.begin(), w.latency_s.end(), 0.0) /
                  static_cast<double>(w.latency_s.size());
  }
  EXPECT_NEAR(lse->analyzers[0].best1[0].value, num / den, 1e-9);
  // A random 1-schedule draft is, in expectation, the mean latency.
  EXPECT_NEAR(lse->random_expected.best1[0].value, num / random_den, 1e-9);
  EXPECT_DOUBLE_EQ(lse->random_draws_best1[2].mean, 1.0);
}

void CheckXgbTopKOnHeldOutWorkloads(const Dataset& data, const ReplayedDataset& replayed) {
  // One group (one job): folds by workload key, one workload each here.
  const std::vector<Fold> folds = MakeFolds(replayed, 4);
  ASSERT_EQ(folds.size(), 3u);
  std::multiset<int> tested;
  for (const Fold& f : folds) tested.insert(f.test.begin(), f.test.end());
  EXPECT_EQ(tested, (std::multiset<int>{0, 1, 2}));
  EXPECT_EQ(MakeFolds(replayed, 4)[0].test, folds[0].test);  // deterministic

  std::vector<LearnedModelFactory> models = LearnedModels({});
  ASSERT_FALSE(models.empty());
  ASSERT_EQ(models[0].name, "xgb");
  TopKSettings settings;
  settings.fractions = {0.5, 1.0};
  const ModelTopK xgb = EvaluateModel(models[0], replayed, data.device, folds, settings);
  ASSERT_TRUE(xgb.error.empty()) << xgb.error;
  ASSERT_EQ(xgb.points.size(), 2u);
  const int64_t total = replayed.NumStates();
  // Each workload trains the two folds that do not hold it out.
  EXPECT_EQ(xgb.points[1].train_records, 2 * total);
  int64_t half = 0;
  for (const Fold& f : folds) {
    for (size_t w = 0; w < replayed.workloads.size(); ++w) {
      if (std::find(f.test.begin(), f.test.end(), static_cast<int>(w)) != f.test.end()) continue;
      half += static_cast<int64_t>(std::ceil(0.5 * replayed.workloads[w].states.size() - 1e-9));
    }
  }
  EXPECT_EQ(xgb.points[0].train_records, half);
  for (const TopKPoint& p : xgb.points) {
    EXPECT_EQ(p.top1.workloads, 3);
    EXPECT_GT(p.top1.value, 0);
    EXPECT_LE(p.top1.value, 1.0 + 1e-12);
    EXPECT_GE(p.top5.value, p.top1.value - 1e-12);
  }

  // A fold evaluated alone (--only-fold) trains on the same records and
  // scores its workloads as in the full run; the others stay unscored.
  TopKSettings full;
  full.fractions = {1.0};
  const ModelTopK alone = EvaluateModel(models[0], replayed, data.device, {folds[1]}, full);
  ASSERT_TRUE(alone.error.empty()) << alone.error;
  ASSERT_EQ(alone.points.size(), 1u);
  EXPECT_EQ(alone.points[0].top1.workloads, static_cast<int>(folds[1].test.size()));
  for (size_t w = 0; w < replayed.workloads.size(); ++w) {
    const bool held_out = std::find(folds[1].test.begin(), folds[1].test.end(),
                                    static_cast<int>(w)) != folds[1].test.end();
    EXPECT_EQ(alone.points[0].scored[w].score,
              held_out ? xgb.points[1].scored[w].score : std::vector<double>{})
        << w;
  }

  // --train-matching: only the matching workloads train, and the fold's
  // held-out workloads are scored as before; --fit-top1: the fold model's
  // Top_1 on the workloads it trained on.
  const int trained = folds[1].test[0] == 0 ? 1 : 0;
  std::string name_regex = "^";
  for (char c : replayed.workloads[trained].name) {
    if (std::string_view("\\^$.|?*+()[]{}").find(c) != std::string_view::npos) name_regex += '\\';
    name_regex += c;
  }
  TopKSettings narrow;
  narrow.fractions = {1.0};
  narrow.train_matching = name_regex + "$";
  narrow.report_fit = true;
  const ModelTopK one = EvaluateModel(models[0], replayed, data.device, {folds[1]}, narrow);
  ASSERT_TRUE(one.error.empty()) << one.error;
  EXPECT_EQ(one.points[0].train_records,
            static_cast<int64_t>(replayed.workloads[trained].states.size()));
  EXPECT_EQ(one.points[0].top1.workloads, static_cast<int>(folds[1].test.size()));
  ASSERT_EQ(one.points[0].fold_fit_top1.size(), 1u);
  EXPECT_GT(one.points[0].fold_fit_top1[0], 0);
  EXPECT_LE(one.points[0].fold_fit_top1[0], 1.0 + 1e-12);
  EXPECT_TRUE(alone.points[0].fold_fit_top1.empty());  // only when asked
  narrow.train_matching = "^no such workload$";
  const ModelTopK none = EvaluateModel(models[0], replayed, data.device, {folds[1]}, narrow);
  EXPECT_NE(none.error.find("no training workload matches"), std::string::npos) << none.error;
}

void CheckTrainingSubsetsAreNestedPrefixes(const ReplayedDataset& replayed) {
  const ReplayedWorkload& w = replayed.workloads[0];
  const int n = static_cast<int>(w.states.size());
  std::vector<int> previous;
  for (double f : {0.1, 0.25, 0.5, 1.0}) {
    const std::vector<int> subset = TrainingSubset(w, f, 7);
    EXPECT_EQ(static_cast<int>(subset.size()),
              std::max(1, static_cast<int>(std::ceil(f * n - 1e-9))));
    for (int j : previous) {
      EXPECT_TRUE(std::binary_search(subset.begin(), subset.end(), j)) << f;
    }
    previous = subset;
  }
  EXPECT_EQ(static_cast<int>(previous.size()), n);
  EXPECT_EQ(TrainingSubset(w, 0.5, 7), TrainingSubset(w, 0.5, 7));
}

// One test, so that the schedules are measured once (ctest runs every test
// case in a process of its own).
TEST(DatasetMetricsE2eTest, MeasuredSchedulesThroughEveryMetric) {
  const Measured m = MeasureSchedules();
  ASSERT_GT(m.job_id, 0);
  // Every record, busy host or not: the suite runs tests side by side, and
  // this test checks the plumbing, not the timings.
  auto data = LoadDataset(*m.store, DatasetQuery{"", {m.job_id}, /*max_host_busy_cores=*/-1});
  ASSERT_TRUE(data.ok()) << data.status();
  const ReplayedDataset replayed = ReplayDataset(*data);
  {
    SCOPED_TRACE("load");
    CheckLoad(m, *data, replayed);
  }
  if (::testing::Test::HasFatalFailure()) return;
  {
    SCOPED_TRACE("LSE Best_k");
    CheckLseAgainstADirectRanking(*data, replayed);
  }
  {
    SCOPED_TRACE("XGBoost Top_k");
    CheckXgbTopKOnHeldOutWorkloads(*data, replayed);
  }
  {
    SCOPED_TRACE("training subsets");
    CheckTrainingSubsetsAreNestedPrefixes(replayed);
  }
}

}  // namespace
}  // namespace pruner::dataset
