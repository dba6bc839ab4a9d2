// The ensemble: per-workload z-scores summed, warm-up members left out,
// errors named, checkpoints of every member.
#include "common/model/ensemble_model.h"

#include <cmath>
#include <limits>
#include <memory>

#include "common/ir/ops.h"
#include "gtest/gtest.h"

namespace pruner {
namespace {

constexpr double kInf = std::numeric_limits<double>::infinity();

// Answers fixed scores; records what it was given.
class FixedScores final : public CostModel {
 public:
  FixedScores(std::string name, std::vector<double> scores, bool ranks = true)
      : name_(std::move(name)), scores_(std::move(scores)), ranks_(ranks) {}
  std::string Name() const override { return name_; }
  absl::Status Update(const std::vector<MeasuredState>& records) override {
    updates += static_cast<int64_t>(records.size());
    return fail_update;
  }
  std::vector<double> Predict(const std::vector<State>& states) override {
    EXPECT_EQ(states.size(), scores_.size());
    return scores_;
  }
  int64_t NumTrainingRecords() const override { return updates; }
  bool Ranks() const override { return ranks_; }
  absl::StatusOr<std::string> Save() const override { return "weights of " + name_; }
  absl::Status Load(std::string_view blob) override {
    loaded = std::string(blob);
    return absl::OkStatus();
  }

  int64_t updates = 0;
  absl::Status fail_update;
  std::string loaded;

 private:
  std::string name_;
  std::vector<double> scores_;
  bool ranks_;
};

std::shared_ptr<const ComputeDag> Dag(const char* spec) {
  auto dag = BuildOperator(spec);
  EXPECT_TRUE(dag.ok()) << dag.status();
  return std::make_shared<const ComputeDag>(*std::move(dag));
}

TEST(SumOfZScoresTest, EachMemberCountsByItsOrderNotItsScale) {
  // Member a prefers state 0 by a wide margin on a large scale; member b
  // prefers state 2 on a tiny scale. Z-scores weigh them alike.
  const std::vector<double> sum =
      SumOfZScores({{1000, 0, 0}, {0, 0, 0.003}}, {0, 0, 0});
  ASSERT_EQ(sum.size(), 3u);
  const double a0 = 2 / std::sqrt(2.0);  // (1000 - 333.3) / 471.4
  EXPECT_NEAR(sum[0], a0 - 1 / std::sqrt(2.0), 1e-9);
  EXPECT_NEAR(sum[1], -2 / std::sqrt(2.0), 1e-9);
  EXPECT_NEAR(sum[2], -1 / std::sqrt(2.0) + a0, 1e-9);
}

TEST(SumOfZScoresTest, GroupsAreScoredApartAndUnscorableStatesSinkLast) {
  // Two groups on different scales; within each, the order is kept.
  const std::vector<double> sum = SumOfZScores({{1, 3, 100, 300, -kInf}}, {0, 0, 1, 1, 1});
  EXPECT_NEAR(sum[0], -1, 1e-9);
  EXPECT_NEAR(sum[1], 1, 1e-9);
  EXPECT_NEAR(sum[2], -1, 1e-9);  // not dragged by the -inf beside it
  EXPECT_NEAR(sum[3], 1, 1e-9);
  EXPECT_EQ(sum[4], -kInf);
  // A member that scores a group alike adds nothing there.
  EXPECT_EQ(SumOfZScores({{5, 5}}, {0, 0}), (std::vector<double>{0, 0}));
}

TEST(EnsembleModelTest, PredictSumsPerWorkloadAndSkipsWarmUpMembers) {
  auto matmul = Dag("matmul:M=8,K=8,N=8");
  auto other = Dag("matmul:M=16,K=8,N=8");
  const std::vector<State> states = {State::Initial(matmul), State::Initial(matmul),
                                     State::Initial(other), State::Initial(other)};
  std::vector<std::unique_ptr<CostModel>> members;
  members.push_back(std::make_unique<FixedScores>("a", std::vector<double>{1, 2, 50, 10}));
  members.push_back(std::make_unique<FixedScores>("b", std::vector<double>{4, 8, 7, 9}));
  // Still in warm-up: random scores that must not count.
  members.push_back(
      std::make_unique<FixedScores>("c", std::vector<double>{1e6, -1e6, 1e6, -1e6}, false));
  auto model = MakeEnsembleModel("ensemble", std::move(members));
  ASSERT_TRUE(model.ok()) << model.status();
  EXPECT_EQ((*model)->Name(), "ensemble");
  EXPECT_TRUE((*model)->Ranks());
  // On the first workload a and b agree (-1 - 1, +1 + 1); on the second
  // they disagree (+1 - 1, -1 + 1). Counted, c would reverse the first.
  EXPECT_EQ((*model)->Predict(states), (std::vector<double>{-2, 2, 0, 0}));
}

TEST(EnsembleModelTest, UpdateTrainsEveryMemberAndNamesTheOneThatFailed) {
  auto a = std::make_unique<FixedScores>("a", std::vector<double>{});
  auto b = std::make_unique<FixedScores>("b", std::vector<double>{});
  FixedScores* a_ptr = a.get();
  FixedScores* b_ptr = b.get();
  a->fail_update = absl::InternalError("out of memory");
  std::vector<std::unique_ptr<CostModel>> members;
  members.push_back(std::move(a));
  members.push_back(std::move(b));
  auto model = MakeEnsembleModel("ens", std::move(members));
  ASSERT_TRUE(model.ok());
  const absl::Status s = (*model)->Update(std::vector<MeasuredState>(3));
  EXPECT_EQ(s.code(), absl::StatusCode::kInternal);
  EXPECT_EQ(s.message(), "ens: a: out of memory");
  EXPECT_EQ(a_ptr->updates, 3);
  EXPECT_EQ(b_ptr->updates, 3);  // trained although a failed
  EXPECT_EQ((*model)->NumTrainingRecords(), 3);
}

TEST(EnsembleModelTest, CheckpointCarriesEveryMemberByName) {
  auto make = [](const char* first, const char* second) {
    std::vector<std::unique_ptr<CostModel>> members;
    members.push_back(std::make_unique<FixedScores>(first, std::vector<double>{}));
    members.push_back(std::make_unique<FixedScores>(second, std::vector<double>{}));
    return members;
  };
  auto saved = MakeEnsembleModel("ens", make("xgb", "mlp"));
  ASSERT_TRUE(saved.ok());
  auto blob = (*saved)->Save();
  ASSERT_TRUE(blob.ok()) << blob.status();

  auto members = make("xgb", "mlp");
  FixedScores* xgb = static_cast<FixedScores*>(members[0].get());
  FixedScores* mlp = static_cast<FixedScores*>(members[1].get());
  auto loaded = MakeEnsembleModel("ens", std::move(members));
  ASSERT_TRUE(loaded.ok());
  ASSERT_TRUE((*loaded)->Load(*blob).ok());
  EXPECT_EQ(xgb->loaded, "weights of xgb");
  EXPECT_EQ(mlp->loaded, "weights of mlp");

  // Another line-up, a truncated blob or another format load nothing.
  auto swapped = MakeEnsembleModel("ens", make("mlp", "xgb"));
  ASSERT_TRUE(swapped.ok());
  const absl::Status wrong = (*swapped)->Load(*blob);
  EXPECT_EQ(wrong.code(), absl::StatusCode::kInvalidArgument);
  EXPECT_NE(wrong.message().find("'xgb' stands where this ensemble has 'mlp'"),
            std::string_view::npos)
      << wrong;
  EXPECT_FALSE((*loaded)->Load(blob->substr(0, blob->size() - 3)).ok());
  EXPECT_FALSE((*loaded)->Load("weights of xgb").ok());
}

TEST(EnsembleModelTest, RefusesNoMembersAndNullMembers) {
  EXPECT_EQ(MakeEnsembleModel("ens", {}).status().code(), absl::StatusCode::kInvalidArgument);
  std::vector<std::unique_ptr<CostModel>> members;
  members.push_back(nullptr);
  EXPECT_EQ(MakeEnsembleModel("ens", std::move(members)).status().code(),
            absl::StatusCode::kInvalidArgument);
}

}  // namespace
}  // namespace pruner
