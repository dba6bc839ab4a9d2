// The ranked lists the LibTorch models train on (torch_rank_training.h):
// per-workload lists keep every workload whole in a mini-batch and rank
// each workload on its own.
#include "common/model/torch_rank_training.h"

#include <algorithm>
#include <map>
#include <random>
#include <vector>

#include "gtest/gtest.h"

namespace pruner {
namespace {

// Items 0..n-1 in groups of the given sizes: group_of[item].
std::vector<int> GroupsOfSizes(const std::vector<int>& sizes) {
  std::vector<int> group_of;
  for (size_t g = 0; g < sizes.size(); ++g) group_of.insert(group_of.end(), sizes[g], static_cast<int>(g));
  return group_of;
}

TEST(RankTrainingTest, ShuffledByGroupKeepsEveryGroupContiguous) {
  const std::vector<int> group_of = GroupsOfSizes({3, 1, 5, 2, 4});
  std::vector<int> items(group_of.size());
  for (size_t i = 0; i < items.size(); ++i) items[i] = static_cast<int>(i);
  std::mt19937_64 rng(7);
  const std::vector<int> shuffled = ShuffledByGroup(items, group_of, rng);
  std::vector<int> sorted = shuffled;
  std::sort(sorted.begin(), sorted.end());
  EXPECT_EQ(sorted, items);  // a permutation
  std::map<int, int> runs;   // group -> number of runs it appears in
  for (size_t i = 0; i < shuffled.size(); ++i) {
    if (i == 0 || group_of[shuffled[i]] != group_of[shuffled[i - 1]]) ++runs[group_of[shuffled[i]]];
  }
  for (const auto& [group, n] : runs) EXPECT_EQ(n, 1) << "group " << group << " is split";
  EXPECT_EQ(runs.size(), 5u);
  // Another draw orders the groups differently (5! orders; fixed seeds).
  std::mt19937_64 other(8);
  EXPECT_NE(ShuffledByGroup(items, group_of, other), shuffled);
}

TEST(RankTrainingTest, PackGroupsCutsOnlyBetweenGroupsUnlessOneIsTooLarge) {
  // Contiguous groups of 3, 4, 2, 9 and 1 items; batches of up to 6.
  const std::vector<int> group_of = GroupsOfSizes({3, 4, 2, 9, 1});
  std::vector<int> items(group_of.size());
  for (size_t i = 0; i < items.size(); ++i) items[i] = static_cast<int>(i);
  const auto batches = PackGroups(items, group_of, 6);
  const std::vector<std::pair<size_t, size_t>> expected = {
      {0, 3},    // 3 (adding the 4 would make 7)
      {3, 9},    // 4 + 2
      {9, 15},   // the 9 in a batch of 6 ...
      {15, 19},  // ... and its last 3 with the 1
  };
  EXPECT_EQ(batches, expected);
  EXPECT_EQ(PackGroups(items, group_of, 100),
            (std::vector<std::pair<size_t, size_t>>{{0, items.size()}}));
  EXPECT_TRUE(PackGroups({}, group_of, 6).empty());
}

TEST(RankTrainingTest, GroupedLossRanksEachGroupOnItsOwn) {
  // Two workloads interleaved; a one-program workload adds nothing.
  const torch::Tensor scores = torch::tensor({0.3f, 2.0f, -1.0f, 0.5f, 1.5f, 0.0f, 9.0f});
  const torch::Tensor labels = torch::tensor({1.0f, 0.2f, 0.5f, 1.0f, 0.1f, 0.7f, 1.0f});
  const std::vector<int> group = {0, 1, 0, 1, 0, 1, 2};
  auto part = [&](std::vector<int64_t> rows) {
    const torch::Tensor index = torch::tensor(rows);
    return LambdaRankLoss(scores.index_select(0, index), labels.index_select(0, index)).item<float>();
  };
  const float grouped = GroupedLambdaRankLoss(scores, labels, group).item<float>();
  EXPECT_NEAR(grouped, part({0, 2, 4}) + part({1, 3, 5}), 1e-5);
  // Cross-workload order is free: shifting one workload's scores by a
  // constant changes a mixed list's loss, not the grouped one.
  const torch::Tensor shifted = scores + torch::tensor({0.f, 5.f, 0.f, 5.f, 0.f, 5.f, 0.f});
  EXPECT_NEAR(GroupedLambdaRankLoss(shifted, labels, group).item<float>(), grouped, 1e-5);
  EXPECT_GT(std::abs(LambdaRankLoss(shifted, labels).item<float>() -
                     LambdaRankLoss(scores, labels).item<float>()),
            1e-3);
}

TEST(RankTrainingTest, GainExponentWeightsTheTopOfTheList) {
  const torch::Tensor labels = torch::tensor({1.0f, 0.8f, 0.3f, 0.2f});
  const torch::Tensor right = torch::tensor({4.0f, 3.0f, 2.0f, 1.0f});
  // The same mistake in two places: the best two swapped, or the worst two.
  const torch::Tensor top_swapped = torch::tensor({3.0f, 4.0f, 2.0f, 1.0f});
  const torch::Tensor bottom_swapped = torch::tensor({4.0f, 3.0f, 1.0f, 2.0f});
  auto loss = [&](const torch::Tensor& scores, double g) {
    return LambdaRankLoss(scores, labels, g).item<double>();
  };
  // What each mistake costs over the right order, top against bottom.
  auto top_over_bottom = [&](double g) {
    return (loss(top_swapped, g) - loss(right, g)) / (loss(bottom_swapped, g) - loss(right, g));
  };
  EXPECT_DOUBLE_EQ(LambdaRankLoss(top_swapped, labels).item<double>(), loss(top_swapped, 1.0));
  EXPECT_GT(top_over_bottom(1.0), 1.0);  // NDCG already cares more about the top ...
  EXPECT_GT(top_over_bottom(16.0), 100 * top_over_bottom(1.0));  // ... a steep gain far more
  // The grouped loss passes the exponent to every group.
  const torch::Tensor two = torch::cat({labels, labels});
  const torch::Tensor scores = torch::cat({top_swapped, bottom_swapped});
  EXPECT_NEAR(GroupedLambdaRankLoss(scores, two, {0, 0, 0, 0, 1, 1, 1, 1}, 16.0).item<float>(),
              loss(top_swapped, 16.0) + loss(bottom_swapped, 16.0), 1e-4);
}

TEST(RankTrainingTest, GroupWeightsScaleEachGroupsLoss) {
  const torch::Tensor labels = torch::tensor({1.0f, 0.5f, 1.0f, 0.5f, 0.2f});
  const torch::Tensor scores = torch::tensor({0.0f, 1.0f, 2.0f, 0.5f, 1.0f});
  const std::vector<int> group = {1, 1, 0, 0, 0};
  auto part = [&](std::vector<int64_t> rows) {
    const torch::Tensor index = torch::tensor(rows);
    return LambdaRankLoss(scores.index_select(0, index), labels.index_select(0, index)).item<float>();
  };
  const std::vector<float> weights = {0.5f, 3.0f};  // group 0, group 1
  EXPECT_NEAR(GroupedLambdaRankLoss(scores, labels, group, 1.0, &weights).item<float>(),
              0.5f * part({2, 3, 4}) + 3.0f * part({0, 1}), 1e-5);
}

// Debian's LibTorch multiplies matrices in OpenBLAS, whose own pool ignores
// torch::set_num_threads: a "one-thread" fit must hold OpenBLAS to one
// thread too, and give the count back when the last fit ends.
TEST(RankTrainingTest, TorchThreadsHoldsBlasToTheRequestAndRestoresIt) {
  const int before = TorchThreads::BlasThreadCount();
  if (before == 0) GTEST_SKIP() << "torch does not use OpenBLAS here";
  {
    const TorchThreads one(1);
    EXPECT_EQ(torch::get_num_threads(), 1);
    EXPECT_EQ(TorchThreads::BlasThreadCount(), 1);
    {
      const TorchThreads nested(1);  // a second model training beside the first
      EXPECT_EQ(TorchThreads::BlasThreadCount(), 1);
    }
    EXPECT_EQ(TorchThreads::BlasThreadCount(), 1);  // the first still holds it
  }
  EXPECT_EQ(TorchThreads::BlasThreadCount(), before);
}

}  // namespace
}  // namespace pruner
