// Labels (§5.2), the random model and the checkpoint framing.
#include <memory>
#include <set>

#include "common/ir/ops.h"
#include "common/model/checkpoint.h"
#include "common/model/cost_model.h"
#include "gtest/gtest.h"

namespace pruner {
namespace {

TEST(NormalizedThroughputLabelsTest, PerWorkloadBestIsOneFailuresZero) {
  const std::vector<CostRecord> records = {
      {"A", 2.0, true}, {"A", 1.0, true}, {"A", 4.0, true}, {"A", 0.5, false},  // failed: ignored for min
      {"B", 10.0, true}, {"B", 20.0, true}, {"B", 0.0, true},                    // 0 s: invalid
      {"B", -1.0, true},
  };
  const std::vector<float> y = NormalizedThroughputLabels(records);
  ASSERT_EQ(y.size(), records.size());
  EXPECT_FLOAT_EQ(y[0], 0.5f);
  EXPECT_FLOAT_EQ(y[1], 1.0f);
  EXPECT_FLOAT_EQ(y[2], 0.25f);
  EXPECT_FLOAT_EQ(y[3], 0.0f);  // failed, even though its cost is the lowest
  EXPECT_FLOAT_EQ(y[4], 1.0f);  // B is normalized by its own best, not A's
  EXPECT_FLOAT_EQ(y[5], 0.5f);
  EXPECT_FLOAT_EQ(y[6], 0.0f);
  EXPECT_FLOAT_EQ(y[7], 0.0f);
}

TEST(NormalizedThroughputLabelsTest, AllFailedWorkloadGivesZeros) {
  const std::vector<float> y =
      NormalizedThroughputLabels(std::vector<CostRecord>{{"A", 1.0, false}, {"A", 2.0, false}});
  EXPECT_EQ(y, (std::vector<float>{0.0f, 0.0f}));
  EXPECT_TRUE(NormalizedThroughputLabels(std::vector<CostRecord>{}).empty());
}

TEST(NormalizedThroughputLabelsTest, MeasuredStatesUseTheirWorkloadKey) {
  auto dag = BuildOperator("matmul:M=8,K=8,N=8");
  ASSERT_TRUE(dag.ok()) << dag.status();
  auto shared = std::make_shared<const ComputeDag>(*std::move(dag));
  const State s = State::Initial(shared);
  const std::string key = shared->WorkloadKey();
  const std::vector<MeasuredState> records = {
      {s, key, 3e-6, true}, {s, key, 1e-6, true}, {s, "other", 5e-6, true}, {s, key, 0, false}};
  const std::vector<float> y = NormalizedThroughputLabels(records);
  EXPECT_FLOAT_EQ(y[0], 1.0f / 3.0f);
  EXPECT_FLOAT_EQ(y[1], 1.0f);
  EXPECT_FLOAT_EQ(y[2], 1.0f);
  EXPECT_FLOAT_EQ(y[3], 0.0f);
}

std::vector<State> SomeStates(int n) {
  auto dag = BuildOperator("matmul:M=8,K=8,N=8");
  EXPECT_TRUE(dag.ok());
  auto shared = std::make_shared<const ComputeDag>(*std::move(dag));
  return std::vector<State>(n, State::Initial(shared));
}

TEST(RandomModelTest, UniformInUnitIntervalAndDeterministicPerSeed) {
  const std::vector<State> states = SomeStates(2000);
  auto a = MakeRandomModel(7), b = MakeRandomModel(7), c = MakeRandomModel(8);
  EXPECT_EQ(a->Name(), "random");
  const std::vector<double> sa = a->Predict(states);
  ASSERT_EQ(sa.size(), states.size());
  EXPECT_EQ(sa, b->Predict(states));
  EXPECT_NE(sa, c->Predict(states));
  double mean = 0;
  std::set<double> distinct;
  for (double s : sa) {
    EXPECT_GE(s, 0.0);
    EXPECT_LT(s, 1.0);
    mean += s / sa.size();
    distinct.insert(s);
  }
  EXPECT_NEAR(mean, 0.5, 0.03);  // sd of the mean of 2000 U(0,1) is 0.0065
  EXPECT_EQ(distinct.size(), sa.size());
  // The stream continues: a second call gives new scores.
  EXPECT_NE(a->Predict(states), sa);
}

TEST(RandomModelTest, CountsRecordsAndSavesEmptyBlob) {
  auto m = MakeRandomModel(1);
  const std::vector<State> states = SomeStates(3);
  std::vector<MeasuredState> records;
  for (const State& s : states) records.push_back({s, "k", 1e-3, true});
  ASSERT_TRUE(m->Update(records).ok());
  ASSERT_TRUE(m->Update(records).ok());
  EXPECT_EQ(m->NumTrainingRecords(), 6);
  auto blob = m->Save();
  ASSERT_TRUE(blob.ok());
  EXPECT_TRUE(blob->empty());
  EXPECT_TRUE(m->Load("").ok());
  EXPECT_FALSE(m->Load("not empty").ok());
}

TEST(CheckpointTest, RoundTripsIncludingBinaryPayload) {
  ModelCheckpoint c;
  c.model = "xgb";
  c.device = "cpu-local";
  c.columns = 164;
  c.records = 1234;
  c.payload = std::string("\0\n\xff{payload 3\n", 14);
  const std::string blob = EncodeCheckpoint(c);
  auto d = DecodeCheckpoint(blob);
  ASSERT_TRUE(d.ok()) << d.status();
  EXPECT_EQ(d->model, "xgb");
  EXPECT_EQ(d->device, "cpu-local");
  EXPECT_EQ(d->columns, 164);
  EXPECT_EQ(d->records, 1234);
  EXPECT_EQ(d->payload, c.payload);
}

TEST(CheckpointTest, RejectsForeignTruncatedAndTrailingBytes) {
  ModelCheckpoint c;
  c.model = "mlp";
  c.device = "a100-40gb";
  c.columns = 164;
  c.payload = "abcdef";
  const std::string blob = EncodeCheckpoint(c);
  EXPECT_FALSE(DecodeCheckpoint("").ok());
  EXPECT_FALSE(DecodeCheckpoint("garbage bytes").ok());
  EXPECT_FALSE(DecodeCheckpoint(blob.substr(0, blob.size() - 1)).ok());
  EXPECT_FALSE(DecodeCheckpoint(blob + "x").ok());
  EXPECT_FALSE(DecodeCheckpoint(blob.substr(0, 30)).ok());
  std::string bad_count = blob;
  bad_count.replace(bad_count.find("columns 164"), 11, "columns 1x4");
  EXPECT_FALSE(DecodeCheckpoint(bad_count).ok());
}

}  // namespace
}  // namespace pruner
