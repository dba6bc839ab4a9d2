// ResNet-50, as torchvision.models.resnet50 defines it (see networks.h).
#include "absl/strings/str_cat.h"
#include "common/graph/graph_builder.h"
#include "common/graph/networks.h"

namespace pruner {
namespace {

// conv + folded batch norm (a bias), optionally followed by relu.
TensorId ConvBn(GraphBuilder& b, TensorId x, int64_t out_channels, int64_t kernel, int64_t stride,
                int64_t pad, bool relu) {
  TensorId y = b.BiasAdd(b.Conv2d(x, out_channels, kernel, stride, pad));
  return relu ? b.Relu(y) : y;
}

// torchvision's Bottleneck: 1x1 reduce, 3x3 (carrying the stride), 1x1
// expand to 4x width, plus the identity or a downsampling 1x1 conv.
TensorId Bottleneck(GraphBuilder& b, TensorId x, int64_t width, int64_t stride) {
  const int64_t in_channels = b.Shape(x).size() == 4 ? b.Shape(x)[1] : 0;
  const int64_t out_channels = width * 4;
  TensorId out = ConvBn(b, x, width, 1, 1, 0, /*relu=*/true);
  out = ConvBn(b, out, width, 3, stride, 1, /*relu=*/true);
  out = ConvBn(b, out, out_channels, 1, 1, 0, /*relu=*/false);
  TensorId identity = x;
  if (stride != 1 || in_channels != out_channels) {
    auto scope = b.Scope("downsample");
    identity = ConvBn(b, x, out_channels, 1, stride, 0, /*relu=*/false);
  }
  return b.Relu(b.Add(out, identity));
}

}  // namespace

absl::StatusOr<Graph> BuildResNet50(int64_t batch, int64_t image_size) {
  GraphBuilder b("resnet-50");
  TensorId x = b.Input("data", {batch, 3, image_size, image_size});
  {
    auto scope = b.Scope("stem");
    x = ConvBn(b, x, 64, 7, 2, 3, /*relu=*/true);
    x = b.MaxPool2d(x, 3, 2, 1);
  }
  constexpr int kBlocks[] = {3, 4, 6, 3};
  for (int stage = 0; stage < 4; ++stage) {
    const int64_t width = int64_t{64} << stage;
    for (int block = 0; block < kBlocks[stage]; ++block) {
      auto scope = b.Scope(absl::StrCat("layer", stage + 1, ".", block));
      x = Bottleneck(b, x, width, block == 0 && stage > 0 ? 2 : 1);
    }
  }
  {
    auto scope = b.Scope("head");
    x = b.GlobalAvgPool2d(x);
    x = b.Reshape(x, {batch, -1});
    x = b.BiasAdd(b.Dense(x, 1000));
  }
  return std::move(b).Build();
}

}  // namespace pruner
