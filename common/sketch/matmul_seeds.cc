#include "common/sketch/matmul_seeds.h"

#include <algorithm>
#include <optional>

#include "common/ir/dtype.h"
#include "common/sketch/annotate.h"
#include "common/sketch/seed_finish.h"
#include "common/sketch/seed_tiles.h"
#include "common/sketch/window_seeds.h"

namespace pruner {
namespace {

// What a sketch must have for the shape: one tiled reduction (the product)
// that is not a window reduction, its element-wise consumer following its
// level-1 tile (or none, the product being the output), and every other
// stage a placeholder or inlined.
struct MatmulSketch {
  int product = -1;
  int consumer = -1;
};

std::optional<MatmulSketch> MatchMatmulSketch(const Sketch& sketch) {
  MatmulSketch m;
  for (const Step& step : sketch.steps) {
    if (step.ChangesDag() || step.kind == StepKind::kFollowFusedSplit) return std::nullopt;
    if (step.kind == StepKind::kSplit) {
      if (m.product >= 0 && step.stage != m.product) return std::nullopt;
      if (step.lengths.size() != 1 && step.lengths.size() != 3) return std::nullopt;
      m.product = step.stage;
    }
    if (step.kind == StepKind::kFollowSplit) {
      if (step.n_split != 1 || (m.consumer >= 0 && step.stage != m.consumer)) return std::nullopt;
      m.consumer = step.stage;
    }
  }
  if (m.product < 0) return std::nullopt;
  const Op& op = *sketch.state.stage(m.product).op;
  if (op.reduce_axes.empty() || IsWindowReduction(op) || op.axes.empty()) return std::nullopt;
  for (int i = 0; i < sketch.state.num_stages(); ++i) {
    if (i == m.product || i == m.consumer) continue;
    const Stage& s = sketch.state.stage(i);
    if (!s.is_placeholder() && s.compute_at != ComputeAtKind::kInlined) return std::nullopt;
  }
  return m;
}

// The register tile and the parallel band of one seed.
struct MatmulTile {
  int64_t lanes = 1;    // of the last axis: one vector
  int64_t columns = 1;  // of the second-to-last axis: the tile's rows of accumulators
  int64_t band = 1;     // of the third-to-last axis per parallel iteration
};

// Bands of the third-to-last axis, tallest first, whose input slice (the
// band's share of the product's input, a whole reduction per output row
// of the tile) fits in half the core's L2 and that still leave each thread
// a few parallel iterations to balance; the tallest such and the next one
// at most half its height.
std::vector<int64_t> BandHeights(const Op& op, const MatmulTile& tile,
                                 const DeviceProfile& device) {
  const int n = static_cast<int>(op.axes.size());
  if (n < 3) return {1};
  const int64_t rows = op.axes[n - 3].extent;
  int64_t reduction = 1;
  for (const Axis& axis : op.reduce_axes) reduction *= axis.extent;
  const int64_t row_bytes = op.axes[n - 2].extent * reduction * DTypeBytes(op.dtype);
  const int64_t l2 = device.l2_cache_bytes > 0 ? device.l2_cache_bytes : (int64_t{512} << 10);
  int64_t other_iterations = op.axes[n - 1].extent / tile.lanes;
  for (int i = 0; i < n - 3; ++i) other_iterations *= op.axes[i].extent;
  const int64_t min_iterations = 4 * std::max(1, device.num_cores);
  std::vector<int64_t> heights;
  for (int64_t band = rows; band >= 1; --band) {
    if (rows % band != 0) continue;
    if (band > 1 && band * row_bytes > l2 / 2) continue;
    if (band > 1 && (rows / band) * other_iterations < min_iterations) continue;
    if (!heights.empty() && band * 2 > heights.back()) continue;
    heights.push_back(band);
    if (heights.size() == 2) break;
  }
  if (heights.empty()) heights.push_back(1);
  return heights;
}

// The sketch's steps with every open length of the product chosen. Lengths
// are the inner parts (level 1 first); level 0, the rest, is the parallel
// loop's share.
std::vector<Step> FillSplits(const Sketch& sketch, int product, const MatmulTile& tile) {
  const int num_axes = static_cast<int>(sketch.state.stage(product).op->axes.size());
  std::vector<Step> steps = sketch.steps;
  FillOpenSplits(product, steps, [&](int axis, int64_t e, std::vector<int64_t>& lengths) {
    if (axis == num_axes - 1) {
      lengths[2] = tile.lanes;  // the vector; its blocks go parallel
    } else if (axis == num_axes - 2) {
      lengths[0] = e / tile.columns;  // all in one parallel iteration
      lengths[2] = tile.columns;
    } else if (axis == num_axes - 3) {
      lengths[0] = tile.band;
    }
  });
  return steps;
}

std::optional<State> BuildSeed(const Sketch& sketch, const MatmulSketch& m,
                               const std::vector<Step>& steps, const DeviceProfile& device) {
  State state = State::Initial(sketch.dag);
  for (const Step& step : steps) {
    if (!state.Apply(step).ok()) return std::nullopt;
  }
  // The anchor's outermost loops (the consumer's, following the product's
  // level-0 tile; or the product's own level 0) become the parallel loop.
  const int anchor = m.consumer >= 0 ? m.consumer : m.product;
  const int outer_axes = static_cast<int>(state.stage(anchor).op->axes.size());
  if (m.consumer >= 0 && static_cast<int>(state.stage(anchor).iters.size()) != 2 * outer_axes) {
    return std::nullopt;
  }
  std::vector<int> outer(outer_axes);
  for (int i = 0; i < outer_axes; ++i) outer[i] = i;
  for (const Step& step : {FuseStep(anchor, outer),
                           AnnotationStep(anchor, 0, IterAnnotation::kParallel),
                           AutoUnrollPragmaStep(m.product, 0, 512)}) {
    if (!state.Apply(step).ok()) return std::nullopt;
  }
  std::vector<int> vectorized = {m.product};
  if (m.consumer >= 0) vectorized.push_back(m.consumer);
  if (!VectorizeInnermostLoops(state, vectorized)) return std::nullopt;
  return ReplaySeed(sketch.dag, state.steps(), device);
}

}  // namespace

std::vector<State> MatmulSeeds(const std::vector<Sketch>& sketches, const DeviceProfile& device) {
  std::vector<State> seeds;
  if (device.kind != DeviceKind::kCpu) return seeds;
  for (const Sketch& sketch : sketches) {
    const std::optional<MatmulSketch> m = MatchMatmulSketch(sketch);
    if (!m.has_value()) continue;
    const Op& op = *sketch.state.stage(m->product).op;
    const int n = static_cast<int>(op.axes.size());
    MatmulTile tile;
    tile.lanes = VectorTile(op.axes[n - 1].extent, MaxVectorElements(device, op.dtype));
    // 8 (or 7, 6) accumulators: enough independent FMAs to cover their
    // latency on two FMA units, few enough to leave registers for the
    // loaded weight vector and the broadcast inputs.
    if (n >= 2) tile.columns = FirstDivisor(op.axes[n - 2].extent, {8, 7, 6, 4, 2});
    for (const int64_t band : BandHeights(op, tile, device)) {
      tile.band = band;
      std::optional<State> seed = BuildSeed(sketch, *m, FillSplits(sketch, m->product, tile), device);
      if (seed.has_value()) seeds.push_back(*std::move(seed));
    }
  }
  return seeds;
}

}  // namespace pruner
