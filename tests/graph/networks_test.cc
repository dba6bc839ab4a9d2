// Built-in networks as task lists: task counts, weights, FLOPs against the
// published figures, and task DAGs that validate and round-trip.
#include "common/graph/networks.h"

#include <chrono>
#include <set>

#include "common/graph/fusion.h"
#include "common/graph/tasks.h"
#include "common/ir/ops.h"
#include "gmock/gmock.h"
#include "gtest/gtest.h"

namespace pruner {
namespace {

using ::testing::ElementsAre;
using ::testing::HasSubstr;

// Multiply-accumulates of the matmul-like stages (convolutions, dense,
// batch_matmul), weighted: output elements x reduce points per stage. This
// is the figure papers and model zoos quote ("GFLOPs" that are MACs).
double WeightedMacs(const std::vector<GraphTask>& tasks) {
  static const std::set<std::string> kMacOps = {"conv2d", "depthwise_conv2d", "group_conv2d",
                                                "dense", "batch_matmul"};
  double total = 0;
  for (const GraphTask& t : tasks) {
    for (const OpRef& op : t.dag->ops()) {
      auto tag = op->attrs.find("op");
      if (op->is_placeholder() || tag == op->attrs.end() || !kMacOps.count(tag->second)) continue;
      double points = static_cast<double>(op->num_elements());
      for (const Axis& r : op->reduce_axes) points *= static_cast<double>(r.extent);
      total += t.weight * points;
    }
  }
  return total;
}

struct Expected {
  const char* network;
  size_t tasks;
  int weight_sum;  // fused groups with a reduction
  double macs;
  double max_epilogue_share;  // FLOPs beyond 2 * MACs, as a share of 2 * MACs
};

// MACs by direct count of every layer (each also matches the published
// figure it is quoted with):
// - ResNet-50 (torchvision): 53 convs + fc = 4,089,184,256 ("4.09 GFLOPs"
//   in torchvision's table, 4.1 GMACs / 8.2 GFLOP elsewhere). 56 groups:
//   53 convs, max pool, global pool, fc. Element-wise epilogues (bias, relu,
//   residual add: a few FLOPs on ~11M output elements) add ~0.35%.
// - MobileNet-V2 (torchvision, width 1.0): 300,774,272 ("300M
//   multiply-adds" in the paper). 54 groups: 52 convs, global pool, fc.
//   Epilogues weigh more (~3%): depthwise convs do only 9 MACs per output
//   and relu6 costs 2 FLOPs per element.
// - BERT-base, seq 128: 12 x (4 S H^2 + 2 S H F + 2 S^2 H) = 11,173,625,856
//   (the usual "11.2 GMACs, 22.5 GFLOPs" at seq 128). 133 groups: 12 x
//   (Q, K, V, out, FFN1, FFN2 dense; 2 batch_matmul; softmax; 2 layer norms)
//   + the embedding layer norm. Epilogues, softmax, layer norm ~0.3%.
// - BERT-tiny (L=2, H=128, A=2, F=512), seq 128: 58,720,256; 23 groups;
//   epilogues ~1.7% (narrow layers).
// Task counts: TVM's x86 tutorial extracts 29 tasks from ResNet-50 (its
// Relay graph also fuses a few layout transforms into tasks); ours has 27.
const Expected kExpected[] = {
    {"resnet-50", 27, 56, 4089184256.0, 0.005},
    {"mobilenet-v2", 32, 54, 300774272.0, 0.04},
    {"bert-base", 8, 133, 11173625856.0, 0.005},
    {"bert-tiny", 8, 23, 58720256.0, 0.02},
};

TEST(NetworksTest, KnownNetworksAreSortedAndUnknownNamesAreNotFound) {
  EXPECT_THAT(KnownNetworks(),
              ElementsAre("bert-base", "bert-large", "bert-mini", "bert-small", "bert-tiny",
                          "mobilenet-v2", "resnet-18", "resnet-34", "resnet-50", "resnext-50",
                          "vgg-16", "wide-resnet-50"));
  absl::StatusOr<Graph> g = BuildNetwork("vgg-19");
  EXPECT_EQ(g.status().code(), absl::StatusCode::kNotFound);
  EXPECT_THAT(std::string(g.status().message()),
              HasSubstr("unknown network 'vgg-19'; known: bert-base, bert-large"));
}

// torchvision's documented GFLOPS of its classification models (which count
// multiply-adds) at 224x224: ours must agree to 0.5%.
TEST(NetworksTest, TorchvisionMultiplyAddsOfTheCnns) {
  const std::pair<const char*, double> kTorchvisionGmacs[] = {
      {"resnet-18", 1.81}, {"resnet-34", 3.66},       {"resnet-50", 4.09},
      {"resnext-50", 4.23}, {"wide-resnet-50", 11.40}, {"vgg-16", 15.47},
      {"mobilenet-v2", 0.30}};
  for (const auto& [name, gmacs] : kTorchvisionGmacs) {
    SCOPED_TRACE(name);
    absl::StatusOr<Graph> g = BuildNetwork(name);
    ASSERT_TRUE(g.ok()) << g.status();
    absl::StatusOr<std::vector<GraphTask>> tasks = ExtractTasks(*g);
    ASSERT_TRUE(tasks.ok()) << tasks.status();
    EXPECT_NEAR(WeightedMacs(*tasks) / 1e9, gmacs, gmacs * 0.005 + 0.005);
  }
}

std::vector<int64_t> InputShape(const Graph& g) {
  for (const GraphTensor& t : g.tensors()) {
    if (t.kind == TensorKind::kInput) return t.shape;
  }
  return {};
}

TEST(NetworksTest, SpecsSelectShapesAndNameTheGraphCanonically) {
  absl::StatusOr<Graph> g = BuildNetwork("resnet-50:image=160,batch=4");
  ASSERT_TRUE(g.ok()) << g.status();
  EXPECT_EQ(g->name(), "resnet-50:batch=4,image=160");
  EXPECT_EQ(InputShape(*g), (std::vector<int64_t>{4, 3, 160, 160}));
  absl::StatusOr<Graph> bert = BuildNetwork("bert-base:seq=64");
  ASSERT_TRUE(bert.ok()) << bert.status();
  EXPECT_EQ(InputShape(*bert), (std::vector<int64_t>{64, 768}));
  // Defaults spelled out are the plain name: one network, one name.
  EXPECT_EQ(*CanonicalNetworkSpec("bert-tiny:seq=128,batch=1"), "bert-tiny");
  for (const char* bad : {"bert-tiny:image=224", "resnet-18:seq=64", "resnet-18:image=16",
                          "resnet-18:batch=0", "resnet-18:batch=x", "resnet-18:batch",
                          "bert-base:seq=5000"}) {
    SCOPED_TRACE(bad);
    absl::StatusOr<std::string> spec = CanonicalNetworkSpec(bad);
    EXPECT_EQ(spec.status().code(), absl::StatusCode::kInvalidArgument);
    EXPECT_THAT(std::string(spec.status().message()), HasSubstr(bad));
  }
}

TEST(NetworksTest, TaskCountsWeightsAndFlops) {
  for (const Expected& e : kExpected) {
    SCOPED_TRACE(e.network);
    const auto start = std::chrono::steady_clock::now();
    absl::StatusOr<Graph> g = BuildNetwork(e.network);
    ASSERT_TRUE(g.ok()) << g.status();
    absl::StatusOr<std::vector<GraphTask>> tasks = ExtractTasks(*g);
    ASSERT_TRUE(tasks.ok()) << tasks.status();
    const double seconds =
        std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
    EXPECT_LT(seconds, 1.0) << "building and extracting should stay cheap";

    EXPECT_EQ(tasks->size(), e.tasks);
    int weight_sum = 0;
    std::set<std::string> names, keys;
    for (const GraphTask& t : *tasks) {
      weight_sum += t.weight;
      EXPECT_EQ(static_cast<int>(t.occurrences.size()), t.weight) << t.name;
      EXPECT_GT(t.flops, 0) << t.name;
      EXPECT_TRUE(names.insert(t.name).second) << "duplicate name " << t.name;
      EXPECT_TRUE(keys.insert(t.workload_key).second) << "duplicate key " << t.name;
      EXPECT_EQ(t.workload_key, t.dag->WorkloadKey()) << t.name;
    }
    int reduction_groups = 0;
    for (const FusedGroup& group : FuseGraph(*g)) reduction_groups += group.has_reduction();
    EXPECT_EQ(weight_sum, reduction_groups);
    EXPECT_EQ(weight_sum, e.weight_sum);

    EXPECT_EQ(WeightedMacs(*tasks), e.macs);
    const double flops = WeightedFlops(*tasks);
    EXPECT_GE(flops, 2 * e.macs);
    EXPECT_LE(flops, 2 * e.macs * (1 + e.max_epilogue_share));
  }
}

TEST(NetworksTest, HeadlineFlopFigures) {
  auto gflop = [](const char* name) {
    absl::StatusOr<Graph> g = BuildNetwork(name);
    absl::StatusOr<std::vector<GraphTask>> tasks = ExtractTasks(*g);
    return WeightedFlops(*tasks) / 1e9;
  };
  EXPECT_NEAR(gflop("resnet-50"), 8.2, 0.05);
  EXPECT_NEAR(gflop("mobilenet-v2"), 0.6, 0.025);
  EXPECT_NEAR(gflop("bert-base"), 22.5, 0.2);
  EXPECT_LT(gflop("bert-tiny"), 0.2);
}

// A task's weight and name, looked up by name.
const GraphTask* FindTask(const std::vector<GraphTask>& tasks, const std::string& name) {
  for (const GraphTask& t : tasks) {
    if (t.name == name) return &t;
  }
  return nullptr;
}

TEST(NetworksTest, ResNet50TasksAreTheExpectedConvolutions) {
  absl::StatusOr<Graph> g = BuildNetwork("resnet-50");
  ASSERT_TRUE(g.ok());
  absl::StatusOr<std::vector<GraphTask>> tasks = ExtractTasks(*g);
  ASSERT_TRUE(tasks.ok());
  // The 3x3 conv of layer1 runs in all three blocks.
  const GraphTask* conv = FindTask(*tasks, "conv2d_bias_relu_N1_C64_H56_W56_K64_R3_S3_pad1");
  ASSERT_NE(conv, nullptr);
  EXPECT_EQ(conv->weight, 3);
  EXPECT_THAT(conv->occurrences,
              ElementsAre("layer1.0.conv2d_1", "layer1.1.conv2d_1", "layer1.2.conv2d_1"));
  // The stem equals the operator library's conv2d with bias and relu.
  Conv2dParams p;
  p.in_channels = 3;
  p.height = p.width = 224;
  p.out_channels = 64;
  p.kernel_h = p.kernel_w = 7;
  p.stride_h = p.stride_w = 2;
  p.pad_h = p.pad_w = 3;
  p.bias = true;
  p.activation = Activation::kRelu;
  absl::StatusOr<ComputeDag> stem = Conv2d(p);
  ASSERT_TRUE(stem.ok());
  EXPECT_EQ(tasks->front().workload_key, stem->WorkloadKey());
  EXPECT_EQ(tasks->front().name, "conv2d_bias_relu_N1_C3_H224_W224_K64_R7_S7_stride2_pad3");
  // Every block's last conv absorbs the residual add and relu.
  const GraphTask* last = FindTask(*tasks, "conv2d_bias_add_relu_N1_C256_H14_W14_K1024_R1_S1");
  ASSERT_NE(last, nullptr);
  EXPECT_EQ(last->weight, 6);
  EXPECT_NE(FindTask(*tasks, "max_pool2d_N1_C64_H112_W112_R3_S3_stride2_pad1"), nullptr);
  EXPECT_NE(FindTask(*tasks, "dense_bias_M1_K2048_N1000"), nullptr);
}

TEST(NetworksTest, MobileNetV2HasDepthwiseRelu6Tasks) {
  absl::StatusOr<Graph> g = BuildNetwork("mobilenet-v2");
  ASSERT_TRUE(g.ok());
  absl::StatusOr<std::vector<GraphTask>> tasks = ExtractTasks(*g);
  ASSERT_TRUE(tasks.ok());
  const GraphTask* dw =
      FindTask(*tasks, "depthwise_conv2d_bias_relu6_N1_C960_H7_W7_K960_R3_S3_pad1");
  ASSERT_NE(dw, nullptr);
  EXPECT_EQ(dw->weight, 3);
  int depthwise = 0, residual = 0;
  for (const GraphTask& t : *tasks) {
    depthwise += t.name.rfind("depthwise_conv2d_bias_relu6_", 0) == 0 ? t.weight : 0;
    residual += t.name.find("_bias_add_") != std::string::npos ? t.weight : 0;
  }
  EXPECT_EQ(depthwise, 17);  // one per inverted residual block
  EXPECT_EQ(residual, 10);   // blocks with stride 1 and equal channels
}

TEST(NetworksTest, BertBaseTasksMatchTheOperatorLibrary) {
  absl::StatusOr<Graph> g = BuildNetwork("bert-base");
  ASSERT_TRUE(g.ok());
  absl::StatusOr<std::vector<GraphTask>> tasks = ExtractTasks(*g);
  ASSERT_TRUE(tasks.ok());
  std::vector<std::pair<std::string, int>> got;
  for (const GraphTask& t : *tasks) got.emplace_back(t.name, t.weight);
  EXPECT_THAT(
      got, ElementsAre(std::pair<std::string, int>{"layer_norm_128x768", 25},
                       std::pair<std::string, int>{"dense_bias_M128_K768_N768", 36},
                       std::pair<std::string, int>{"batch_matmul_scale_B12_M128_K64_N128_tb", 12},
                       std::pair<std::string, int>{"softmax_12x128x128", 12},
                       std::pair<std::string, int>{"batch_matmul_B12_M128_K128_N64", 12},
                       std::pair<std::string, int>{"dense_bias_add_M128_K768_N768", 12},
                       std::pair<std::string, int>{"dense_bias_gelu_M128_K768_N3072", 12},
                       std::pair<std::string, int>{"dense_bias_add_M128_K3072_N768", 12}));
  auto key_of = [&](const std::string& name) { return FindTask(*tasks, name)->workload_key; };
  EXPECT_EQ(key_of("layer_norm_128x768"), LayerNorm(128, 768, 1e-12)->WorkloadKey());
  EXPECT_EQ(key_of("dense_bias_M128_K768_N768"),
            Dense(128, 768, 768, DenseOptions{true, Activation::kNone})->WorkloadKey());
  EXPECT_EQ(key_of("dense_bias_gelu_M128_K768_N3072"),
            Dense(128, 768, 3072, DenseOptions{true, Activation::kGelu})->WorkloadKey());
  EXPECT_EQ(key_of("batch_matmul_B12_M128_K128_N64"),
            BatchMatmul(12, 128, 128, 64, false)->WorkloadKey());
}

TEST(NetworksTest, EveryTaskDagValidatesAndRoundTrips) {
  for (const std::string& name : KnownNetworks()) {
    absl::StatusOr<Graph> g = BuildNetwork(name);
    ASSERT_TRUE(g.ok()) << g.status();
    absl::StatusOr<std::vector<GraphTask>> tasks = ExtractTasks(*g);
    ASSERT_TRUE(tasks.ok()) << tasks.status();
    for (const GraphTask& t : *tasks) {
      SCOPED_TRACE(name + " " + t.name);
      absl::StatusOr<ComputeDag> again = ComputeDag::Create(t.dag->ops());
      ASSERT_TRUE(again.ok()) << again.status();
      EXPECT_EQ(t.dag->OutputIndices().size(), 1u);
      const std::string text = t.dag->CanonicalText();
      absl::StatusOr<ComputeDag> parsed = ComputeDag::ParseCanonical(text);
      ASSERT_TRUE(parsed.ok()) << parsed.status();
      EXPECT_EQ(parsed->CanonicalText(), text);
      EXPECT_EQ(parsed->WorkloadKey(), t.workload_key);
      EXPECT_EQ(parsed->FlopCount(), t.flops);
      // Human-readable prints parse too (tensor names are identifiers).
      absl::StatusOr<ComputeDag> from_names = ComputeDag::ParseCanonical(t.dag->ToString());
      ASSERT_TRUE(from_names.ok()) << from_names.status();
      EXPECT_EQ(from_names->WorkloadKey(), t.workload_key);
    }
  }
}

}  // namespace
}  // namespace pruner
