// CPU symbols of one store. The public code has no CPU analyzer; these are
// the paper's symbols mapped onto a multicore CPU, with cores as the
// parallel level, SIMD lanes and FMA pipes inside a core, the vector
// register file, the L1 cache and the core's L2 as capacities.
//
// Loops are the enclosing loops, outermost first; D is the destination.
// "Moves" means the loop's variable occurs in the access's global
// coordinates, as on GPUs.
//
//   S8 = (float ops of the value) x (product of all loops)
//   S6 = product of the parallel loops' extents (1 without one)
//   S2 = S8 / S6: the work of one parallel task
//   S4 = extent of the innermost vectorized loop (1 without one)
//   Register tile: the innermost run of loops that all move D, i.e. the
//   loops inside the innermost reduction loop (a loop that does not move
//   D). Its accumulators stay in registers for the whole reduction loop.
//     S1 = sum_B LoopProd(B, tile)
//     register_tile_outputs = LoopProd(D, tile) (independent FMA chains x
//       lanes); 0 when no loop reduces into D (nothing accumulates)
//     reuse window = the tile plus that reduction loop:
//     reuse_flops = ops x product(window), reuse_elements = sum_B
//       LoopProd(B, window) (the code's MemWorkload idea at register level)
//   Without a reduction loop the tile is the vectorized loop.
//   S3 = bytes one iteration of the outermost reduction loop touches (its
//        regions' bounding boxes): the reduction tile whose operands the L1
//        cache must keep between the register tile's passes (0 without a
//        reduction).
//   S5 = elements moved past the core's L2 (cache_traffic.h). A buffer the
//        nest allocates itself (a cache-write tile) that fits in L2 costs
//        no traffic.
//   S7 = the smallest contiguous run (transfer_run.h) of the regions S5
//        fetches, over the accesses it counts.
#include <algorithm>

#include "common/analysis/cache_traffic.h"
#include "common/analysis/store_symbols.h"
#include "common/analysis/transfer_run.h"

namespace pruner {
namespace {

bool Any(const LoopInfo&) { return true; }

}  // namespace

BufferSymbols CpuStoreSymbols(const StoreSite& site, const StoreAccesses& accesses,
                              double float_ops, const MachineParams& machine,
                              const AnalyzerOptions& options, SymbolScratch* scratch) {
  const Program& program = *site.program;
  const std::vector<AccessGroup>& groups = accesses.groups();
  const AccessGroup& dst = groups.front();
  const std::span<const LoopInfo> loops = site.loops;
  const int n = static_cast<int>(loops.size());

  BufferSymbols s;
  s.buffer = dst.buffer;
  s.kernel = site.kernel;
  s.elem_bytes = dst.elem_bytes;
  s.kind = float_ops > 0 ? RowKind::kCompute : RowKind::kMemory;
  s.s8_total_flops = float_ops * LoopProduct(loops, Any);
  s.s6_l2_parallel =
      LoopProduct(loops, [](const LoopInfo& l) { return l.kind == ForKind::kParallel; });
  s.s2_thread_flops = s.s8_total_flops / s.s6_l2_parallel;
  for (const LoopInfo& loop : loops) {
    if (loop.kind == ForKind::kVectorized) s.s4_l1_parallel = static_cast<double>(loop.extent);
  }

  // tile = loops [tile_begin, n); the reduction loops are those not moving D.
  int tile_begin = n;
  while (tile_begin > 0 && accesses.Uses(dst, loops[tile_begin - 1].var)) --tile_begin;
  int outermost_reduction = -1;
  for (int l = 0; l < n && outermost_reduction < 0; ++l) {
    if (!accesses.Uses(dst, loops[l].var)) outermost_reduction = l;
  }
  auto sum_over_groups = [&](std::span<const LoopInfo> range, auto keep) {
    double total = 0;
    for (const AccessGroup& g : groups) total += MovingLoopProduct(accesses, g, range, keep);
    return total;
  };
  if (outermost_reduction >= 0) {
    const std::span<const LoopInfo> tile = loops.subspan(tile_begin);
    const std::span<const LoopInfo> window = loops.subspan(tile_begin - 1);
    s.s1_registers = sum_over_groups(tile, Any);
    s.register_tile_outputs = MovingLoopProduct(accesses, dst, tile, Any);
    s.reuse_flops = float_ops * LoopProduct(window, Any);
    s.reuse_elements = sum_over_groups(window, Any);
  } else {
    auto vectorized = [](const LoopInfo& l) { return l.kind == ForKind::kVectorized; };
    s.s1_registers = sum_over_groups(loops, vectorized);
    s.reuse_flops = float_ops * LoopProduct(loops, vectorized);
    s.reuse_elements = s.s1_registers;
  }

  RegionFootprints& footprints = scratch->footprints;
  footprints.Compute(site, accesses, &scratch->ranges);
  if (outermost_reduction >= 0) s.s3_l1_bytes = footprints.bytes(accesses, outermost_reduction + 1);

  std::vector<bool>& resident = scratch->resident;
  resident.assign(groups.size(), false);
  for (size_t g = 0; g < groups.size(); ++g) {
    const Buffer& b = program.buffer(groups[g].buffer);
    resident[g] = b.attached && static_cast<double>(b.bytes()) <= machine.l2_cache_bytes;
  }
  const CacheTraffic traffic =
      MissTraffic(site, accesses, footprints, static_cast<double>(machine.l2_cache_bytes), resident);
  s.s5_global_elements = traffic.elements;

  if (options.use_s7 && s.s5_global_elements > 0) {
    s.s7_transfer_bytes = SmallestTransfer(
        accesses, [&](size_t g) { return traffic.group_elements[g] > 0; },
        [&](const AccessGroup& g) {
          return RegionRunBytes(site, accesses, g, traffic.level, &scratch->ranges);
        },
        machine.transaction_bytes);
  }
  return s;
}

}  // namespace pruner
