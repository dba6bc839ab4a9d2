// Built-in networks, written with GraphBuilder like their PyTorch (and
// Relay) definitions, so that their tuning tasks come from fusion rather
// than from typed-in tables.
//
// Conventions shared by all of them:
// - float32 inference graphs; weights are placeholders (shapes only);
// - batch norm is folded into the preceding convolution's bias, as TVM does
//   after SimplifyInference + FoldScaleAxis, so every conv is conv2d +
//   bias_add; dropout is the identity and is left out;
// - NCHW activations; dense layers take [rows, features].
#ifndef PRUNER_COMMON_GRAPH_NETWORKS_H_
#define PRUNER_COMMON_GRAPH_NETWORKS_H_

#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

#include "absl/status/statusor.h"
#include "common/graph/graph.h"

namespace pruner {

// The built-in networks, sorted: the BERT family (tiny, mini, small, base,
// large: Google's BERT miniatures and the two originals), mobilenet-v2,
// resnet-18/34/50, resnext-50 (32x4d), vgg-16, wide-resnet-50 (_2). By
// default every one runs at batch 1, images 224x224, BERT sequences of 128.
std::vector<std::string> KnownNetworks();

// A network, optionally at other shapes: "NAME" or "NAME:KEY=VALUE,...",
// e.g. "resnet-50:batch=4,image=160" or "bert-base:seq=256". Keys: batch
// (every network), image (the CNNs; 32 to 1024), seq
// (BERT; 1 to 4096). An unknown name is NotFound listing the known names; an
// unknown key or bad value InvalidArgument. The graph's name is the spec in
// canonical form: the name, then the keys that differ from the defaults in
// the order batch, image, seq ("resnet-50:batch=4,image=160").
absl::StatusOr<Graph> BuildNetwork(std::string_view spec);

// The canonical form of a spec (see above), or its error.
absl::StatusOr<std::string> CanonicalNetworkSpec(std::string_view spec);

// torchvision's resnet50 (the "v1.5" bottleneck: the stride sits on the 3x3
// conv; downsample = 1x1 conv + folded BN on the first block of each stage):
// stem conv 7x7/2 + relu, max pool 3x3/2, stages of 3, 4, 6, 3 bottlenecks
// (out = relu(conv3(...) + identity)), global average pool, flatten, fc.
absl::StatusOr<Graph> BuildResNet50(int64_t batch = 1, int64_t image_size = 224);

// The whole torchvision ResNet family: blocks per stage, BasicBlock (18/34)
// or Bottleneck (50+), and the Bottleneck's 3x3 width (width_per_group 128:
// wide_resnet50_2; groups 32 x 4: resnext50_32x4d).
struct ResNetConfig {
  int blocks[4] = {3, 4, 6, 3};
  bool bottleneck = true;
  int64_t groups = 1;
  int64_t width_per_group = 64;
  int64_t batch = 1;
  int64_t image_size = 224;
};
absl::StatusOr<Graph> BuildResNet(const ResNetConfig& config, std::string name);

// torchvision's vgg16 (see vgg.cc).
absl::StatusOr<Graph> BuildVgg16(int64_t batch = 1, int64_t image_size = 224,
                                 std::string name = "vgg-16");

// torchvision's mobilenet_v2 (width 1.0): stem conv 3x3/2 + relu6, 17
// inverted residual blocks (1x1 expand + relu6 unless t = 1, 3x3 depthwise
// + relu6, 1x1 linear projection, residual add when stride 1 and in == out
// channels), 1x1 conv to 1280 + relu6, global average pool, flatten, fc.
absl::StatusOr<Graph> BuildMobileNetV2(int64_t batch = 1, int64_t image_size = 224,
                                       std::string name = "mobilenet-v2");

struct BertConfig {
  int layers = 12;
  int64_t hidden = 768;
  int64_t heads = 12;
  int64_t ffn = 3072;
  int64_t seq = 128;
  int64_t batch = 1;
  double eps = 1e-12;  // HuggingFace BertConfig.layer_norm_eps
};

// HuggingFace BertModel's encoder: the input is the summed embeddings
// [batch * seq, hidden] (the token/position/type lookups are integer
// gathers, not tuned), then the embedding layer norm and `layers` encoder
// layers: Q, K, V dense + bias; reshape/transpose to [batch * heads, seq,
// head_dim]; scores = batch_matmul(Q, K, transpose_b) * 1/sqrt(head_dim);
// softmax; context = batch_matmul(probs, V); back to [batch * seq, hidden];
// output dense + bias + residual, layer norm; FFN dense + bias + gelu,
// dense + bias + residual, layer norm. No attention mask (all tokens
// valid) and no pooler.
absl::StatusOr<Graph> BuildBert(const BertConfig& config, std::string name = "bert");

}  // namespace pruner

#endif  // PRUNER_COMMON_GRAPH_NETWORKS_H_
