// MobileNet-V2, as torchvision.models.mobilenet_v2 defines it (see networks.h).
#include "absl/strings/str_cat.h"
#include "common/graph/graph_builder.h"
#include "common/graph/networks.h"

namespace pruner {
namespace {

// torchvision's Conv2dNormActivation with ReLU6; BN folded into a bias.
TensorId ConvBnRelu6(GraphBuilder& b, TensorId x, int64_t out_channels, int64_t kernel,
                     int64_t stride, int64_t groups = 1) {
  return b.Relu6(b.BiasAdd(b.Conv2d(x, out_channels, kernel, stride, (kernel - 1) / 2, groups)));
}

TensorId InvertedResidual(GraphBuilder& b, TensorId x, int64_t out_channels, int64_t stride,
                          int64_t expand_ratio) {
  const int64_t in_channels = b.Shape(x).size() == 4 ? b.Shape(x)[1] : 0;
  const int64_t hidden = in_channels * expand_ratio;
  TensorId y = x;
  if (expand_ratio != 1) y = ConvBnRelu6(b, y, hidden, 1, 1);
  y = ConvBnRelu6(b, y, hidden, 3, stride, /*groups=*/hidden);  // depthwise
  y = b.BiasAdd(b.Conv2d(y, out_channels, 1));                  // linear bottleneck
  // torchvision returns x + conv(x): the residual is the left operand.
  if (stride == 1 && in_channels == out_channels) y = b.Add(x, y);
  return y;
}

}  // namespace

absl::StatusOr<Graph> BuildMobileNetV2(int64_t batch, int64_t image_size, std::string name) {
  GraphBuilder b(std::move(name));
  TensorId x = b.Input("data", {batch, 3, image_size, image_size});
  {
    auto scope = b.Scope("features.0");
    x = ConvBnRelu6(b, x, 32, 3, 2);
  }
  // (expand ratio t, output channels c, repeats n, first stride s), as in
  // the paper's Table 2.
  struct Setting {
    int64_t t, c, n, s;
  };
  constexpr Setting kSettings[] = {{1, 16, 1, 1}, {6, 24, 2, 2},  {6, 32, 3, 2}, {6, 64, 4, 2},
                                   {6, 96, 3, 1}, {6, 160, 3, 2}, {6, 320, 1, 1}};
  int feature = 1;
  for (const Setting& s : kSettings) {
    for (int64_t i = 0; i < s.n; ++i) {
      auto scope = b.Scope(absl::StrCat("features.", feature++));
      x = InvertedResidual(b, x, s.c, i == 0 ? s.s : 1, s.t);
    }
  }
  {
    auto scope = b.Scope(absl::StrCat("features.", feature));
    x = ConvBnRelu6(b, x, 1280, 1, 1);
  }
  {
    auto scope = b.Scope("classifier");
    x = b.GlobalAvgPool2d(x);
    x = b.Reshape(x, {batch, -1});
    x = b.BiasAdd(b.Dense(x, 1000));
  }
  return std::move(b).Build();
}

}  // namespace pruner
