// Starting points for window reductions on a CPU: complete schedules of the
// one shape that keeps a depthwise convolution (or any reduction over a
// small window, every reduce axis at most 7 long) near the FMA peak, for the
// search to measure first and evolve from.
//
// The shape, in the sketch that tiles the reduction with its element-wise
// consumer fused at level 2 (Ansor's SSRSRS CPU structure):
//   - a band of output rows per parallel iteration, the padded input band
//     copied once (the padding stage computed at the consumer's outermost
//     tile loop, outside every reduce loop);
//   - a register tile of a few output columns by one vector of channels
//     (the last axis), the whole window reduced inside it and unrolled, so
//     the accumulators stay in registers across the taps.
// In an inverted-residual task (common/graph/fusion.h: a 1x1 expand
// convolution fused with the depthwise convolution it feeds), the expand
// stage is computed per parallel iteration too, right before the padding
// copy: the band's rows (plus the window's halo, recomputed by the band
// next to it) by a block of 16-48 channels, as a register-tiled matrix
// product (a few columns by one vector of channels, the whole reduction
// inside). The expanded tensor then never leaves the core's cache; bands
// are taller (the whole image up to 14 rows, else 14, 8, 7 or 4 rows) to
// keep the halo's recomputation small.
// Random annotation reaches this shape rarely (it is one joint choice of
// sketch, tile sizes, compute location and unroll depth): in 64 trials per
// task the search held MobileNet-V2's depthwise convolutions at 10-30 % of
// the peak, where these schedules run at 30-70 % (bench/README.md,
// session 22). They are hints, measured like any candidate: a task whose
// seeds are slow keeps whatever the search finds.
#ifndef PRUNER_COMMON_SKETCH_WINDOW_SEEDS_H_
#define PRUNER_COMMON_SKETCH_WINDOW_SEEDS_H_

#include <vector>

#include "common/device/device_profile.h"
#include "common/schedule/state.h"
#include "common/sketch/sketch.h"

namespace pruner {

// The longest reduce axis a window reduction has.
inline constexpr int64_t kMaxWindowExtent = 7;

// True for a reduction whose every reduce axis is at most kMaxWindowExtent
// long: the window of a depthwise convolution or a pooling.
bool IsWindowReduction(const Op& op);

// Complete, replayable schedules of the shape above, one per row-band
// height that divides the output rows, for each sketch of `sketches` that
// has the shape's structure; empty for GPUs and for tasks without a window
// reduction with a padding producer and a fused element-wise consumer.
std::vector<State> WindowReductionSeeds(const std::vector<Sketch>& sketches,
                                        const DeviceProfile& device);

}  // namespace pruner

#endif  // PRUNER_COMMON_SKETCH_WINDOW_SEEDS_H_
