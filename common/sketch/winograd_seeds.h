// Starting points for Winograd convolutions on a CPU (common/ir/winograd.h):
// complete schedules in which ONE parallel loop runs over blocks of the
// output, and each iteration computes everything its block needs, in this
// order, into buffers the size of the block:
//   - the padded input rows it reads,
//   - the transformed input tiles (data_pack),
//   - the batched product with the packed weight (bgemm), register-tiled as
//     a matrix product: a few tiles by one or two vectors of output
//     channels, every input channel inside,
//   - the inverse transform,
// and then writes its part of the output with the bias, residual and
// activation applied (the output gather inlined into the last stage).
//
// Two block shapes:
//   - "rows": one row of tiles (m output rows), every output channel. The
//     packed weight is read once per block, so only where that stays
//     cheap: tile rows x packed weight <= kWinogradRowBlockWeightBytes.
//   - "channels": every tile, kWinogradChannelBlock output channels; the
//     input transform is recomputed per block (a few percent of the work),
//     the packed weight read once in all.
// And, where the packed weight is what costs (16.8 MB for 512 channels at
// 7x7), a third seed of the search's own multi-pass form, "products":
// each stage in a parallel loop of its own, the product's over transform
// positions x blocks of kWinogradChannelBlock channels, accumulated in a
// cache stage over a register tile of every tile (or as many as fit) by
// one vector, so each thread streams its own part of the weight once.
// 2,000 trials of search found 0.75-0.86 ms schedules of this form for
// one of ResNet-18's two 512-channel tasks and 1.38 ms for the other;
// this seed ran at 0.81-0.85 ms there.
//
// Seeds come in that order (rows, products, channels), and an untuned
// build uses the first.
// Why: the search's schedules compute each stage whole in a parallel loop
// of its own, and each loop splits its work among the threads differently,
// so most of what one thread writes (1-2 MB of tiles and products per
// stage) the other thread reads next. Inside ResNet-18 on this project's
// 2-vCPU VM that costs little while the two vCPUs share an L3, but the
// hypervisor often places them on different L3s (a cache-line round trip
// between the threads then takes ~400 ns instead of ~55 ns), and the
// 64-channel 56x56 convolutions went from 0.5-0.8 ms to 1.1-1.5 ms; with
// the row-block shape they ran at 0.43-0.46 ms and 0.46-0.64 ms
// (bench/README.md, session 25). The search's measurement repeats one
// kernel, so it cannot see this; the seeds are measured first like any
// candidate, and a task whose seeds measure slower keeps what the search
// finds.
#ifndef PRUNER_COMMON_SKETCH_WINOGRAD_SEEDS_H_
#define PRUNER_COMMON_SKETCH_WINOGRAD_SEEDS_H_

#include <cstdint>
#include <vector>

#include "common/device/device_profile.h"
#include "common/schedule/state.h"
#include "common/sketch/sketch.h"

namespace pruner {

// The row-block shape re-reads the packed weight once per row of tiles:
// 8.3 MB for 64 channels at 56x56 with F(4x4, 3x3), 16.5 MB for 128 at
// 28x28, where it paid; 29 MB for 256 at 14x14 with F(2x2, 3x3), where
// it ran 0.86-0.89 ms against 0.70-0.75 ms as channel blocks.
inline constexpr int64_t kWinogradRowBlockWeightBytes = int64_t{20} << 20;
// Output channels per channel block.
inline constexpr int64_t kWinogradChannelBlock = 64;

// The seeds above for a Winograd convolution's sketches (a row-block seed
// where it pays, a product-block and a channel-block seed where the
// output channels make whole blocks, the latter only for two or more),
// each from the first sketch of the form it starts from; empty for GPUs
// and for other tasks.
std::vector<State> WinogradSeeds(const std::vector<Sketch>& sketches, const DeviceProfile& device);

}  // namespace pruner

#endif  // PRUNER_COMMON_SKETCH_WINOGRAD_SEEDS_H_
