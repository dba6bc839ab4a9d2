// The ResNet family as torchvision.models defines it (see networks.h):
// resnet18/34 (BasicBlock), resnet50 (Bottleneck), wide_resnet50_2 and
// resnext50_32x4d (Bottleneck with a wider or grouped 3x3).
#include "absl/strings/str_cat.h"
#include "common/graph/graph_builder.h"
#include "common/graph/networks.h"

namespace pruner {
namespace {

// conv + folded batch norm (a bias), optionally followed by relu.
TensorId ConvBn(GraphBuilder& b, TensorId x, int64_t out_channels, int64_t kernel, int64_t stride,
                int64_t pad, bool relu, int64_t groups = 1) {
  TensorId y = b.BiasAdd(b.Conv2d(x, out_channels, kernel, stride, pad, groups));
  return relu ? b.Relu(y) : y;
}

int64_t Channels(GraphBuilder& b, TensorId x) {
  return b.Shape(x).size() == 4 ? b.Shape(x)[1] : 0;
}

// The identity, or a 1x1 conv + BN when the stride or the width changes.
TensorId Shortcut(GraphBuilder& b, TensorId x, int64_t out_channels, int64_t stride) {
  if (stride == 1 && Channels(b, x) == out_channels) return x;
  auto scope = b.Scope("downsample");
  return ConvBn(b, x, out_channels, 1, stride, 0, /*relu=*/false);
}

// torchvision's BasicBlock: two 3x3 convs, the first carrying the stride.
TensorId BasicBlock(GraphBuilder& b, TensorId x, int64_t planes, int64_t stride) {
  TensorId out = ConvBn(b, x, planes, 3, stride, 1, /*relu=*/true);
  out = ConvBn(b, out, planes, 3, 1, 1, /*relu=*/false);
  return b.Relu(b.Add(out, Shortcut(b, x, planes, stride)));
}

// torchvision's Bottleneck ("v1.5": the stride sits on the 3x3): 1x1 to
// `width`, 3x3 (grouped for ResNeXt), 1x1 expand to 4 * planes.
TensorId Bottleneck(GraphBuilder& b, TensorId x, int64_t planes, int64_t width, int64_t groups,
                    int64_t stride) {
  const int64_t out_channels = planes * 4;
  TensorId out = ConvBn(b, x, width, 1, 1, 0, /*relu=*/true);
  out = ConvBn(b, out, width, 3, stride, 1, /*relu=*/true, groups);
  out = ConvBn(b, out, out_channels, 1, 1, 0, /*relu=*/false);
  return b.Relu(b.Add(out, Shortcut(b, x, out_channels, stride)));
}

}  // namespace

absl::StatusOr<Graph> BuildResNet(const ResNetConfig& c, std::string name) {
  GraphBuilder b(std::move(name));
  TensorId x = b.Input("data", {c.batch, 3, c.image_size, c.image_size});
  {
    auto scope = b.Scope("stem");
    x = ConvBn(b, x, 64, 7, 2, 3, /*relu=*/true);
    x = b.MaxPool2d(x, 3, 2, 1);
  }
  for (int stage = 0; stage < 4; ++stage) {
    const int64_t planes = int64_t{64} << stage;
    // torchvision: width = planes * (width_per_group / 64) * groups.
    const int64_t width = planes * c.width_per_group / 64 * c.groups;
    for (int block = 0; block < c.blocks[stage]; ++block) {
      auto scope = b.Scope(absl::StrCat("layer", stage + 1, ".", block));
      const int64_t stride = block == 0 && stage > 0 ? 2 : 1;
      x = c.bottleneck ? Bottleneck(b, x, planes, width, c.groups, stride)
                       : BasicBlock(b, x, planes, stride);
    }
  }
  {
    auto scope = b.Scope("head");
    x = b.GlobalAvgPool2d(x);
    x = b.Reshape(x, {c.batch, -1});
    x = b.BiasAdd(b.Dense(x, 1000));
  }
  return std::move(b).Build();
}

absl::StatusOr<Graph> BuildResNet50(int64_t batch, int64_t image_size) {
  ResNetConfig c;
  c.batch = batch;
  c.image_size = image_size;
  return BuildResNet(c, "resnet-50");
}

}  // namespace pruner
