// The registry of built-in networks and their shape variants.
#include "common/graph/networks.h"

#include <functional>
#include <map>

#include "absl/strings/numbers.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "absl/strings/str_split.h"
#include "common/base/absl_compat.h"

namespace pruner {
namespace {

struct NetworkShape {
  int64_t batch = 1;
  int64_t image = 224;
  int64_t seq = 128;
};

enum class Family { kCnn, kBert };

struct NetworkEntry {
  Family family;
  std::function<absl::StatusOr<Graph>(const NetworkShape&, std::string name)> build;
};

absl::StatusOr<Graph> Bert(int layers, int64_t hidden, int64_t heads, const NetworkShape& s,
                           std::string name) {
  BertConfig c;
  c.layers = layers;
  c.hidden = hidden;
  c.heads = heads;
  c.ffn = 4 * hidden;
  c.seq = s.seq;
  c.batch = s.batch;
  return BuildBert(c, std::move(name));
}

absl::StatusOr<Graph> ResNet(ResNetConfig c, const NetworkShape& s, std::string name) {
  c.batch = s.batch;
  c.image_size = s.image;
  return BuildResNet(c, std::move(name));
}

const std::map<std::string, NetworkEntry>& Registry() {
  using S = const NetworkShape&;
  static const auto* registry = new std::map<std::string, NetworkEntry>{
      // google/bert_uncased_L-{2,4,4}_H-{128,256,512}_A-{2,4,8}.
      {"bert-tiny", {Family::kBert, [](S s, std::string n) { return Bert(2, 128, 2, s, n); }}},
      {"bert-mini", {Family::kBert, [](S s, std::string n) { return Bert(4, 256, 4, s, n); }}},
      {"bert-small", {Family::kBert, [](S s, std::string n) { return Bert(4, 512, 8, s, n); }}},
      {"bert-base", {Family::kBert, [](S s, std::string n) { return Bert(12, 768, 12, s, n); }}},
      {"bert-large", {Family::kBert, [](S s, std::string n) { return Bert(24, 1024, 16, s, n); }}},
      {"mobilenet-v2",
       {Family::kCnn,
        [](S s, std::string n) { return BuildMobileNetV2(s.batch, s.image, std::move(n)); }}},
      {"resnet-18",
       {Family::kCnn,
        [](S s, std::string n) { return ResNet({{2, 2, 2, 2}, false}, s, std::move(n)); }}},
      {"resnet-34",
       {Family::kCnn,
        [](S s, std::string n) { return ResNet({{3, 4, 6, 3}, false}, s, std::move(n)); }}},
      {"resnet-50", {Family::kCnn, [](S s, std::string n) { return ResNet({}, s, std::move(n)); }}},
      {"resnext-50",
       {Family::kCnn,
        [](S s, std::string n) { return ResNet({{3, 4, 6, 3}, true, 32, 4}, s, std::move(n)); }}},
      {"vgg-16",
       {Family::kCnn,
        [](S s, std::string n) { return BuildVgg16(s.batch, s.image, std::move(n)); }}},
      {"wide-resnet-50",
       {Family::kCnn,
        [](S s, std::string n) { return ResNet({{3, 4, 6, 3}, true, 1, 128}, s, std::move(n)); }}},
  };
  return *registry;
}

struct ParsedSpec {
  std::string name;
  const NetworkEntry* entry = nullptr;
  NetworkShape shape;
  std::string canonical;
};

absl::StatusOr<ParsedSpec> ParseSpec(std::string_view spec) {
  ParsedSpec p;
  const size_t colon = spec.find(':');
  p.name = std::string(spec.substr(0, colon));
  auto it = Registry().find(p.name);
  if (it == Registry().end()) {
    return absl::NotFoundError(absl::StrCat("unknown network '", p.name,
                                            "'; known: ", absl::StrJoin(KnownNetworks(), ", ")));
  }
  p.entry = &it->second;
  const bool cnn = p.entry->family == Family::kCnn;
  if (colon != std::string_view::npos) {
    for (absl::string_view item : absl::StrSplit(ToAbsl(spec.substr(colon + 1)), ',')) {
      std::pair<std::string, std::string> kv = absl::StrSplit(item, absl::MaxSplits('=', 1));
      int64_t value = 0;
      auto bad = [&](std::string_view why) {
        return absl::InvalidArgumentError(absl::StrCat("network spec '", ToAbsl(spec), "': '",
                                                       item, "': ", ToAbsl(why)));
      };
      if (!absl::SimpleAtoi(kv.second, &value)) return bad("the value must be an integer");
      if (kv.first == "batch") {
        if (value < 1 || value > 256) return bad("batch must be 1 to 256");
        p.shape.batch = value;
      } else if (kv.first == "image" && cnn) {
        if (value < 32 || value > 1024) return bad("image must be 32 to 1024");
        p.shape.image = value;
      } else if (kv.first == "seq" && !cnn) {
        if (value < 1 || value > 4096) return bad("seq must be 1 to 4096");
        p.shape.seq = value;
      } else {
        return bad(cnn ? "the keys of a CNN are batch and image"
                       : "the keys of a BERT are batch and seq");
      }
    }
  }
  const NetworkShape defaults;
  std::vector<std::string> keys;
  if (p.shape.batch != defaults.batch) keys.push_back(absl::StrCat("batch=", p.shape.batch));
  if (p.shape.image != defaults.image) keys.push_back(absl::StrCat("image=", p.shape.image));
  if (p.shape.seq != defaults.seq) keys.push_back(absl::StrCat("seq=", p.shape.seq));
  p.canonical = keys.empty() ? p.name : absl::StrCat(p.name, ":", absl::StrJoin(keys, ","));
  return p;
}

}  // namespace

std::vector<std::string> KnownNetworks() {
  std::vector<std::string> names;
  for (const auto& [name, entry] : Registry()) names.push_back(name);
  return names;
}

absl::StatusOr<std::string> CanonicalNetworkSpec(std::string_view spec) {
  absl::StatusOr<ParsedSpec> p = ParseSpec(spec);
  if (!p.ok()) return p.status();
  return p->canonical;
}

absl::StatusOr<Graph> BuildNetwork(std::string_view spec) {
  absl::StatusOr<ParsedSpec> p = ParseSpec(spec);
  if (!p.ok()) return p.status();
  return p->entry->build(p->shape, p->canonical);
}

}  // namespace pruner
