#include "common/sketch/winograd_seeds.h"

#include <optional>
#include <string>

#include "common/ir/winograd.h"
#include "common/sketch/annotate.h"
#include "common/sketch/annotate_validity.h"
#include "common/sketch/seed_tiles.h"

namespace pruner {
namespace {

// The stages of one Winograd convolution (winograd.h) in a task's DAG.
struct WinogradStages {
  int pad = -1;  // absent when the input needs no padding
  int data_pack = -1;
  int bgemm = -1;
  int inverse = -1;
  int output = -1;  // the gather of the inverse into NHWC
  // The task's output: `output` itself or the last of its element-wise
  // consumers (bias, residual add, activation).
  int anchor = -1;
};

bool HasTag(const Op& op, const char* tag) {
  const auto it = op.attrs.find("op");
  return it != op.attrs.end() && it->second == tag;
}

std::optional<WinogradStages> FindStages(const ComputeDag& dag) {
  WinogradStages s;
  for (int i = 0; i < dag.num_ops(); ++i) {
    const Op& op = dag.op(i);
    if (HasTag(op, kWinogradDataPackTag)) s.data_pack = i;
    if (HasTag(op, kWinogradBgemmTag)) s.bgemm = i;
    if (HasTag(op, kWinogradInverseTag)) s.inverse = i;
    if (HasTag(op, kWinogradOutputTag)) s.output = i;
  }
  if (s.data_pack < 0 || s.bgemm < 0 || s.inverse < 0 || s.output < 0) return std::nullopt;
  for (int p : dag.Producers(s.data_pack)) {
    if (!dag.op(p).is_placeholder()) s.pad = p;
  }
  s.anchor = s.output;
  for (;;) {
    const std::vector<int> consumers = dag.Consumers(s.anchor);
    if (consumers.empty()) break;
    if (consumers.size() != 1) return std::nullopt;
    const Op& next = dag.op(consumers[0]);
    if (!next.reduce_axes.empty() || next.shape != dag.op(s.output).shape) return std::nullopt;
    s.anchor = consumers[0];
  }
  return s;
}

// The sketch this shape starts from: no cache stages (stage indices are the
// DAG's), the batched product multi-level tiled, the element-wise stages
// between the output gather and the anchor inlined.
bool SketchFits(const Sketch& sketch, const WinogradStages& s) {
  bool bgemm_tiled = false;
  for (const Step& step : sketch.steps) {
    if (step.ChangesDag()) return false;
    if (step.kind == StepKind::kSplit && step.stage == s.bgemm && step.lengths.size() == 3) {
      bgemm_tiled = true;
    }
  }
  if (!bgemm_tiled) return false;
  for (int i = s.output + 1; i < s.anchor; ++i) {
    if (sketch.state.stage(i).compute_at != ComputeAtKind::kInlined) return false;
  }
  return sketch.state.stage(s.output).compute_at == ComputeAtKind::kRoot &&
         sketch.state.stage(s.anchor).compute_at == ComputeAtKind::kRoot;
}

enum class BlockShape { kRows, kChannels };

// Sizes of one seed.
struct SeedShape {
  BlockShape block = BlockShape::kRows;
  int64_t block_channels = 0;  // output channels per parallel iteration
  int64_t block_tiles = 0;     // tiles per parallel iteration
  int64_t tile = 0;            // output tile side m
  int64_t channel_vector = 0;  // output channels per vector
  int64_t input_vector = 0;    // input channels per vector (data_pack)
  int64_t product_tiles = 0;   // tiles in the product's register tile
  int64_t product_vectors = 0; // vectors of output channels in it
  int64_t pack_tiles = 0;      // inner tile loop of data_pack
};

// The sketch's steps with every open length chosen for `shape`; nullopt if
// one is left open (the sketch is not the one this shape expects).
std::optional<std::vector<Step>> FillSplits(const Sketch& sketch, const WinogradStages& s,
                                            const SeedShape& shape) {
  std::vector<Step> steps = sketch.steps;
  int bgemm_spatial = 0;
  for (Step& step : steps) {
    if (step.kind != StepKind::kSplit || step.IsDefined()) continue;
    std::vector<int64_t> lengths;
    if (step.stage == s.inverse || step.stage == s.data_pack) {
      // [row, column, tile, channel]: the transform rule splits the tile
      // and the channel axes, channel first.
      const bool channel = step.iter == 3;
      if (step.stage == s.inverse) {
        lengths = {channel ? shape.channel_vector : shape.block_tiles};
      } else {
        lengths = {channel ? shape.input_vector : shape.pack_tiles};
      }
    } else if (step.stage == s.bgemm) {
      if (step.lengths.size() == 1) {
        lengths = {1};  // input channels: all at the outer reduce level
      } else {
        const int axis = bgemm_spatial++;
        if (axis < 2) lengths = {1, 1, 1};  // the transform's rows and columns
        if (axis == 2) lengths = {1, shape.product_tiles, 1};
        if (axis == 3) {
          lengths = {shape.block_channels / (shape.product_vectors * shape.channel_vector),
                     shape.product_vectors, shape.channel_vector};
        }
      }
    }
    if (lengths.size() != step.lengths.size()) return std::nullopt;
    for (size_t k = 0; k < lengths.size(); ++k) step.lengths[k] = lengths[k];
  }
  return steps;
}

std::optional<State> BuildSeed(const Sketch& sketch, const WinogradStages& s,
                               const SeedShape& shape, const DeviceProfile& device) {
  std::optional<std::vector<Step>> steps = FillSplits(sketch, s, shape);
  if (!steps.has_value()) return std::nullopt;
  const Op& anchor = sketch.dag->op(s.anchor);
  const int64_t out_rows = anchor.axes[1].extent;
  const int64_t channels = anchor.axes[3].extent;
  const int a = s.anchor;
  if (s.output != s.anchor) steps->push_back(ComputeInlineStep(s.output));
  if (shape.block == BlockShape::kRows) {
    // [n, y, x, k] -> [n, y.0, k.0 | y.1, x, k.1, k.2]: one row of tiles,
    // every channel, per parallel iteration.
    steps->push_back(SplitStep(a, 1, out_rows, {shape.tile}));
    steps->push_back(SplitStep(a, 4, channels,
                               {channels / shape.channel_vector, shape.channel_vector}));
    steps->push_back(ReorderStep(a, {0, 1, 4, 2, 3, 5, 6}));
    steps->push_back(FuseStep(a, {0, 1, 2}));
    steps->push_back(AnnotationStep(a, 0, IterAnnotation::kParallel));
    steps->push_back(AnnotationStep(a, 4, IterAnnotation::kVectorize));
  } else {
    // [n, y, x, k] -> [k.0 | n, y, x, k.1, k.2]: a block of channels, every
    // tile, per parallel iteration.
    steps->push_back(SplitStep(a, 3, channels,
                               {shape.block_channels / shape.channel_vector,
                                shape.channel_vector}));
    steps->push_back(ReorderStep(a, {3, 0, 1, 2, 4, 5}));
    steps->push_back(AnnotationStep(a, 0, IterAnnotation::kParallel));
    steps->push_back(AnnotationStep(a, 5, IterAnnotation::kVectorize));
  }
  steps->push_back(ComputeAtStep(s.inverse, a, 0));
  steps->push_back(ComputeAtStep(s.bgemm, a, 0));
  steps->push_back(ComputeAtStep(s.data_pack, a, 0));
  if (s.pad >= 0) steps->push_back(ComputeAtStep(s.pad, a, 0));
  steps->push_back(AutoUnrollPragmaStep(s.bgemm, 0, 512));
  steps->push_back(AutoUnrollPragmaStep(s.inverse, 0, 64));
  // The product's innermost loop (its register tile's channels), after the
  // multi-level tiling's 4 x 4 spatial and 2 reduce loops.
  steps->push_back(AnnotationStep(s.bgemm, 17, IterAnnotation::kVectorize));
  // Replayed as every sampled schedule is: the device's limits checked, the
  // state in the form the search de-duplicates by.
  absl::StatusOr<State> valid = ReplayValidSchedule(sketch.dag, *steps, device, {});
  if (!valid.ok()) return std::nullopt;
  return *std::move(valid);
}

// The seed shapes for this convolution (see the header).
std::vector<SeedShape> ShapesFor(const ComputeDag& dag, const WinogradStages& s,
                                 int64_t vector_lanes) {
  const Op& inverse = dag.op(s.inverse);
  const Op& bgemm = dag.op(s.bgemm);
  const Op& anchor = dag.op(s.anchor);
  const int64_t tile = inverse.axes[0].extent;
  const int64_t alpha = bgemm.axes[0].extent;
  const int64_t tiles = bgemm.axes[2].extent;
  const int64_t channels = bgemm.axes[3].extent;
  const int64_t in_channels = bgemm.reduce_axes[0].extent;
  const int64_t out_rows = anchor.axes[1].extent;
  const int64_t tiles_w = (anchor.axes[2].extent + tile - 1) / tile;
  const int64_t tiles_h = (out_rows + tile - 1) / tile;
  const int64_t weight_bytes = alpha * alpha * in_channels * channels * 4;
  // Vector registers: 32 with 16-float (AVX-512) vectors, else 16. The
  // product's accumulators leave a few for the weight and the broadcasts.
  const int64_t accumulators = (vector_lanes >= 16 ? 32 : 16) - 4;

  SeedShape base;
  base.tile = tile;
  base.channel_vector = VectorTile(channels, vector_lanes);
  base.input_vector = VectorTile(in_channels, vector_lanes);
  auto product = [&](SeedShape shape) {
    shape.product_tiles = FirstDivisor(shape.block_tiles, {7, 8, 6, 4, 2});
    const bool two = (shape.block_channels / shape.channel_vector) % 2 == 0 &&
                     2 * shape.product_tiles <= accumulators;
    shape.product_vectors = two ? 2 : 1;
    return shape;
  };

  std::vector<SeedShape> shapes;
  if (out_rows % tile == 0 && tiles_h * weight_bytes <= kWinogradRowBlockWeightBytes) {
    SeedShape rows = base;
    rows.block = BlockShape::kRows;
    rows.block_channels = channels;
    rows.block_tiles = tiles_w;
    rows.pack_tiles = FirstDivisor(tiles_w, {2});
    shapes.push_back(product(rows));
  }
  if (channels % kWinogradChannelBlock == 0 && channels / kWinogradChannelBlock >= 2 &&
      kWinogradChannelBlock % base.channel_vector == 0) {
    SeedShape blocks = base;
    blocks.block = BlockShape::kChannels;
    blocks.block_channels = kWinogradChannelBlock;
    blocks.block_tiles = tiles;
    blocks.pack_tiles = FirstDivisor(tiles, {tiles_w});
    shapes.push_back(product(blocks));
  }
  return shapes;
}

}  // namespace

std::vector<State> WinogradSeeds(const std::vector<Sketch>& sketches,
                                 const DeviceProfile& device) {
  std::vector<State> seeds;
  if (device.kind != DeviceKind::kCpu || sketches.empty()) return seeds;
  const std::optional<WinogradStages> stages = FindStages(*sketches.front().dag);
  if (!stages.has_value()) return seeds;
  const ComputeDag& dag = *sketches.front().dag;
  const int64_t lanes = MaxVectorElements(device, dag.op(stages->bgemm).dtype);
  const std::vector<SeedShape> shapes = ShapesFor(dag, *stages, lanes);
  for (const Sketch& sketch : sketches) {
    if (!SketchFits(sketch, *stages)) continue;
    for (const SeedShape& shape : shapes) {
      std::optional<State> seed = BuildSeed(sketch, *stages, shape, device);
      if (seed.has_value()) seeds.push_back(*std::move(seed));
    }
  }
  return seeds;
}

}  // namespace pruner
