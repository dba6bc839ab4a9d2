// PaCM end to end: real random schedules of a matmul, featurized by the
// features layer, with a synthetic (formula, not measured) cost from
// schedule_dataset.h; then its three modes, MoA's momentum update and its
// checkpoints.
#include "common/model/pacm_model.h"

#include <algorithm>
#include <cmath>
#include <iostream>
#include <limits>
#include <memory>
#include <string>

#include "common/model/mlp_model.h"
#include "common/model/pacm_pretrain.h"
#include "common/model/pacm_training_set.h"
#include "gtest/gtest.h"
#include "tests/model/model_test_util.h"
#include "tests/model/schedule_dataset.h"

namespace pruner {
namespace {

using testing::MatmulSchedules;

// Fewer epochs where the test is about plumbing, not accuracy.
PaCMModelOptions Options(PaCMMode mode, int max_epochs = 0) {
  PaCMModelOptions o;
  o.mode = mode;
  o.featurize_threads = 2;
  if (max_epochs > 0) o.training.schedule.max_epochs = max_epochs;
  return o;
}

// An online model trained for a few epochs on records [0, end).
std::unique_ptr<PaCMCostModel> QuicklyTrained(int end, int max_epochs = 5) {
  const auto& data = MatmulSchedules();
  auto model = MakePaCMModel(data.device, Options(PaCMMode::kOnline, max_epochs));
  EXPECT_TRUE(model->Update(data.Records(0, end)).ok());
  EXPECT_TRUE(model->IsTrained());
  return model;
}

// The same CPU under another name: what MoA and offline mode see when the
// checkpoint comes from a different device.
DeviceProfile OtherDevice() {
  DeviceProfile d = MatmulSchedules().device;
  d.name = "cpu-target-for-moa";
  return d;
}

// A checkpoint pretrained on the first 150 schedules, once per binary.
const PaCMPretrainResult& Pretrained() {
  static const PaCMPretrainResult* result = [] {
    const auto& data = MatmulSchedules();
    PaCMPretrainOptions o;
    o.featurize_threads = 2;
    o.training.schedule.max_epochs = 20;
    auto r = PretrainPaCM(data.Records(0, 150), data.device, o);
    EXPECT_TRUE(r.ok()) << r.status();
    return new PaCMPretrainResult(r.ok() ? *std::move(r) : PaCMPretrainResult{});
  }();
  return *result;
}

TEST(PaCMNetworkTest, HasPrunersParameterCount) {
  // ../shared/specs/pruner.md §5.1, counted on Pruner's shipped checkpoint.
  auto net = PaCMNetwork::Create(PaCMNetworkShape{}, 1);
  ASSERT_TRUE(net.ok()) << net.status();
  EXPECT_EQ((*net)->NumParameterValues(), 417409);
  EXPECT_EQ((*net)->NumBufferValues(), 513);
  EXPECT_FALSE(PaCMNetwork::Create(PaCMNetworkShape{.attention_dim = 130}, 1).ok());
}

TEST(PaCMNetworkTest, TheAnalyzerBranchAddsItsLayersAndNothingElse) {
  auto plain = PaCMNetwork::Create(PaCMNetworkShape{}, 7);
  auto branch = PaCMNetwork::Create(PaCMNetworkShape{.symbol_hidden = 64}, 7);
  ASSERT_TRUE(plain.ok() && branch.ok());
  // 36→64 and 64→64 layers, and the fusion layer's 64 more inputs.
  static_assert(kProgramSymbolWidth == 36);
  EXPECT_EQ((*branch)->NumParameterValues(),
            417409 + (36 * 64 + 64) + (64 * 64 + 64) + 64 * 256);
  // Its layers are made last, so the layers before the wider fusion layer
  // draw the same initial weights with and without it (a network without
  // the branch is the one earlier builds made for a seed).
  EXPECT_EQ((*plain)->ParameterValues("statement0.weight").value(),
            (*branch)->ParameterValues("statement0.weight").value());
  EXPECT_EQ((*plain)->ParameterValues("block1.weight").value(),
            (*branch)->ParameterValues("block1.weight").value());
  EXPECT_NE((*plain)->ParameterValues("fuse.weight").value().size(),
            (*branch)->ParameterValues("fuse.weight").value().size());
  EXPECT_FALSE(PaCMNetwork::Create(PaCMNetworkShape{.symbol_hidden = -1}, 1).ok());
}

TEST(PaCMTrainingSetTest, LabelsArePerWorkloadOverAllRecords) {
  const auto& data = MatmulSchedules();
  std::vector<MeasuredState> records = data.Records(0, 20);
  // The second half poses as another workload 10x slower: §5.2 normalizes
  // each workload by its own best, so both have a 1.
  for (int i = 10; i < 20; ++i) {
    records[i].workload_key = "other";
    records[i].mean_cost_s *= 10;
  }
  records[3].ok = false;  // a failed measurement: label 0
  PaCMTrainingSet set;
  set.Add(records, data.device, 2);
  const PaCMLabeledBatch all = set.Batch();
  ASSERT_EQ(all.batch.num_programs, 20);
  const std::vector<float> expected = NormalizedThroughputLabels(records);
  EXPECT_EQ(all.labels, expected);
  EXPECT_EQ(*std::max_element(all.labels.begin(), all.labels.begin() + 10), 1.0f);
  EXPECT_EQ(*std::max_element(all.labels.begin() + 10, all.labels.end()), 1.0f);
  EXPECT_EQ(all.labels[3], 0.0f);
  // A subset keeps the labels of the whole set, in the subset's order.
  const std::vector<int> some = {15, 2};
  const PaCMLabeledBatch part = set.Batch(&some);
  EXPECT_EQ(part.record, some);
  EXPECT_EQ(part.labels, (std::vector<float>{expected[15], expected[2]}));
  // Workloads are numbered in order of first appearance within the batch.
  EXPECT_EQ(all.workload, (std::vector<int>{0, 0, 0, 0, 0, 0, 0, 0, 0, 0,
                                            1, 1, 1, 1, 1, 1, 1, 1, 1, 1}));
  EXPECT_EQ(part.workload, (std::vector<int>{0, 1}));
  // Each workload's best cost is over all its ok records, in batch numbering.
  double best = std::numeric_limits<double>::infinity();
  for (int i = 0; i < 10; ++i) {
    if (records[i].ok) best = std::min(best, records[i].mean_cost_s);
  }
  ASSERT_EQ(all.workload_best_cost.size(), 2u);
  EXPECT_DOUBLE_EQ(all.workload_best_cost[0], best);
  EXPECT_DOUBLE_EQ(part.workload_best_cost[1], best);  // record 2 is workload 0's
}

TEST(PaCMTrainingSetTest, ListWeightsFollowBestCostAndAverageOne) {
  const std::vector<double> best = {1e-5, 1e-3, 0.0, 4e-3};  // the third has no ok record
  const std::vector<float> flat = BestCostListWeights(best, 0.0);
  EXPECT_EQ(flat, (std::vector<float>{1, 1, 0, 1}));
  const std::vector<float> sqrt_weights = BestCostListWeights(best, 0.5);
  EXPECT_NEAR(sqrt_weights[0] + sqrt_weights[1] + sqrt_weights[3], 3.0, 1e-5);
  EXPECT_EQ(sqrt_weights[2], 0.0f);
  EXPECT_NEAR(sqrt_weights[1] / sqrt_weights[0], 10.0, 1e-4);  // sqrt(100)
  EXPECT_NEAR(sqrt_weights[3] / sqrt_weights[1], 2.0, 1e-5);   // sqrt(4)
  EXPECT_TRUE(BestCostListWeights({0.0, 0.0}, 0.5) == (std::vector<float>{0, 0}));
}

TEST(PaCMModelTest, PerWorkloadListsRankHeldOutSchedules) {
  // The matmul's records posing as three workloads, two of them slower by a
  // constant factor: labels are per workload, so each has its own best.
  const auto& data = MatmulSchedules();
  std::vector<MeasuredState> records = data.Records(0, 200);
  for (size_t i = 0; i < records.size(); ++i) {
    if (i % 3 == 0) continue;
    records[i].workload_key = i % 3 == 1 ? "slower" : "slowest";
    records[i].mean_cost_s *= i % 3 == 1 ? 3 : 10;
  }
  PaCMModelOptions options = Options(PaCMMode::kOnline);
  options.training.schedule.per_workload_lists = true;
  options.training.schedule.batch_size = 64;  // whole workloads do not fit: pieces
  auto model = MakePaCMModel(data.device, options);
  ASSERT_TRUE(model->Update(records).ok());
  const testing::HeldOutRanking r = testing::RankHeldOut(*model, data, 200, 300);
  std::cout << "held-out schedules, per-workload lists: " << r << "\n";
  EXPECT_GT(r.spearman, 0.5);
  EXPECT_GT(r.pairwise, 0.65);
  // The same training with lists that mix the three differs: the option
  // reaches the loss.
  PaCMModelOptions mixed = options;
  mixed.training.schedule.per_workload_lists = false;
  mixed.training.schedule.max_epochs = 3;
  options.training.schedule.max_epochs = 3;
  auto a = MakePaCMModel(data.device, options);
  auto b = MakePaCMModel(data.device, mixed);
  ASSERT_TRUE(a->Update(records).ok());
  ASSERT_TRUE(b->Update(records).ok());
  const std::vector<State> probe = data.States(200, 220);
  EXPECT_NE(a->Predict(probe), b->Predict(probe));
  // So do a steeper gain and lists weighted by their best cost.
  PaCMModelOptions steep = options;
  steep.training.schedule.gain_exponent = 16;
  PaCMModelOptions weighted = options;
  weighted.training.schedule.list_weight_power = 1;
  auto c = MakePaCMModel(data.device, steep);
  auto d = MakePaCMModel(data.device, weighted);
  ASSERT_TRUE(c->Update(records).ok());
  ASSERT_TRUE(d->Update(records).ok());
  EXPECT_NE(c->Predict(probe), a->Predict(probe));
  EXPECT_NE(d->Predict(probe), a->Predict(probe));
}

TEST(PaCMModelTest, OnlineRanksHeldOutSchedules) {
  const auto& data = MatmulSchedules();
  auto model = MakePaCMModel(data.device, Options(PaCMMode::kOnline));
  EXPECT_EQ(model->Name(), "pacm");
  ASSERT_TRUE(model->Update(data.Records(0, 200)).ok());
  ASSERT_TRUE(model->IsTrained());
  const testing::HeldOutRanking r = testing::RankHeldOut(*model, data, 200, 300);
  std::cout << "held-out schedules: " << r << " (fit " << model->last_fit()->iterations
            << " epochs, " << model->last_fit()->seconds << " s)\n";
  EXPECT_GT(r.spearman, 0.5);
  EXPECT_GT(r.pairwise, 0.65);
  EXPECT_GT(r.top10, r.random_top10);
}

TEST(PaCMModelTest, OnlineRetrainsAFreshNetworkOnAllRecords) {
  const auto& data = MatmulSchedules();
  auto stepwise = MakePaCMModel(data.device, Options(PaCMMode::kOnline, 4));
  ASSERT_TRUE(stepwise->Update(data.Records(0, 40)).ok());
  ASSERT_TRUE(stepwise->Update(data.Records(40, 80)).ok());
  EXPECT_EQ(stepwise->num_retrains(), 2);
  EXPECT_EQ(stepwise->NumTrainingRecords(), 80);
  auto at_once = MakePaCMModel(data.device, Options(PaCMMode::kOnline, 4));
  ASSERT_TRUE(at_once->Update(data.Records(0, 80)).ok());
  // §5.4: the second retrain starts from scratch, so it equals one fit on
  // the union.
  const std::vector<State> probe = data.States(200, 230);
  EXPECT_EQ(stepwise->Predict(probe), at_once->Predict(probe));
}

TEST(PaCMModelTest, PredictIsBatchIndependent) {
  const auto& data = MatmulSchedules();
  auto model = QuicklyTrained(100);
  const std::vector<State> batch = data.States(200, 300);
  const std::vector<double> together = model->Predict(batch);
  ASSERT_EQ(together.size(), 100u);
  // The scores differ from state to state, so equality below is not
  // a constant network's.
  EXPECT_NE(*std::min_element(together.begin(), together.end()),
            *std::max_element(together.begin(), together.end()));
  // Not bit for bit: BLAS sums in another order for another batch size,
  // which moves scores by float rounding. Batch statistics would move them
  // by O(1) (and fail outright on a batch of one).
  double largest_difference = 0;
  auto compare = [&](double got, double want) {
    largest_difference = std::max(largest_difference, std::abs(got - want));
    EXPECT_NEAR(got, want, 1e-5 * std::max(1.0, std::abs(want)));
  };
  for (int i : {0, 37, 99}) {
    const std::vector<double> alone = model->Predict({batch[i]});
    ASSERT_EQ(alone.size(), 1u);
    compare(alone[0], together[i]);
  }
  std::vector<State> reversed(batch.rbegin(), batch.rend());
  const std::vector<double> backwards = model->Predict(reversed);
  for (int i = 0; i < 100; ++i) compare(backwards[99 - i], together[i]);
  std::cout << "largest score difference alone or reordered vs in a batch of 100: "
            << largest_difference << "\n";
}

// Random GPU schedules of a matmul for the A100, lowered for a copy of its
// profile that allows 64 threads per block: the schedules with bigger
// blocks fail to lower there, as they would on a device they exceed.
struct GpuSchedules {
  DeviceProfile device;
  std::vector<State> states;
  std::vector<bool> lowers;
};

GpuSchedules SmallBlockGpuSchedules() {
  GpuSchedules out;
  auto a100 = GetDeviceProfile("a100");
  auto dag = BuildOperator("matmul:M=64,K=64,N=64");
  EXPECT_TRUE(a100.ok() && dag.ok());
  auto shared = std::make_shared<const ComputeDag>(*std::move(dag));
  auto sketches = GenerateSketches(shared, *a100);
  EXPECT_TRUE(sketches.ok()) << sketches.status();
  Rng rng(11);
  out.states = SampleInitPopulation(*sketches, *a100, 40, rng);
  out.device = *a100;
  out.device.name = "a100-small-blocks";
  out.device.max_threads_per_block = 64;
  for (const State& s : out.states) out.lowers.push_back(ExtractPaCMFeatures(s, out.device).ok());
  return out;
}

TEST(PaCMModelTest, StatesThatFailToLowerScoreMinusInfinity) {
  const GpuSchedules gpu = SmallBlockGpuSchedules();
  const int num_valid = static_cast<int>(std::count(gpu.lowers.begin(), gpu.lowers.end(), true));
  std::cout << num_valid << " of " << gpu.states.size() << " schedules lower\n";
  ASSERT_GE(num_valid, 5);
  ASSERT_GE(static_cast<int>(gpu.states.size()) - num_valid, 1);

  auto model = MakePaCMModel(gpu.device, Options(PaCMMode::kOnline, 5));
  constexpr double kMinusInf = -std::numeric_limits<double>::infinity();
  // Untrained: 0 for every state that lowers (§5.4), -inf for the others.
  std::vector<double> scores = model->Predict(gpu.states);
  for (size_t i = 0; i < gpu.states.size(); ++i) {
    EXPECT_EQ(scores[i], gpu.lowers[i] ? 0.0 : kMinusInf) << i;
  }
  std::vector<MeasuredState> records;
  const std::string key = gpu.states[0].original_dag()->WorkloadKey();
  for (size_t i = 0; i < gpu.states.size(); ++i) {
    records.push_back({gpu.states[i], key, 1.0 + static_cast<double>(i % 5), gpu.lowers[i]});
  }
  ASSERT_TRUE(model->Update(records).ok());
  ASSERT_TRUE(model->IsTrained());
  EXPECT_EQ(model->num_unfeaturized_records(), static_cast<int64_t>(gpu.states.size()) - num_valid);
  scores = model->Predict(gpu.states);
  for (size_t i = 0; i < gpu.states.size(); ++i) {
    if (gpu.lowers[i]) {
      EXPECT_TRUE(std::isfinite(scores[i])) << i;
    } else {
      EXPECT_EQ(scores[i], kMinusInf) << i;
    }
  }
}

TEST(PaCMModelTest, SaveLoadRoundTrip) {
  const auto& data = MatmulSchedules();
  auto model = QuicklyTrained(120);
  const std::vector<State> probe = data.States(120, 180);
  const std::vector<double> before = model->Predict(probe);
  auto blob = model->Save();
  ASSERT_TRUE(blob.ok()) << blob.status();
  // The loading model's own widths do not matter: the checkpoint has them.
  PaCMModelOptions other = Options(PaCMMode::kOnline, 5);
  other.network.hidden = 32;
  auto loaded = MakePaCMModel(data.device, other);
  ASSERT_TRUE(loaded->Load(*blob).ok());
  EXPECT_EQ(loaded->Predict(probe), before);
  EXPECT_EQ(loaded->NumTrainingRecords(), 120);
  EXPECT_EQ(loaded->predictor()->scales().statement, model->predictor()->scales().statement);
  EXPECT_EQ(loaded->predictor()->scales().block, model->predictor()->scales().block);
}

TEST(PaCMModelTest, TheAnalyzerBranchLearnsFromTheAnalyzersVectorAndTravelsWithIt) {
  const auto& data = MatmulSchedules();
  PaCMModelOptions options = Options(PaCMMode::kOnline);
  options.network.symbol_hidden = 16;
  auto model = MakePaCMModel(data.device, options);
  ASSERT_TRUE(model->Update(data.Records(0, 200)).ok());
  ASSERT_EQ(model->predictor()->shape().symbol_hidden, 16);
  // The vectors were extracted: their column maxima are fitted (an unseen
  // column would keep the scale 1; the estimate's is ~log2 of nanoseconds).
  EXPECT_GT(model->predictor()->scales().symbol[24], 5.0f);
  const testing::HeldOutRanking r = testing::RankHeldOut(*model, data, 200, 300);
  std::cout << "held-out schedules, analyzer branch: " << r << "\n";
  EXPECT_GT(r.spearman, 0.5);
  EXPECT_GT(r.pairwise, 0.65);
  // A model built without the branch loads it, extracts the vectors for
  // it and scores as it did.
  const std::vector<State> probe = data.States(200, 240);
  auto blob = model->Save();
  ASSERT_TRUE(blob.ok()) << blob.status();
  auto loaded = MakePaCMModel(data.device, Options(PaCMMode::kOnline, 5));
  ASSERT_TRUE(loaded->Load(*blob).ok());
  EXPECT_EQ(loaded->predictor()->shape().symbol_hidden, 16);
  EXPECT_EQ(loaded->predictor()->scales().symbol, model->predictor()->scales().symbol);
  EXPECT_EQ(loaded->Predict(probe), model->Predict(probe));
}

TEST(PaCMModelTest, LoadRefusesWhatIsNotItsOwn) {
  const auto& data = MatmulSchedules();
  auto model = QuicklyTrained(60, 3);
  auto blob = model->Save();
  ASSERT_TRUE(blob.ok()) << blob.status();
  const std::vector<State> probe = data.States(200, 220);
  const std::vector<double> before = model->Predict(probe);

  EXPECT_FALSE(model->Load("garbage").ok());
  auto mlp_blob = MakeMlpModel(data.device)->Save();
  ASSERT_TRUE(mlp_blob.ok());
  absl::Status s = model->Load(*mlp_blob);
  EXPECT_TRUE(absl::IsInvalidArgument(s)) << s;
  EXPECT_NE(s.message().find("'mlp'"), absl::string_view::npos) << s;

  std::string other_version = *blob;
  const size_t at = other_version.find("pacm-payload 1\n");
  ASSERT_NE(at, std::string::npos);
  other_version[at + 13] = '7';
  s = model->Load(other_version);
  EXPECT_TRUE(absl::IsInvalidArgument(s)) << s;
  EXPECT_NE(s.message().find("version 7"), absl::string_view::npos) << s;

  std::string corrupt = *blob;
  for (size_t i = corrupt.size() / 2; i < corrupt.size(); ++i) corrupt[i] = '\x5a';
  EXPECT_FALSE(model->Load(corrupt).ok());
  EXPECT_FALSE(model->Load(blob->substr(0, blob->size() - 10)).ok());

  // Online mode learns per device; moa and offline take any device.
  auto elsewhere = MakePaCMModel(OtherDevice(), Options(PaCMMode::kOnline));
  EXPECT_TRUE(absl::IsFailedPrecondition(elsewhere->Load(*blob)));
  EXPECT_TRUE(MakePaCMModel(OtherDevice(), Options(PaCMMode::kOffline))->Load(*blob).ok());
  // An untrained model's checkpoint cannot seed MoA.
  auto untrained = MakePaCMModel(data.device, Options(PaCMMode::kOnline))->Save();
  ASSERT_TRUE(untrained.ok());
  EXPECT_FALSE(MakePaCMModel(data.device, Options(PaCMMode::kMoA))->Load(*untrained).ok());

  EXPECT_EQ(model->Predict(probe), before);
}

TEST(PaCMPretrainTest, HeldOutRecordsRankBetterThanChance) {
  const PaCMPretrainResult& r = Pretrained();
  ASSERT_FALSE(r.checkpoint.empty());
  std::cout << "pretraining: " << r.train_programs << " programs, " << r.fit.iterations
            << " epochs, " << r.fit.seconds << " s; held out " << r.holdout_programs
            << ", pairwise accuracy " << r.holdout_pairwise_accuracy << "\n";
  // Per workload, the earliest 10% are held out.
  EXPECT_EQ(r.train_programs, 135);
  EXPECT_EQ(r.holdout_programs, 15);
  EXPECT_EQ(r.holdout_workloads, 1);
  EXPECT_GT(r.holdout_pairwise_accuracy, 0.6);
}

TEST(PaCMPretrainTest, AnAnalyzerBranchCheckpointCarriesItsVectorsToMoA) {
  const auto& data = MatmulSchedules();
  PaCMPretrainOptions o;
  o.featurize_threads = 2;
  o.training.schedule.max_epochs = 10;
  o.network.symbol_hidden = 16;
  auto r = PretrainPaCM(data.Records(0, 150), data.device, o);
  ASSERT_TRUE(r.ok()) << r.status();
  EXPECT_GT(r->holdout_pairwise_accuracy, 0.6);
  // MoA on another device takes the checkpoint's shape, and its scales
  // were fitted on extracted vectors (the estimate's column is not 1).
  auto moa = MakePaCMModel(OtherDevice(), Options(PaCMMode::kMoA, 3));
  ASSERT_TRUE(moa->Load(r->checkpoint).ok());
  EXPECT_EQ(moa->predictor()->shape().symbol_hidden, 16);
  EXPECT_GT(moa->predictor()->scales().symbol[24], 5.0f);
  ASSERT_TRUE(moa->Update(data.Records(150, 200)).ok());
}

TEST(PaCMMoATest, SiameseMovesByOneMinusMomentumOfTheTargetDifference) {
  const auto& data = MatmulSchedules();
  PaCMModelOptions o = Options(PaCMMode::kMoA, 5);
  auto moa = MakePaCMModel(OtherDevice(), o);
  EXPECT_TRUE(absl::IsFailedPrecondition(moa->Update(data.Records(150, 160))));
  ASSERT_TRUE(moa->Load(Pretrained().checkpoint).ok());
  ASSERT_NE(moa->siamese(), nullptr);
  ASSERT_NE(moa->predictor(), moa->siamese());

  // Until the first retrain the pretrained network predicts.
  auto offline = MakePaCMModel(OtherDevice(), Options(PaCMMode::kOffline));
  ASSERT_TRUE(offline->Load(Pretrained().checkpoint).ok());
  const std::vector<State> probe = data.States(200, 240);
  const std::vector<double> pretrained = offline->Predict(probe);
  EXPECT_EQ(moa->Predict(probe), pretrained);

  const std::vector<std::string> names = {"statement0.weight", "attention.in_proj_weight",
                                          "norm.weight", "out.bias"};
  std::vector<std::vector<float>> before;
  for (const std::string& name : names) before.push_back(*moa->siamese()->ParameterValues(name));

  // Every 4th Update retrains (§6.2); the three before change nothing.
  for (int round = 0; round < 3; ++round) {
    ASSERT_TRUE(moa->Update(data.Records(150 + 10 * round, 160 + 10 * round)).ok());
    EXPECT_EQ(moa->num_retrains(), 0);
  }
  EXPECT_EQ(moa->Predict(probe), pretrained);
  ASSERT_TRUE(moa->Update(data.Records(180, 190)).ok());
  ASSERT_EQ(moa->num_retrains(), 1);
  EXPECT_EQ(moa->num_updates(), 4);
  EXPECT_EQ(moa->NumTrainingRecords(), 40);
  EXPECT_NE(moa->Predict(probe), pretrained);

  for (size_t n = 0; n < names.size(); ++n) {
    const std::vector<float> target = *moa->predictor()->ParameterValues(names[n]);
    const std::vector<float> after = *moa->siamese()->ParameterValues(names[n]);
    ASSERT_EQ(target.size(), before[n].size());
    double largest_step = 0;
    for (size_t i = 0; i < target.size(); ++i) {
      const double expected = before[n][i] + (1.0 - o.momentum) * (target[i] - before[n][i]);
      ASSERT_NEAR(after[i], expected, 1e-7 + 1e-6 * std::abs(expected)) << names[n] << "[" << i << "]";
      largest_step = std::max(largest_step, std::abs(static_cast<double>(target[i]) - before[n][i]));
    }
    // The target really moved away from the Siamese it started from.
    EXPECT_GT(largest_step, 1e-4) << names[n];
  }

  // A MoA checkpoint carries the Siamese and the counter.
  auto blob = moa->Save();
  ASSERT_TRUE(blob.ok()) << blob.status();
  auto resumed = MakePaCMModel(OtherDevice(), o);
  ASSERT_TRUE(resumed->Load(*blob).ok());
  EXPECT_EQ(resumed->num_updates(), 4);
  EXPECT_EQ(*resumed->siamese()->ParameterValues("out.bias"),
            *moa->siamese()->ParameterValues("out.bias"));
  EXPECT_EQ(resumed->Predict(probe), moa->Predict(probe));
}

TEST(PaCMOfflineTest, UpdateChangesNothing) {
  const auto& data = MatmulSchedules();
  auto offline = MakePaCMModel(OtherDevice(), Options(PaCMMode::kOffline));
  EXPECT_TRUE(absl::IsFailedPrecondition(offline->Update(data.Records(150, 160))));
  ASSERT_TRUE(offline->Load(Pretrained().checkpoint).ok());
  const std::vector<State> probe = data.States(200, 260);
  const std::vector<double> before = offline->Predict(probe);
  ASSERT_TRUE(offline->Update(data.Records(150, 250)).ok());
  EXPECT_EQ(offline->Predict(probe), before);
  EXPECT_EQ(offline->num_retrains(), 0);
  EXPECT_EQ(offline->NumTrainingRecords(), Pretrained().train_programs);
}

}  // namespace
}  // namespace pruner
