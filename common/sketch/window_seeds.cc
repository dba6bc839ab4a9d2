#include "common/sketch/window_seeds.h"

#include <optional>

#include "common/sketch/access_analysis.h"
#include "common/sketch/annotate.h"
#include "common/sketch/seed_finish.h"
#include "common/sketch/seed_tiles.h"

namespace pruner {
namespace {

// What a sketch must have for the shape: the window stage tiled with its
// consumer following at level 2, and a padding producer left at the root
// (an element-wise compute stage; an input tensor has nothing to copy).
struct WindowSketch {
  int window = -1;    // the tiled reduction
  int consumer = -1;  // its fused element-wise consumer
  int padding = -1;   // its padding producer
  // A reduction the padding stage reads (through inlined element-wise
  // stages), tiled at the root by the sketch: the expand convolution of an
  // inverted-residual task (fusion.h). -1 when there is none.
  int expand = -1;
};

bool IsTiledBy(const Sketch& sketch, int stage) {
  for (const Step& step : sketch.steps) {
    if (step.kind == StepKind::kSplit && step.stage == stage) return true;
  }
  return false;
}

std::optional<WindowSketch> MatchWindowSketch(const Sketch& sketch) {
  WindowSketch m;
  for (const Step& step : sketch.steps) {
    if (step.ChangesDag()) return std::nullopt;  // stage indices would move
    if (step.kind == StepKind::kSplit && m.window < 0 &&
        IsWindowReduction(*sketch.state.stage(step.stage).op)) {
      m.window = step.stage;
    }
    if (step.kind == StepKind::kFollowSplit && step.n_split == 2) m.consumer = step.stage;
    if (step.kind == StepKind::kFollowSplit && step.n_split != 2) return std::nullopt;
  }
  if (m.window < 0 || m.consumer < 0) return std::nullopt;
  for (int p : GetDirectProducers(sketch.state, m.window)) {
    const Stage& s = sketch.state.stage(p);
    if (!s.is_placeholder() && !s.has_reduce() && s.compute_at == ComputeAtKind::kRoot) {
      m.padding = p;
    }
  }
  if (m.padding < 0) return std::nullopt;
  for (int p : GetProducers(sketch.state, m.padding)) {
    const Stage& s = sketch.state.stage(p);
    if (s.has_reduce() && s.compute_at == ComputeAtKind::kRoot && !IsWindowReduction(*s.op)) {
      // Its open tile sizes must be chosen here; an untiled one stays at
      // the root, computed whole before the bands.
      if (IsTiledBy(sketch, p)) m.expand = p;
    }
  }
  return m;
}

// How many channels one parallel iteration of a fused (inverted-residual)
// task covers: a few vectors, so that its slice of the expanded band and of
// the padded band stay in the core's cache whatever the expansion.
int64_t ChannelBlock(int64_t channels, int64_t vector_tile) {
  for (int64_t c : {48, 32, 24, 16}) {
    if (channels % c == 0 && c % vector_tile == 0) return c;
  }
  return vector_tile;
}

// The expand stage's open lengths: computed per band (all rows, columns and
// channels of its region), it is a matrix product whose register tile is
// 8 (or 7, 4, 2) columns by one vector of channels, with its whole
// reduction inside the tile.
void FillExpandSplits(const Sketch& sketch, int expand, int64_t vector_lanes,
                      std::vector<Step>& steps) {
  const int num_axes = static_cast<int>(sketch.state.stage(expand).op->axes.size());
  FillOpenSplits(expand, steps, [&](int axis, int64_t e, std::vector<int64_t>& lengths) {
    if (axis == num_axes - 1) lengths.back() = VectorTile(e, vector_lanes);
    // 8 (or 7) accumulators: enough independent FMAs to cover their latency.
    if (axis == num_axes - 2) lengths.back() = FirstDivisor(e, {8, 7, 4, 2});
  });
}

// The sketch's steps with every open length of the window stage chosen:
// rows in bands of `band` per outer iteration, a register tile of 4 (or 7,
// 8, 2) columns by one vector of channels, the window whole inside. With an
// expand stage, the channels also go in blocks per outer iteration
// (ChannelBlock), and the expand stage's lengths are chosen too.
std::vector<Step> FillWindowSplits(const Sketch& sketch, const WindowSketch& m, int64_t band,
                                   int64_t vector_lanes) {
  const Op& op = *sketch.state.stage(m.window).op;
  const int num_axes = static_cast<int>(op.axes.size());
  std::vector<Step> steps = sketch.steps;
  if (m.expand >= 0) FillExpandSplits(sketch, m.expand, vector_lanes, steps);
  // The window itself goes whole inside the tile (its reduce loops).
  // Columns and channels: all at level 1 (outside the parallel band) but
  // the register tile's part at level 3. Rows: the band at level 1.
  FillOpenSplits(m.window, steps, [&](int axis, int64_t e, std::vector<int64_t>& lengths) {
    int64_t tile = 1;
    if (axis == num_axes - 1) {
      tile = VectorTile(e, vector_lanes);
    } else if (axis == num_axes - 2) {
      tile = FirstDivisor(e, {4, 7, 8, 2});
    }
    if (axis == num_axes - 1 && m.expand >= 0) {
      lengths.front() = ChannelBlock(e, tile) / tile;
      lengths.back() = tile;
    } else if (axis >= num_axes - 2) {
      lengths.front() = e / tile;
      lengths.back() = tile;
    } else if (axis == num_axes - 3) {
      lengths.front() = band;
    }
  });
  return steps;
}

std::optional<State> BuildSeed(const Sketch& sketch, const WindowSketch& m,
                               const std::vector<Step>& steps, int64_t vector_lanes,
                               const DeviceProfile& device) {
  State state = State::Initial(sketch.dag);
  for (const Step& step : steps) {
    if (!state.Apply(step).ok()) return std::nullopt;
  }
  const int consumer_axes = static_cast<int>(state.stage(m.consumer).op->axes.size());
  if (static_cast<int>(state.stage(m.consumer).iters.size()) != 3 * consumer_axes) {
    return std::nullopt;
  }
  std::vector<int> outer(consumer_axes);
  for (int i = 0; i < consumer_axes; ++i) outer[i] = i;
  std::vector<Step> tail;
  if (m.expand >= 0) {
    // The expanded band is computed right before the padding copy reads it.
    tail.push_back(ComputeAtStep(m.expand, m.consumer, consumer_axes - 1));
    tail.push_back(AutoUnrollPragmaStep(m.expand, 0, 64));
  }
  tail.insert(tail.end(), {
      ComputeAtStep(m.padding, m.consumer, consumer_axes - 1),
      FuseStep(m.consumer, outer),
      AnnotationStep(m.consumer, 0, IterAnnotation::kParallel),
      AutoUnrollPragmaStep(m.window, 0, 512),
  });
  for (const Step& step : tail) {
    if (!state.Apply(step).ok()) return std::nullopt;
  }
  // The padding copy runs over the band's channels by one vector (a loop
  // vectorized whole may not exceed the device's vector: annotate.h).
  const Stage& pad = state.stage(m.padding);
  const int pad_last = static_cast<int>(pad.iters.size()) - 1;
  const int64_t channels = pad.iter_extent(pad_last);
  const int64_t lanes = VectorTile(channels, vector_lanes);
  if (!state.Apply(SplitStep(m.padding, pad_last, channels, {lanes})).ok()) return std::nullopt;
  std::vector<int> vectorized = {m.padding, m.window, m.consumer};
  if (m.expand >= 0) vectorized.push_back(m.expand);
  if (!VectorizeInnermostLoops(state, vectorized)) return std::nullopt;
  return ReplaySeed(sketch.dag, state.steps(), device);
}

}  // namespace

bool IsWindowReduction(const Op& op) {
  if (op.reduce_axes.empty()) return false;
  for (const Axis& axis : op.reduce_axes) {
    if (axis.extent > kMaxWindowExtent) return false;
  }
  return true;
}

std::vector<State> WindowReductionSeeds(const std::vector<Sketch>& sketches,
                                        const DeviceProfile& device) {
  std::vector<State> seeds;
  if (device.kind != DeviceKind::kCpu) return seeds;
  for (const Sketch& sketch : sketches) {
    const std::optional<WindowSketch> m = MatchWindowSketch(sketch);
    if (!m.has_value()) continue;
    const Op& op = *sketch.state.stage(m->window).op;
    if (op.axes.size() < 3) continue;
    const int64_t rows = op.axes[op.axes.size() - 3].extent;
    const int64_t lanes = MaxVectorElements(device, op.dtype);
    // A fused expand stage is recomputed on the rows two bands share (the
    // window's halo), so its bands are taller: the whole image up to 14
    // rows (no halo at all), else 14, 8, 7 or 4 rows.
    std::vector<int64_t> heights = {8, 7, 4, 2};
    if (m->expand >= 0) heights = {rows <= 14 ? rows : 14, 8, 7, 4};
    int bands = 0;
    int64_t last_band = 0;
    for (const int64_t band : heights) {
      if (bands == 2) break;
      if (rows % band != 0 || band == last_band) continue;
      last_band = band;
      std::optional<State> seed =
          BuildSeed(sketch, *m, FillWindowSplits(sketch, *m, band, lanes), lanes, device);
      if (seed.has_value()) {
        seeds.push_back(*std::move(seed));
        ++bands;
      }
    }
  }
  return seeds;
}

}  // namespace pruner
