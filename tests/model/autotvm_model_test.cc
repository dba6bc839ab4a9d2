// AutoTVM's cost model end to end on real random schedules with the
// synthetic (formula, not measured) cost of schedule_dataset.h, and its
// pieces: TVM's a-recall@N and the transfer discount.
#include "common/model/autotvm_model.h"

#include <cmath>
#include <iostream>

#include "gtest/gtest.h"
#include "tests/model/schedule_dataset.h"

namespace pruner {
namespace {

using testing::MatmulSchedules;

AutotvmModelOptions Options() {
  AutotvmModelOptions o;
  o.local.nthread = 1;
  o.base.nthread = 1;
  o.featurize_threads = 2;
  return o;
}

TEST(AutotvmModelTest, AverageRecallFollowsTvmsDefinition) {
  // A perfect ranking: recall(i) = i / (i + 1) (the first i trials are the
  // i best, all with rank <= i), averaged over i < 4.
  const std::vector<float> labels = {0.1f, 0.9f, 0.5f, 0.7f};
  const double perfect = (0.0 / 1 + 1.0 / 2 + 2.0 / 3 + 3.0 / 4) / 4;
  EXPECT_NEAR(AverageRecallAtN(labels, labels, 4), perfect, 1e-12);
  // Reversed: the worst first. recall(1): rank 3 <= 1? no. recall(2): {3, 2}
  // <= 2: one. recall(3): {3, 2, 1} <= 3: three.
  const std::vector<float> reversed = {0.9f, 0.1f, 0.5f, 0.3f};
  EXPECT_NEAR(AverageRecallAtN(reversed, labels, 4), (0 + 0 + 1.0 / 3 + 3.0 / 4) / 4, 1e-12);
  // N beyond the data divides by N all the same (TVM's sum(curve[:N]) / N).
  EXPECT_NEAR(AverageRecallAtN(labels, labels, 8), perfect * 4 / 8, 1e-12);
}

TEST(AutotvmModelTest, DiscountHalvesEveryPlanAndDropsBelowFivePercent) {
  EXPECT_DOUBLE_EQ(TransferDiscount(0, 64, 0.05), 1.0);
  EXPECT_DOUBLE_EQ(TransferDiscount(64, 64, 0.05), 0.5);
  EXPECT_DOUBLE_EQ(TransferDiscount(128, 64, 0.05), 0.25);
  EXPECT_GT(TransferDiscount(276, 64, 0.05), 0.05);
  EXPECT_EQ(TransferDiscount(277, 64, 0.05), 0.0);
}

TEST(AutotvmModelTest, RandomDuringWarmUpThenRanksHeldOutSchedules) {
  const auto& data = MatmulSchedules();
  auto model = MakeAutotvmModel(data.device, Options());
  ASSERT_TRUE(model.ok()) << model.status();
  EXPECT_EQ((*model)->Name(), "autotvm");
  const std::vector<State> held_out = data.States(200, 300);
  ASSERT_TRUE((*model)->Update(data.Records(0, 40)).ok());
  auto random = MakeRandomModel(Options().seed);
  EXPECT_EQ((*model)->Predict(held_out), random->Predict(held_out));

  ASSERT_TRUE((*model)->Update(data.Records(40, 200)).ok());
  EXPECT_EQ((*model)->NumTrainingRecords(), 200);
  const testing::HeldOutRanking r = testing::RankHeldOut(**model, data, 200, 300);
  std::cout << "autotvm, held-out schedules: " << r << "\n";
  EXPECT_GT(r.spearman, 0.6);
  EXPECT_GT(r.top10, 0.8);

  // A sketch with open tile sizes cannot be lowered: -infinity.
  const State* open = nullptr;
  for (const Sketch& s : data.sketches) {
    if (!s.state.IsConcrete()) open = &s.state;
  }
  ASSERT_NE(open, nullptr);
  EXPECT_EQ((*model)->Predict({*open})[0], -INFINITY);
}

// Transfer: the base model learns another matmul's records; with no local
// record it alone scores, and once the workload has enough records of its
// own the base is dropped, leaving the local model's scores.
TEST(AutotvmModelTest, TransferScoresWithTheBaseUntilLocalDataTakesOver) {
  const auto& data = MatmulSchedules();
  const testing::ScheduleDataset other =
      testing::SampleSchedules("matmul:M=128,K=32,N=64", 300, 7);
  AutotvmModelOptions o = Options();
  o.min_history_records = 200;
  auto too_little = MakeAutotvmModel(data.device, o, other.Records(0, 150));
  ASSERT_TRUE(too_little.ok());
  const std::vector<State> held_out = data.States(200, 300);
  auto random = MakeRandomModel(o.seed);
  EXPECT_EQ((*too_little)->Predict(held_out), random->Predict(held_out))
      << "under 500 (here 200) history records: no transfer";

  auto model = MakeAutotvmModel(data.device, o, other.Records(0, 300));
  ASSERT_TRUE(model.ok()) << model.status();
  const std::vector<double> base_only = (*model)->Predict(held_out);
  EXPECT_NE(base_only, random->Predict(held_out));
  const testing::HeldOutRanking transferred = testing::RankHeldOut(**model, data, 200, 300);
  std::cout << "autotvm, base model of another matmul only: " << transferred << "\n";
  EXPECT_GT(transferred.spearman, 0.5);  // the curves carry across shapes

  // 200 local records: discount 2^(-200/64) = 0.11, still combined.
  ASSERT_TRUE((*model)->Update(data.Records(0, 200)).ok());
  const testing::HeldOutRanking combined = testing::RankHeldOut(**model, data, 200, 300);
  std::cout << "autotvm, local + discounted base: " << combined << "\n";
  EXPECT_GT(combined.spearman, 0.6);

  // Checkpoints carry both boosters.
  auto blob = (*model)->Save();
  ASSERT_TRUE(blob.ok()) << blob.status();
  auto loaded = MakeAutotvmModel(data.device, o);
  ASSERT_TRUE((*loaded)->Load(*blob).ok());
  EXPECT_EQ((*loaded)->NumTrainingRecords(), 200);
  EXPECT_FALSE((*loaded)->Load("garbage").ok());
  DeviceProfile elsewhere = data.device;
  elsewhere.name = "another-cpu";
  auto foreign = MakeAutotvmModel(elsewhere, o);
  EXPECT_FALSE((*foreign)->Load(*blob).ok());
}

}  // namespace
}  // namespace pruner
