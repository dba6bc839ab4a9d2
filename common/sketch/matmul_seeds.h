// Starting points for matrix products on a CPU (dense layers, batched
// matrix products, 1x1 and other non-window convolutions): complete
// schedules of the register tile that keeps a product near the FMA peak,
// for the search to measure first and evolve from.
//
// The shape, in the sketch that tiles the product with its element-wise
// consumer fused at level 1 (or the product alone when it is the output):
//   - one parallel loop over vector-wide blocks of the last axis (output
//     channels, the product's columns) and bands of the third-to-last one
//     (rows of the image, or batches), the band as tall as keeps its input
//     slice in the core's L2 while leaving every thread several blocks;
//   - inside, the second-to-last axis (columns of the image, the product's
//     rows) in register tiles of 8 (or 7, 6, 4, 2) by one vector, the whole
//     reduction inside each tile and the tile unrolled, so the accumulators
//     stay in registers across it and each loaded weight vector feeds
//     every one of them.
// In 2,000 trials over MobileNet-V2's 26 tasks (about 80 a task) the search
// held its 1x1 convolutions at 40-70 % of the peak; this shape runs them at
// 55-92 % (bench/README.md, session 26). The seeds are hints, measured like
// any candidate: a task whose seeds are slow keeps what the search finds.
#ifndef PRUNER_COMMON_SKETCH_MATMUL_SEEDS_H_
#define PRUNER_COMMON_SKETCH_MATMUL_SEEDS_H_

#include <vector>

#include "common/device/device_profile.h"
#include "common/schedule/state.h"
#include "common/sketch/sketch.h"

namespace pruner {

// The register-tile seeds of every sketch of a task that has the shape
// above's form, in sketch order; empty for other tasks (window reductions,
// Winograd convolutions, tasks with more stages than the product and its
// fused element-wise consumer) and for GPUs.
std::vector<State> MatmulSeeds(const std::vector<Sketch>& sketches, const DeviceProfile& device);

}  // namespace pruner

#endif  // PRUNER_COMMON_SKETCH_MATMUL_SEEDS_H_
