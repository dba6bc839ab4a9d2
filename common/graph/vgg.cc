// VGG-16 as torchvision.models.vgg16 defines it (configuration "D", no batch
// norm): thirteen 3x3 convs + relu in five stages closed by 2x2 max pools,
// then the classifier (dense 4096 + relu, dense 4096 + relu, dense 1000;
// dropout is the identity). torchvision pools adaptively to 7x7 before the
// classifier; at 224x224 that is the identity, at other sizes the first
// dense reads the flattened [512, H/32, W/32] instead.
#include "absl/strings/str_cat.h"
#include "common/graph/graph_builder.h"
#include "common/graph/networks.h"

namespace pruner {

absl::StatusOr<Graph> BuildVgg16(int64_t batch, int64_t image_size, std::string name) {
  GraphBuilder b(std::move(name));
  TensorId x = b.Input("data", {batch, 3, image_size, image_size});
  constexpr int64_t kStages[][2] = {{64, 2}, {128, 2}, {256, 3}, {512, 3}, {512, 3}};
  int feature = 0;
  for (const auto& [channels, convs] : kStages) {
    for (int64_t i = 0; i < convs; ++i) {
      auto scope = b.Scope(absl::StrCat("features.", feature++));
      x = b.Relu(b.BiasAdd(b.Conv2d(x, channels, 3, 1, 1)));
    }
    x = b.MaxPool2d(x, 2, 2, 0);
  }
  {
    auto scope = b.Scope("classifier");
    x = b.Reshape(x, {batch, -1});
    x = b.Relu(b.BiasAdd(b.Dense(x, 4096)));
    x = b.Relu(b.BiasAdd(b.Dense(x, 4096)));
    x = b.BiasAdd(b.Dense(x, 1000));
  }
  return std::move(b).Build();
}

}  // namespace pruner
