// The TenSet MLP cost model end to end: real random schedules of a matmul,
// featurized by the features layer, with a synthetic (formula, not measured)
// cost from schedule_dataset.h.
#include "common/model/mlp_model.h"

#include <cmath>
#include <iostream>

#include "common/model/xgb_model.h"
#include "gtest/gtest.h"
#include "tests/model/model_test_util.h"
#include "tests/model/schedule_dataset.h"

namespace pruner {
namespace {

using testing::MatmulSchedules;

MlpModelOptions Options() {
  MlpModelOptions o;
  o.training.featurize_threads = 2;
  return o;  // TenSet's network and training otherwise
}

TEST(MlpModelTest, RanksHeldOutSchedules) {
  const auto& data = MatmulSchedules();
  auto model = MakeMlpModel(data.device, Options());
  EXPECT_EQ(model->Name(), "mlp");
  ASSERT_TRUE(model->Update(data.Records(0, 200)).ok());
  auto& learned = dynamic_cast<LearnedCostModel&>(*model);
  ASSERT_TRUE(learned.IsTrained());
  const testing::HeldOutRanking r = testing::RankHeldOut(*model, data, 200, 300);
  std::cout << "held-out schedules: " << r << " (fit " << learned.last_fit()->iterations
            << " epochs, " << learned.last_fit()->seconds << " s)\n";
  EXPECT_GT(r.spearman, 0.5);
  EXPECT_GT(r.pairwise, 0.65);
}

TEST(MlpModelTest, SaveLoadRoundTripAndForeignCheckpoints) {
  const auto& data = MatmulSchedules();
  MlpModelOptions o = Options();
  o.mlp.max_epochs = 5;
  auto model = MakeMlpModel(data.device, o);
  ASSERT_TRUE(model->Update(data.Records(0, 120)).ok());
  const std::vector<State> probe = data.States(120, 180);
  const std::vector<double> before = model->Predict(probe);
  auto blob = model->Save();
  ASSERT_TRUE(blob.ok()) << blob.status();
  auto loaded = MakeMlpModel(data.device, o);
  ASSERT_TRUE(loaded->Load(*blob).ok());
  EXPECT_EQ(loaded->Predict(probe), before);
  EXPECT_EQ(loaded->NumTrainingRecords(), 120);

  // An XGBoost checkpoint is refused by name, before torch sees its bytes.
  XgbModelOptions xo;
  xo.xgb.nthread = 1;
  auto xgb = MakeXgbModel(data.device, xo);
  ASSERT_TRUE(xgb->Update(data.Records(0, 120)).ok());
  auto xgb_blob = xgb->Save();
  ASSERT_TRUE(xgb_blob.ok());
  EXPECT_FALSE(loaded->Load(*xgb_blob).ok());
  EXPECT_FALSE(xgb->Load(*blob).ok());
  EXPECT_FALSE(loaded->Load("garbage").ok());
  std::string corrupt = *blob;
  for (size_t i = corrupt.size() / 2; i < corrupt.size(); ++i) corrupt[i] = '\x5a';
  EXPECT_FALSE(loaded->Load(corrupt).ok());
  EXPECT_EQ(loaded->Predict(probe), before);
}

}  // namespace
}  // namespace pruner
