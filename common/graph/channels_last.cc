#include "common/graph/channels_last.h"

#include <map>
#include <memory>
#include <utility>

#include "absl/strings/str_cat.h"
#include "common/graph/graph_builder.h"
#include "common/ir/tensor.h"
#include "common/ir/winograd.h"

namespace pruner {
namespace {

const std::vector<int> kToNhwc = {0, 2, 3, 1};
const std::vector<int> kToNchw = {0, 3, 1, 2};

std::vector<int64_t> Permuted(const std::vector<int64_t>& shape, const std::vector<int>& perm) {
  std::vector<int64_t> out;
  for (int axis : perm) out.push_back(shape[axis]);
  return out;
}

// True when permuting `shape` by `perm` keeps the order of its elements in
// memory: the axes of extent > 1 stay in the same relative order.
bool PermutationIsView(const std::vector<int64_t>& shape, const std::vector<int>& perm) {
  int last = -1;
  for (int axis : perm) {
    if (shape[axis] == 1) continue;
    if (axis < last) return false;
    last = axis;
  }
  return true;
}

bool IsPool(NodeKind kind) {
  return kind == NodeKind::kMaxPool2d || kind == NodeKind::kAvgPool2d ||
         kind == NodeKind::kGlobalAvgPool2d;
}

class Rewriter {
 public:
  Rewriter(const Graph& graph, const ChannelsLastOptions& options)
      : old_(graph),
        options_(options),
        b_(graph.name()),
        nchw_(graph.tensors().size(), -1),
        nhwc_(graph.tensors().size(), -1) {}

  absl::StatusOr<ChannelsLastGraph> Run() && {
    for (TensorId id = 0; id < static_cast<TensorId>(old_.tensors().size()); ++id) {
      const GraphTensor& t = old_.tensor(id);
      if (t.kind == TensorKind::kInput) nchw_[id] = b_.Input(t.name, t.shape, t.dtype);
      if (t.kind == TensorKind::kWeight) nchw_[id] = b_.Weight(t.name, t.shape, t.data, t.dtype);
    }
    for (const GraphNode& node : old_.nodes()) Rewrite(node);
    for (TensorId out : old_.outputs()) b_.MarkOutput(Nchw(out));
    ChannelsLastGraph result;
    result.convs_rewritten = convs_;
    result.winograd_convs = winograd_convs_;
    result.transposes_added = transposes_;
    absl::StatusOr<Graph> graph = std::move(b_).Build();
    if (!graph.ok()) {
      return absl::InternalError(
          absl::StrCat("channels-last rewrite of '", old_.name(), "': ", graph.status().message()));
    }
    result.graph = *std::move(graph);
    result.tensor_map = std::move(nchw_);
    return result;
  }

 private:
  bool Is4d(TensorId id) const { return old_.tensor(id).shape.size() == 4; }

  // The rewritten tensor holding `id` in NCHW (its original layout).
  TensorId Nchw(TensorId id) {
    if (nchw_[id] < 0) nchw_[id] = Permute(id, nhwc_[id], kToNchw, ".nchw");
    return nchw_[id];
  }

  TensorId Nhwc(TensorId id) {
    if (nhwc_[id] < 0) nhwc_[id] = Permute(id, nchw_[id], kToNhwc, ".nhwc");
    return nhwc_[id];
  }

  // x (the rewritten tensor of old tensor `id`) permuted, named after `id`.
  TensorId Permute(TensorId id, TensorId x, const std::vector<int>& perm, const char* suffix) {
    const std::vector<int64_t>& shape = b_.Shape(x);
    const std::string name = absl::StrCat(old_.tensor(id).name, suffix);
    NodeAttrs a;
    if (PermutationIsView(shape, perm)) {
      a.shape = Permuted(shape, perm);
      return b_.AddNode(NodeKind::kReshape, {x}, a, name);
    }
    ++transposes_;
    a.perm = perm;
    return b_.AddNode(NodeKind::kTranspose, {x}, a, name);
  }

  // Whether the rewritten producer of `id` made it NHWC.
  bool ProducedNhwc(TensorId id) const { return nhwc_[id] >= 0 && nchw_[id] < 0; }

  // An element-wise node goes NHWC when one of its inputs was made NHWC, its
  // other 4-D inputs are at hand in NHWC too (a residual add's two branches),
  // and nothing broadcasts across the layouts: every other input is a single
  // value, or the bias of a bias_add over the channel axis.
  bool FollowsNhwc(const GraphNode& node) const {
    if (node.kind == NodeKind::kBiasAdd) {
      return node.attrs.axis == 1 && Is4d(node.inputs[0]) && ProducedNhwc(node.inputs[0]);
    }
    if (ClassOf(node.kind) != NodeClass::kElementwise) return false;
    const std::vector<int64_t>& out = old_.tensor(node.output).shape;
    bool any_nhwc = false;
    for (TensorId in : node.inputs) {
      const std::vector<int64_t>& s = old_.tensor(in).shape;
      if (s.size() == 4 && s == out && nhwc_[in] >= 0) {
        any_nhwc = any_nhwc || ProducedNhwc(in);
        continue;
      }
      if (NumElements(s) != 1) return false;
    }
    return any_nhwc;
  }

  // The Winograd output tile for a conv with a Winograd form that pays
  // (ChooseWinogradTile) whose weight is a [K, C, 3, 3] weight of the graph
  // (not computed), so that it can be packed once here; 0 for a direct
  // convolution.
  int64_t WinogradTile(const GraphNode& node) const {
    const GraphTensor& w = old_.tensor(node.inputs[1]);
    const std::vector<int64_t>& x = old_.tensor(node.inputs[0]).shape;  // NCHW
    const NodeAttrs& a = node.attrs;
    if (!options_.winograd || w.kind != TensorKind::kWeight || w.shape.size() != 4 ||
        !CheckWinogradEligible(w.shape[2], w.shape[3], a.stride_h, a.stride_w, a.dilation_h,
                               a.dilation_w, a.groups, a.pad_h, a.pad_w, x[2], x[3])
             .ok()) {
      return 0;
    }
    const WinogradShape shape{.batch = x[0],
                              .height = x[2],
                              .width = x[3],
                              .in_channels = x[1],
                              .out_channels = w.shape[0],
                              .pad_h = a.pad_h,
                              .pad_w = a.pad_w};
    if (options_.winograd_tile != 0) {
      WinogradShape forced = shape;
      forced.tile = options_.winograd_tile;
      return options_.winograd_everywhere || WinogradPays(forced) ? forced.tile : 0;
    }
    const int64_t chosen = ChooseWinogradTile(shape);
    if (chosen == 0 && options_.winograd_everywhere) return kWinogradTile;
    return chosen;
  }

  // The packed [m+2, m+2, C, K] form of OIHW weight `id` for output tile m,
  // made once per weight and tile.
  TensorId PackedWeight(TensorId id, int64_t tile) {
    auto it = packed_.find({id, tile});
    if (it != packed_.end()) return it->second;
    const GraphTensor& w = old_.tensor(id);
    const int64_t k = w.shape[0], c = w.shape[1], alpha = tile + 2;
    std::shared_ptr<const std::vector<float>> data;
    if (w.data != nullptr) {
      data = std::make_shared<const std::vector<float>>(WinogradPackWeights(*w.data, k, c, tile));
    }
    const std::string suffix = tile == kWinogradTile ? ".winograd" : absl::StrCat(".winograd", tile);
    const TensorId packed =
        b_.Weight(absl::StrCat(w.name, suffix), {alpha, alpha, c, k}, data, w.dtype);
    packed_.emplace(std::pair{id, tile}, packed);
    return packed;
  }

  void Rewrite(const GraphNode& node) {
    if (node.kind == NodeKind::kConv2d && Is4d(node.inputs[0]) && !node.attrs.channels_last) {
      NodeAttrs a = node.attrs;
      a.channels_last = true;
      const int64_t tile = WinogradTile(node);
      a.winograd = tile != 0;
      const TensorId weight =
          a.winograd ? PackedWeight(node.inputs[1], tile) : Nchw(node.inputs[1]);
      nhwc_[node.output] =
          b_.AddNode(NodeKind::kConv2d, {Nhwc(node.inputs[0]), weight}, a, node.name);
      ++convs_;
      winograd_convs_ += a.winograd ? 1 : 0;
      return;
    }
    // A pooling follows its input into NHWC: it reads the same amount either
    // way, and stays between two NHWC convolutions without a copy.
    if (IsPool(node.kind) && !node.attrs.channels_last && ProducedNhwc(node.inputs[0])) {
      NodeAttrs a = node.attrs;
      a.channels_last = true;
      nhwc_[node.output] = b_.AddNode(node.kind, {Nhwc(node.inputs[0])}, a, node.name);
      return;
    }
    if (FollowsNhwc(node)) {
      NodeAttrs a = node.attrs;
      if (node.kind == NodeKind::kBiasAdd) a.axis = 3;
      std::vector<TensorId> inputs;
      for (TensorId in : node.inputs) inputs.push_back(Is4d(in) ? Nhwc(in) : Nchw(in));
      nhwc_[node.output] = b_.AddNode(node.kind, std::move(inputs), a, node.name);
      return;
    }
    std::vector<TensorId> inputs;
    for (TensorId in : node.inputs) inputs.push_back(Nchw(in));
    nchw_[node.output] = b_.AddNode(node.kind, std::move(inputs), node.attrs, node.name);
  }

  const Graph& old_;
  const ChannelsLastOptions options_;
  GraphBuilder b_;
  std::vector<TensorId> nchw_;  // old tensor -> rewritten tensor in NCHW, or -1
  std::vector<TensorId> nhwc_;  // old 4-D tensor -> rewritten tensor in NHWC, or -1
  // (OIHW weight, tile) -> its Winograd-packed weight
  std::map<std::pair<TensorId, int64_t>, TensorId> packed_;
  int convs_ = 0;
  int winograd_convs_ = 0;
  int transposes_ = 0;
};

}  // namespace

absl::StatusOr<ChannelsLastGraph> ToChannelsLast(const Graph& graph,
                                                  const ChannelsLastOptions& options) {
  return Rewriter(graph, options).Run();
}

}  // namespace pruner
