#include "common/sketch/winograd_seeds.h"

#include <optional>
#include <string>

#include "common/ir/winograd.h"
#include "common/sketch/annotate.h"
#include "common/sketch/seed_finish.h"
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

// Which sketch a seed shape starts from. Both multi-level tile the batched
// product and inline the element-wise stages between the output gather and
// the anchor.
enum class SketchKind {
  kOther,
  kPlain,           // no cache stage: stage indices are the DAG's
  kProductInCache,  // the product accumulated in a cache stage (inserted at
                    // the product's index) that its writer follows at level 1
};

SketchKind Classify(const Sketch& sketch, const WinogradStages& s) {
  bool bgemm_tiled = false;
  int cache_writes = 0;
  for (const Step& step : sketch.steps) {
    if (step.kind == StepKind::kCacheWrite && step.stage == s.bgemm) {
      ++cache_writes;
    } else if (step.ChangesDag()) {
      return SketchKind::kOther;
    }
    if (step.kind == StepKind::kSplit && step.stage == s.bgemm && step.lengths.size() == 3) {
      bgemm_tiled = true;
    }
    if (step.kind == StepKind::kFollowSplit && step.n_split != 1) return SketchKind::kOther;
  }
  if (!bgemm_tiled || cache_writes > 1) return SketchKind::kOther;
  const int shift = cache_writes;  // stages after the product moved by one
  for (int i = s.output + 1; i < s.anchor; ++i) {
    if (sketch.state.stage(i + shift).compute_at != ComputeAtKind::kInlined) {
      return SketchKind::kOther;
    }
  }
  if (sketch.state.stage(s.output + shift).compute_at != ComputeAtKind::kRoot ||
      sketch.state.stage(s.anchor + shift).compute_at != ComputeAtKind::kRoot) {
    return SketchKind::kOther;
  }
  return cache_writes == 0 ? SketchKind::kPlain : SketchKind::kProductInCache;
}

// kRows and kChannels start from the plain sketch, kProduct from the one
// with the product in a cache stage.
enum class BlockShape { kRows, kChannels, kProduct };

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
  int64_t product_reduce = 1;  // inner input-channel loop of the product
};

// The sketch's steps with every open length chosen for `shape`; nullopt if
// one is left open (the sketch is not the one this shape expects).
std::optional<std::vector<Step>> FillSplits(const Sketch& sketch, const WinogradStages& s,
                                            const SeedShape& shape) {
  std::vector<Step> steps = sketch.steps;
  int bgemm_spatial = 0;
  // After a cache write of the product, its cache stage holds the
  // product's index and the stages after it move by one.
  int shift = 0;
  for (Step& step : steps) {
    if (step.kind == StepKind::kCacheWrite) shift = 1;
    if (step.kind != StepKind::kSplit || step.IsDefined()) continue;
    std::vector<int64_t> lengths;
    if (step.stage == s.inverse + shift || step.stage == s.data_pack) {
      // [row, column, tile, channel]: the transform rule splits the tile
      // and the channel axes, channel first.
      const bool channel = step.iter == 3;
      if (step.stage == s.inverse + shift) {
        lengths = {channel ? shape.channel_vector : shape.block_tiles};
      } else {
        lengths = {channel ? shape.input_vector : shape.pack_tiles};
      }
    } else if (step.stage == s.bgemm) {
      if (step.lengths.size() == 1) {
        lengths = {shape.product_reduce};  // input channels: the rest at the outer level
      } else {
        const int axis = bgemm_spatial++;
        if (axis < 2) lengths = {1, 1, 1};  // the transform's rows and columns
        if (axis == 2) lengths = {1, shape.product_tiles, 1};
        if (axis == 3 && shape.block == BlockShape::kProduct) {
          // Blocks of output channels at the outer level (the parallel
          // loop's), one vector in the register tile.
          lengths = {shape.block_channels / shape.channel_vector, 1, shape.channel_vector};
        } else if (axis == 3) {
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

// The product-block shape's steps after the splits: each stage whole in a
// parallel loop of its own, the product's over its transform positions and
// blocks of output channels, so that each thread streams its own part of
// the packed weight once (the weight is what costs where this shape is
// used). Stage indices: the product's cache stage holds bgemm's index.
void AppendProductTail(const WinogradStages& s, std::vector<Step>* steps) {
  const int writer = s.bgemm + 1;
  const int inverse = s.inverse + 1;
  const int anchor = s.anchor + 1;
  if (s.output != s.anchor) steps->push_back(ComputeInlineStep(s.output + 1));
  // data_pack's loops: [tile.0, channel.0, tile.1, row, column, 2 reduce, channel.1].
  if (s.pad >= 0) {
    steps->push_back(ComputeAtStep(s.pad, s.data_pack, 2));
    steps->push_back(AnnotationStep(s.pad, 3, IterAnnotation::kVectorize));
  }
  steps->push_back(FuseStep(s.data_pack, {0, 1}));
  steps->push_back(AnnotationStep(s.data_pack, 0, IterAnnotation::kParallel));
  steps->push_back(FuseStep(writer, {0, 1, 2, 3}));
  steps->push_back(AnnotationStep(writer, 0, IterAnnotation::kParallel));
  steps->push_back(FuseStep(inverse, {0, 1}));
  steps->push_back(AnnotationStep(inverse, 0, IterAnnotation::kParallel));
  steps->push_back(FuseStep(anchor, {0, 1}));
  steps->push_back(AnnotationStep(anchor, 0, IterAnnotation::kParallel));
  steps->push_back(AutoUnrollPragmaStep(s.data_pack, 0, 16));
  steps->push_back(AutoUnrollPragmaStep(s.bgemm, 0, 16));
  steps->push_back(AutoUnrollPragmaStep(inverse, 0, 16));
  steps->push_back(AnnotationStep(s.bgemm, 17, IterAnnotation::kVectorize));
}

// The row- and channel-block shapes' steps after the splits: the anchor's
// outer loop parallel, every other stage computed at it.
void AppendBlockTail(const ComputeDag& dag, const WinogradStages& s, const SeedShape& shape,
                     std::vector<Step>* steps) {
  const Op& anchor = dag.op(s.anchor);
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
}

std::optional<State> BuildSeed(const Sketch& sketch, const WinogradStages& s,
                               const SeedShape& shape, const DeviceProfile& device) {
  std::optional<std::vector<Step>> steps = FillSplits(sketch, s, shape);
  if (!steps.has_value()) return std::nullopt;
  if (shape.block == BlockShape::kProduct) {
    AppendProductTail(s, &*steps);
  } else {
    AppendBlockTail(*sketch.dag, s, shape, &*steps);
  }
  return ReplaySeed(sketch.dag, *steps, device);
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
  // Whole blocks of output channels, each whole vectors.
  const bool channel_blocks =
      channels % kWinogradChannelBlock == 0 && kWinogradChannelBlock % base.channel_vector == 0;
  if (channel_blocks) {
    SeedShape product = base;
    product.block = BlockShape::kProduct;
    product.block_channels = kWinogradChannelBlock;
    product.block_tiles = tiles;
    product.pack_tiles = FirstDivisor(tiles, {2});
    product.product_reduce = FirstDivisor(in_channels, {8, 4, 2});
    // Every tile in the register tile when they fit (16 with AVX-512 for
    // 7x7 outputs as F(2x2, 3x3)), else a divisor that does.
    product.product_tiles = 1;
    for (int64_t t : {tiles, int64_t{16}, int64_t{8}, int64_t{7}, int64_t{4}, int64_t{2}}) {
      if (t <= accumulators && tiles % t == 0) {
        product.product_tiles = t;
        break;
      }
    }
    product.product_vectors = 1;
    shapes.push_back(product);
  }
  if (channel_blocks && channels / kWinogradChannelBlock >= 2) {
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
  // Shapes in order (the first is an untuned build's schedule), each from
  // the first sketch it fits.
  for (const SeedShape& shape : shapes) {
    const SketchKind wanted =
        shape.block == BlockShape::kProduct ? SketchKind::kProductInCache : SketchKind::kPlain;
    for (const Sketch& sketch : sketches) {
      if (Classify(sketch, *stages) != wanted) continue;
      std::optional<State> seed = BuildSeed(sketch, *stages, shape, device);
      if (seed.has_value()) {
        seeds.push_back(*std::move(seed));
        break;
      }
    }
  }
  return seeds;
}

}  // namespace pruner
