// The XGBoost cost model end to end: real random schedules of a matmul,
// featurized by the features layer, with a synthetic (formula, not measured)
// cost from schedule_dataset.h.
#include "common/model/xgb_model.h"

#include <cmath>
#include <iostream>

#include "gtest/gtest.h"
#include "tests/model/model_test_util.h"
#include "tests/model/schedule_dataset.h"

namespace pruner {
namespace {

using testing::MatmulSchedules;

XgbModelOptions Options() {
  XgbModelOptions o;
  o.xgb.nthread = 1;
  o.training.featurize_threads = 2;
  return o;
}

LearnedCostModel& Learned(CostModel& m) { return dynamic_cast<LearnedCostModel&>(m); }

TEST(XgbModelTest, DatasetIsRealAndVaried) {
  const auto& data = MatmulSchedules();
  ASSERT_GE(data.states.size(), 300u);
  const auto [lo, hi] = std::minmax_element(data.throughput.begin(), data.throughput.end());
  EXPECT_GT(*hi, 3 * *lo);  // the synthetic cost depends on the schedule
}

TEST(XgbModelTest, RandomDuringWarmUpThenRanksHeldOutSchedules) {
  const auto& data = MatmulSchedules();
  auto model = MakeXgbModel(data.device, Options());
  EXPECT_EQ(model->Name(), "xgb");
  const std::vector<State> held_out = data.States(200, 300);

  // Fewer than num_warmup_sample (100) records: the random model's scores.
  ASSERT_TRUE(model->Update(data.Records(0, 60)).ok());
  EXPECT_EQ(model->NumTrainingRecords(), 60);
  EXPECT_FALSE(Learned(*model).IsTrained());
  auto random = MakeRandomModel(Options().training.seed);
  EXPECT_EQ(model->Predict(held_out), random->Predict(held_out));

  ASSERT_TRUE(model->Update(data.Records(60, 200)).ok());
  EXPECT_EQ(model->NumTrainingRecords(), 200);
  ASSERT_TRUE(Learned(*model).IsTrained());
  ASSERT_TRUE(Learned(*model).last_fit().has_value());
  EXPECT_EQ(Learned(*model).num_unfeaturized_records(), 0);

  const testing::HeldOutRanking r = testing::RankHeldOut(*model, data, 200, 300);
  std::cout << "held-out schedules: " << r << " (fit " << Learned(*model).last_fit()->iterations
            << " rounds, " << Learned(*model).last_fit()->seconds << " s)\n";
  EXPECT_GT(r.spearman, 0.6);
  EXPECT_GT(r.pairwise, 0.7);
  EXPECT_GT(r.top10, 0.8);
}

// xgb-sym: the analyzer's program vector after every statement row. It
// learns the same synthetic cost, and its checkpoints and Ansor's are not
// interchangeable (their rows differ in width).
TEST(XgbModelTest, AnalyzerSymbolsJoinEveryRow) {
  const auto& data = MatmulSchedules();
  XgbModelOptions options = Options();
  options.analyzer_symbols = true;
  auto model = MakeXgbModel(data.device, options);
  EXPECT_EQ(model->Name(), "xgb-sym");
  ASSERT_TRUE(model->Update(data.Records(0, 200)).ok());
  ASSERT_TRUE(Learned(*model).IsTrained());
  EXPECT_EQ(Learned(*model).num_unfeaturized_records(), 0);
  const testing::HeldOutRanking r = testing::RankHeldOut(*model, data, 200, 300);
  std::cout << "xgb-sym held-out schedules: " << r << "\n";
  EXPECT_GT(r.spearman, 0.6);
  EXPECT_GT(r.pairwise, 0.7);

  auto plain = MakeXgbModel(data.device, Options());
  ASSERT_TRUE(plain->Update(data.Records(0, 200)).ok());
  const absl::StatusOr<std::string> plain_blob = plain->Save();
  ASSERT_TRUE(plain_blob.ok()) << plain_blob.status();
  EXPECT_FALSE(model->Load(*plain_blob).ok());
  const absl::StatusOr<std::string> blob = model->Save();
  ASSERT_TRUE(blob.ok()) << blob.status();
  auto reloaded = MakeXgbModel(data.device, options);
  ASSERT_TRUE(reloaded->Load(*blob).ok());
  const std::vector<State> held_out = data.States(200, 300);
  EXPECT_EQ(reloaded->Predict(held_out), model->Predict(held_out));

  // The rows are computed on featurize_threads threads (two here): on one
  // they are the same rows in the same order, so the same model.
  XgbModelOptions serial = options;
  serial.training.featurize_threads = 1;
  auto one_thread = MakeXgbModel(data.device, serial);
  ASSERT_TRUE(one_thread->Update(data.Records(0, 200)).ok());
  EXPECT_EQ(one_thread->Predict(held_out), model->Predict(held_out));
}

TEST(XgbModelTest, SaveLoadRoundTripAndBadCheckpoints) {
  const auto& data = MatmulSchedules();
  auto model = MakeXgbModel(data.device, Options());
  ASSERT_TRUE(model->Update(data.Records(0, 150)).ok());
  const std::vector<State> probe = data.States(150, 250);
  const std::vector<double> before = model->Predict(probe);
  auto blob = model->Save();
  ASSERT_TRUE(blob.ok()) << blob.status();

  // A fresh model predicts identically at once: no warm-up after Load.
  auto loaded = MakeXgbModel(data.device, Options());
  ASSERT_TRUE(loaded->Load(*blob).ok());
  EXPECT_EQ(loaded->NumTrainingRecords(), 150);
  EXPECT_EQ(loaded->Predict(probe), before);

  // Garbage, truncation, another device: errors that leave the model as it was.
  EXPECT_FALSE(loaded->Load("garbage").ok());
  EXPECT_FALSE(loaded->Load(blob->substr(0, blob->size() / 2)).ok());
  std::string corrupt = *blob;
  for (size_t i = corrupt.size() - 64; i < corrupt.size(); ++i) corrupt[i] = '\x5a';
  EXPECT_FALSE(loaded->Load(corrupt).ok());
  DeviceProfile other = data.device;
  other.name = "some-other-cpu";
  auto foreign = MakeXgbModel(other, Options());
  EXPECT_TRUE(absl::IsFailedPrecondition(foreign->Load(*blob)));
  EXPECT_EQ(loaded->Predict(probe), before);

  // An untrained model saves a checkpoint without parameters; loading it
  // gives an untrained (warm-up) model.
  auto untrained = MakeXgbModel(data.device, Options());
  auto empty = untrained->Save();
  ASSERT_TRUE(empty.ok());
  ASSERT_TRUE(loaded->Load(*empty).ok());
  EXPECT_FALSE(Learned(*loaded).IsTrained());
}

TEST(XgbModelTest, UnscorableStatesGetMinusInfinity) {
  const auto& data = MatmulSchedules();
  auto model = MakeXgbModel(data.device, Options());
  ASSERT_TRUE(model->Update(data.Records(0, 120)).ok());
  // A sketch leaves its tile sizes open: it cannot be lowered, so no score.
  const State* open = nullptr;
  for (const Sketch& s : data.sketches) {
    if (!s.state.IsConcrete()) open = &s.state;
  }
  ASSERT_NE(open, nullptr);
  const std::vector<double> scores = model->Predict({data.states[0], *open, data.states[1]});
  ASSERT_EQ(scores.size(), 3u);
  EXPECT_TRUE(std::isfinite(scores[0]));
  EXPECT_EQ(scores[1], -INFINITY);
  EXPECT_TRUE(std::isfinite(scores[2]));
}

TEST(XgbModelTest, AdaptiveTrainingWaitsForTwentyPercentMoreData) {
  const auto& data = MatmulSchedules();
  XgbModelOptions o = Options();
  o.training.adaptive_training = true;
  auto model = MakeXgbModel(data.device, o);
  LearnedCostModel& m = Learned(*model);
  ASSERT_TRUE(model->Update(data.Records(0, 100)).ok());
  EXPECT_EQ(m.last_fit_size(), 100);
  ASSERT_TRUE(model->Update(data.Records(100, 110)).ok());
  EXPECT_EQ(m.last_fit_size(), 100);  // +10%: skipped
  ASSERT_TRUE(model->Update(data.Records(110, 120)).ok());
  EXPECT_EQ(m.last_fit_size(), 120);  // +20%: retrained
  EXPECT_EQ(model->NumTrainingRecords(), 120);
}

TEST(XgbModelTest, FailedRecordsAloneTrainNothing) {
  const auto& data = MatmulSchedules();
  auto model = MakeXgbModel(data.device, Options());
  std::vector<MeasuredState> failed = data.Records(0, 120);
  for (MeasuredState& r : failed) r.ok = false;
  ASSERT_TRUE(model->Update(failed).ok());
  EXPECT_FALSE(Learned(*model).IsTrained());  // every label is 0
  for (double s : model->Predict(data.States(0, 10))) {
    EXPECT_GE(s, 0.0);
    EXPECT_LT(s, 1.0);
  }
  // Valid records later make it learn, with the failures kept as label 0.
  ASSERT_TRUE(model->Update(data.Records(120, 200)).ok());
  EXPECT_TRUE(Learned(*model).IsTrained());
  EXPECT_EQ(model->NumTrainingRecords(), 200);
}

}  // namespace
}  // namespace pruner
