// The registry of built-in networks.
#include "common/graph/networks.h"

#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "common/base/absl_compat.h"

namespace pruner {

std::vector<std::string> KnownNetworks() {
  return {"bert-base", "bert-tiny", "mobilenet-v2", "resnet-50"};
}

absl::StatusOr<Graph> BuildNetwork(std::string_view name) {
  if (name == "resnet-50") return BuildResNet50();
  if (name == "mobilenet-v2") return BuildMobileNetV2();
  if (name == "bert-base") return BuildBert(BertConfig{}, "bert-base");
  if (name == "bert-tiny") {
    // google/bert_uncased_L-2_H-128_A-2.
    BertConfig tiny;
    tiny.layers = 2;
    tiny.hidden = 128;
    tiny.heads = 2;
    tiny.ffn = 512;
    return BuildBert(tiny, "bert-tiny");
  }
  return absl::NotFoundError(absl::StrCat("unknown network '", ToAbsl(name),
                                          "'; known: ", absl::StrJoin(KnownNetworks(), ", ")));
}

}  // namespace pruner
