// TLP as a cost model end to end: real random schedules of a matmul, read as
// step matrices, with a synthetic (formula, not measured) cost from
// schedule_dataset.h; and its checkpoints.
#include "common/model/tlp_model.h"

#include <algorithm>
#include <iostream>

#include "common/model/mlp_model.h"
#include "gtest/gtest.h"
#include "tests/model/model_test_util.h"
#include "tests/model/schedule_dataset.h"

namespace pruner {
namespace {

using testing::MatmulSchedules;

TEST(TlpModelTest, RanksHeldOutSchedulesFromTheirStepsAlone) {
  const auto& data = MatmulSchedules();
  TlpModelOptions o;
  o.tlp.batch_size = 64;  // 200 programs: TLP's 1024 would be one batch per epoch
  auto model = MakeTlpModel(data.device, o);
  EXPECT_EQ(model->Name(), "tlp");
  ASSERT_TRUE(model->Update(data.Records(0, 200)).ok());
  auto& learned = dynamic_cast<LearnedCostModel&>(*model);
  ASSERT_TRUE(learned.IsTrained());
  EXPECT_EQ(learned.num_unfeaturized_records(), 0);  // no lowering: every state has rows
  const testing::HeldOutRanking r = testing::RankHeldOut(*model, data, 200, 300);
  std::cout << "held-out schedules: " << r << " (fit " << learned.last_fit()->iterations
            << " epochs, " << learned.last_fit()->seconds << " s)\n";
  EXPECT_GT(r.spearman, 0.4);
  EXPECT_GT(r.pairwise, 0.6);
}

TEST(TlpModelTest, SaveLoadRoundTripAndForeignCheckpoints) {
  const auto& data = MatmulSchedules();
  TlpModelOptions o;
  o.tlp.max_epochs = 3;
  auto model = MakeTlpModel(data.device, o);
  ASSERT_TRUE(model->Update(data.Records(0, 120)).ok());
  const std::vector<State> probe = data.States(120, 180);
  const std::vector<double> before = model->Predict(probe);
  auto blob = model->Save();
  ASSERT_TRUE(blob.ok()) << blob.status();
  auto loaded = MakeTlpModel(data.device, o);
  ASSERT_TRUE(loaded->Load(*blob).ok());
  EXPECT_EQ(loaded->Predict(probe), before);
  EXPECT_EQ(loaded->NumTrainingRecords(), 120);

  // An MLP checkpoint is refused by name; garbage and corruption are errors.
  MlpModelOptions mo;
  mo.mlp.max_epochs = 2;
  auto mlp = MakeMlpModel(data.device, mo);
  ASSERT_TRUE(mlp->Update(data.Records(0, 120)).ok());
  auto mlp_blob = mlp->Save();
  ASSERT_TRUE(mlp_blob.ok());
  EXPECT_FALSE(loaded->Load(*mlp_blob).ok());
  EXPECT_FALSE(mlp->Load(*blob).ok());
  EXPECT_FALSE(loaded->Load("garbage").ok());
  std::string corrupt = *blob;
  for (size_t i = corrupt.size() / 2; i < corrupt.size(); ++i) corrupt[i] = '\x5a';
  EXPECT_FALSE(loaded->Load(corrupt).ok());
  EXPECT_EQ(loaded->Predict(probe), before);
}

// MTL-TLP: a second head trained on "another device's" records (here more
// schedules of the same workload, which is all this synthetic data has),
// sharing the trunk; the first head predicts, and its checkpoint keeps both.
TEST(TlpModelTest, MultiTaskTlpTrainsASecondHeadOnTheOtherDevicesRecords) {
  const auto& data = MatmulSchedules();
  TlpModelOptions o;
  o.tlp.batch_size = 64;
  o.tlp.max_epochs = 10;
  DeviceProfile other = data.device;
  other.name = "cpu-other";
  auto model = MakeMtlTlpModel(data.device, o, other, data.Records(200, 300));
  ASSERT_TRUE(model.ok()) << model.status();
  EXPECT_EQ((*model)->Name(), "mtl-tlp");
  ASSERT_TRUE((*model)->Update(data.Records(0, 100)).ok());
  const std::vector<State> probe = data.States(100, 160);
  const std::vector<double> scores = (*model)->Predict(probe);
  ASSERT_EQ(scores.size(), probe.size());
  EXPECT_NE(*std::min_element(scores.begin(), scores.end()),
            *std::max_element(scores.begin(), scores.end()));
  auto blob = (*model)->Save();
  ASSERT_TRUE(blob.ok()) << blob.status();
  auto loaded = MakeMtlTlpModel(data.device, o, other, data.Records(200, 210));
  ASSERT_TRUE(loaded.ok());
  ASSERT_TRUE((*loaded)->Load(*blob).ok());
  EXPECT_EQ((*loaded)->Predict(probe), scores);

  // A GPU's records are another step table: refused.
  auto a100 = GetDeviceProfile("a100");
  ASSERT_TRUE(a100.ok());
  EXPECT_EQ(MakeMtlTlpModel(data.device, o, *a100, data.Records(200, 210)).status().code(),
            absl::StatusCode::kInvalidArgument);
  // No ok auxiliary record: nothing for the second head.
  std::vector<MeasuredState> failed = data.Records(200, 210);
  for (MeasuredState& r : failed) r.ok = false;
  EXPECT_EQ(MakeMtlTlpModel(data.device, o, other, failed).status().code(),
            absl::StatusCode::kInvalidArgument);
}

}  // namespace
}  // namespace pruner
