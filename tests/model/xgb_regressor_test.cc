// The XGBoost pack-sum learner on synthetic packs with a known target
// (model_test_util.h), independent of featurization.
#include "common/model/xgb_regressor.h"

#include <cmath>

#include <iostream>

#include "gtest/gtest.h"
#include "tests/model/model_test_util.h"

namespace pruner {
namespace {

using testing::MakeSyntheticPacks;

constexpr int kColumns = 24;

XgbParams FastParams() {
  XgbParams p;
  p.nthread = 1;
  return p;
}

TEST(XgbRegressorTest, LearnsAPackSumFunction) {
  const auto train = MakeSyntheticPacks(600, kColumns, 1);
  const auto test = MakeSyntheticPacks(300, kColumns, 2);
  auto model = MakeXgbPackRegressor(FastParams());
  EXPECT_FALSE(model->IsTrained());
  auto fit = model->Fit(train.packs, train.labels);
  ASSERT_TRUE(fit.ok()) << fit.status();
  EXPECT_TRUE(model->IsTrained());
  EXPECT_GT(fit->iterations, 10);
  EXPECT_LT(fit->train_loss, 0.05);  // labels span [0, 1]

  auto pred = model->Predict(test.packs);
  ASSERT_TRUE(pred.ok()) << pred.status();
  ASSERT_EQ(pred->size(), test.labels.size());
  const std::vector<double> truth = testing::ToDouble(test.labels);
  std::cout << "held-out: pearson " << testing::Pearson(*pred, truth) << " spearman "
            << testing::Spearman(*pred, truth) << " pairwise " << testing::PairwiseAccuracy(*pred, truth)
            << " top-10 " << testing::TopKQuality(*pred, truth, 10) << " (" << fit->iterations
            << " iterations, " << fit->seconds << " s)\n";
  EXPECT_GT(testing::Pearson(*pred, truth), 0.9);
  EXPECT_GT(testing::Spearman(*pred, truth), 0.9);
  EXPECT_GT(testing::PairwiseAccuracy(*pred, truth), 0.85);
  EXPECT_GT(testing::TopKQuality(*pred, truth, 10), 0.85);
}

TEST(XgbRegressorTest, ScoresAreSumsOverRows) {
  // The score of a pack is the sum of its rows' scores, so a pack made of
  // two other packs' rows scores their sum.
  const auto train = MakeSyntheticPacks(200, kColumns, 3);
  auto model = MakeXgbPackRegressor(FastParams());
  ASSERT_TRUE(model->Fit(train.packs, train.labels).ok());
  PackedRows two(kColumns), joined(kColumns);
  std::vector<float> all;
  for (int p : {0, 1}) {
    std::span<const float> rows(train.packs.row(train.packs.pack_begin(p)),
                                train.packs.pack_size(p) * kColumns);
    two.AddPack(rows);
    all.insert(all.end(), rows.begin(), rows.end());
  }
  joined.AddPack(all);
  joined.AddPack({});  // an empty pack scores 0
  auto parts = model->Predict(two);
  auto whole = model->Predict(joined);
  ASSERT_TRUE(parts.ok() && whole.ok());
  EXPECT_NEAR((*whole)[0], (*parts)[0] + (*parts)[1], 1e-5);
  EXPECT_EQ((*whole)[1], 0.0);
}

TEST(XgbRegressorTest, SaveLoadGivesIdenticalPredictions) {
  const auto train = MakeSyntheticPacks(300, kColumns, 4);
  const auto test = MakeSyntheticPacks(100, kColumns, 5);
  auto model = MakeXgbPackRegressor(FastParams());
  ASSERT_TRUE(model->Fit(train.packs, train.labels).ok());
  auto bytes = model->Save();
  ASSERT_TRUE(bytes.ok()) << bytes.status();
  auto loaded = MakeXgbPackRegressor(FastParams());
  ASSERT_TRUE(loaded->Load(*bytes).ok());
  EXPECT_TRUE(loaded->IsTrained());
  auto a = model->Predict(test.packs);
  auto b = loaded->Predict(test.packs);
  ASSERT_TRUE(a.ok() && b.ok());
  EXPECT_EQ(*a, *b);
}

TEST(XgbRegressorTest, BadBytesAndMisuseAreErrors) {
  auto model = MakeXgbPackRegressor(FastParams());
  const auto data = MakeSyntheticPacks(50, kColumns, 6);
  EXPECT_FALSE(model->Predict(data.packs).ok());
  EXPECT_FALSE(model->Save().ok());
  EXPECT_FALSE(model->Load("").ok());
  EXPECT_FALSE(model->Load("definitely not a model").ok());
  EXPECT_FALSE(model->Load(std::string(1000, '\x07')).ok());
  EXPECT_FALSE(model->IsTrained());
  // Label count mismatch, and a data set whose weights are all zero.
  EXPECT_FALSE(model->Fit(data.packs, {0.5f}).ok());
  auto zero = model->Fit(data.packs, std::vector<float>(50, 0.0f));
  EXPECT_TRUE(absl::IsFailedPrecondition(zero.status())) << zero.status();
  EXPECT_FALSE(model->IsTrained());
  // Wrong width after training.
  ASSERT_TRUE(model->Fit(data.packs, data.labels).ok());
  EXPECT_FALSE(model->Predict(MakeSyntheticPacks(5, kColumns + 1, 7).packs).ok());
}

TEST(XgbRegressorTest, EarlyStoppingAndRoundLimit) {
  const auto train = MakeSyntheticPacks(200, kColumns, 8);
  XgbParams p = FastParams();
  p.max_rounds = 7;
  auto capped = MakeXgbPackRegressor(p);
  auto fit = capped->Fit(train.packs, train.labels);
  ASSERT_TRUE(fit.ok());
  EXPECT_EQ(fit->iterations, 7);
  // A large tolerance makes every round after the first "no better": the
  // ensemble is cut back to the first tree after early_stopping_rounds.
  p.max_rounds = 1000;
  p.early_stopping_rounds = 5;
  p.early_stopping_tolerance = 10;
  auto stopped = MakeXgbPackRegressor(p);
  fit = stopped->Fit(train.packs, train.labels);
  ASSERT_TRUE(fit.ok());
  EXPECT_EQ(fit->iterations, 1);
}

TEST(XgbRegressorTest, DeterministicForASeed) {
  const auto train = MakeSyntheticPacks(200, kColumns, 9);
  const auto test = MakeSyntheticPacks(50, kColumns, 10);
  auto a = MakeXgbPackRegressor(FastParams());
  auto b = MakeXgbPackRegressor(FastParams());
  ASSERT_TRUE(a->Fit(train.packs, train.labels).ok());
  ASSERT_TRUE(b->Fit(train.packs, train.labels).ok());
  EXPECT_EQ(*a->Predict(test.packs), *b->Predict(test.packs));
}

}  // namespace
}  // namespace pruner
