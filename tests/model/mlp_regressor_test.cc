// The TenSet MLP learner on synthetic packs with a known target
// (model_test_util.h), independent of featurization.
#include "common/model/mlp_regressor.h"

#include <iostream>

#include "gtest/gtest.h"
#include "tests/model/model_test_util.h"

namespace pruner {
namespace {

using testing::MakeSyntheticPacks;

constexpr int kColumns = 24;

MlpParams SmallParams(MlpLoss loss) {
  MlpParams p;
  p.loss = loss;
  p.hidden_dim = 64;  // TenSet uses 256; the synthetic target needs less
  p.num_threads = 1;
  return p;
}

void ExpectLearns(MlpLoss loss) {
  const auto train = MakeSyntheticPacks(1000, kColumns, 1);
  const auto test = MakeSyntheticPacks(300, kColumns, 2);
  auto model = MakeMlpPackRegressor(SmallParams(loss));
  EXPECT_FALSE(model->IsTrained());
  auto fit = model->Fit(train.packs, train.labels);
  ASSERT_TRUE(fit.ok()) << fit.status();
  EXPECT_TRUE(model->IsTrained());
  EXPECT_GT(fit->iterations, 5);
  auto pred = model->Predict(test.packs);
  ASSERT_TRUE(pred.ok()) << pred.status();
  ASSERT_EQ(pred->size(), test.labels.size());
  const std::vector<double> truth = testing::ToDouble(test.labels);
  std::cout << "held-out: pearson " << testing::Pearson(*pred, truth) << " spearman "
            << testing::Spearman(*pred, truth) << " pairwise " << testing::PairwiseAccuracy(*pred, truth)
            << " top-10 " << testing::TopKQuality(*pred, truth, 10) << " (" << fit->iterations
            << " iterations, " << fit->seconds << " s)\n";
  EXPECT_GT(testing::Spearman(*pred, truth), 0.8);
  EXPECT_GT(testing::PairwiseAccuracy(*pred, truth), 0.8);
  EXPECT_GT(testing::TopKQuality(*pred, truth, 10), 0.85);
}

TEST(MlpRegressorTest, LambdaRankLearnsTheOrderOfAPackSumFunction) { ExpectLearns(MlpLoss::kLambdaRank); }

TEST(MlpRegressorTest, MseLearnsAPackSumFunction) { ExpectLearns(MlpLoss::kMse); }

TEST(MlpRegressorTest, SaveLoadGivesIdenticalPredictions) {
  const auto train = MakeSyntheticPacks(300, kColumns, 3);
  const auto test = MakeSyntheticPacks(100, kColumns, 4);
  MlpParams p = SmallParams(MlpLoss::kMse);
  p.max_epochs = 5;
  auto model = MakeMlpPackRegressor(p);
  ASSERT_TRUE(model->Fit(train.packs, train.labels).ok());
  auto bytes = model->Save();
  ASSERT_TRUE(bytes.ok()) << bytes.status();
  // The checkpoint carries the network shape and head: a regressor
  // configured differently still loads it faithfully.
  auto loaded = MakeMlpPackRegressor(SmallParams(MlpLoss::kLambdaRank));
  ASSERT_TRUE(loaded->Load(*bytes).ok());
  auto a = model->Predict(test.packs);
  auto b = loaded->Predict(test.packs);
  ASSERT_TRUE(a.ok() && b.ok());
  EXPECT_EQ(*a, *b);
}

TEST(MlpRegressorTest, DeterministicForASeed) {
  const auto train = MakeSyntheticPacks(300, kColumns, 5);
  const auto test = MakeSyntheticPacks(50, kColumns, 6);
  MlpParams p = SmallParams(MlpLoss::kLambdaRank);
  p.max_epochs = 4;
  auto a = MakeMlpPackRegressor(p);
  auto b = MakeMlpPackRegressor(p);
  ASSERT_TRUE(a->Fit(train.packs, train.labels).ok());
  ASSERT_TRUE(b->Fit(train.packs, train.labels).ok());
  EXPECT_EQ(*a->Predict(test.packs), *b->Predict(test.packs));
}

TEST(MlpRegressorTest, BadBytesAndMisuseAreErrors) {
  auto model = MakeMlpPackRegressor(SmallParams(MlpLoss::kLambdaRank));
  const auto data = MakeSyntheticPacks(40, kColumns, 7);
  EXPECT_FALSE(model->Predict(data.packs).ok());
  EXPECT_FALSE(model->Save().ok());
  EXPECT_FALSE(model->Load("").ok());
  EXPECT_FALSE(model->Load("definitely not a model").ok());
  EXPECT_FALSE(model->IsTrained());
  EXPECT_FALSE(model->Fit(data.packs, {0.5f}).ok());
  auto zero = model->Fit(data.packs, std::vector<float>(40, 0.0f));
  EXPECT_TRUE(absl::IsFailedPrecondition(zero.status())) << zero.status();
  EXPECT_FALSE(model->IsTrained());
}

}  // namespace
}  // namespace pruner
