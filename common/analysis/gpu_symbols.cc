// GPU symbols of one store: Pruner's feature_psa.cc rules (../shared/specs/pruner.md
// §2.2-§2.3) on our IR, plus what the paper has and the code lacks.
//
// At a store, G = blockIdx extents and T = threadIdx extents (the innermost
// binding of each axis), and inner = the product of every other enclosing
// loop, vthreads included. "Per-thread loops" are the enclosing loops that
// are not thread bindings. Whether a loop moves a buffer is asked of the
// global tensor coordinates (index + region_min), so a shared tile indexed
// from its corner still depends on k_outer and on blockIdx, as the pre-
// flatten TIR the code reads does.
//
//   S2  = inner x (float ops of the value)            [code: float_workload_thread]
//   S8  = S2 x G x T                                    [code: ComputeWorkload]
//   SAxis = per-thread loops that move the destination D
//   compute row (S2 > 0):
//     S1 = sum_B LoopProd(B, SAxis)                     [code: RegUsage]
//     MemWorkload = sum_B LoopProd(B, per-thread loops) [code: MemWorkload]
//     S5 = paper: sum over global B of LoopProd(B, per-thread loops) x T x G
//          code: 0
//   shared-load row (S2 = 0, D shared):
//     fetch = LoopProd(D, SAxis) x T                    [code: SharedMemFootprint]
//     S5 = fetch x G                                    [code: DRAM_workload]
//   memory row (otherwise):
//     S5 = paper: as a compute row's; code: inner x G x T (every element
//          written, whatever its scope)
//   S3 = shared bytes the kernel allocates per block, S4 = T, S6 = G,
//   S7 = the smallest warp transfer (transfer_run.h) over the global
//        accesses S5 counts.
//
// Differences from the code, all deliberate:
// - LoopProd skips every thread binding; the code skips only the variables
//   named exactly threadIdx.x and blockIdx.x, so its y/z bindings count as
//   loops. Ansor's GPU sketches fuse everything into the x axes, where the
//   two agree.
// - MemWorkload restarts at every store (the code accumulates it over the
//   stores of one buffer; only several compute stores into one buffer would
//   tell the difference, and our lowering emits one).
// - The shared-load branch measures the destination's footprint; the code
//   takes the first entry of a hash map, which is the destination or the
//   global source, whose global indices move with the same loops.
#include "common/analysis/store_symbols.h"

#include <algorithm>

#include "common/analysis/transfer_run.h"

namespace pruner {
namespace {

bool PerThread(const LoopInfo& loop) { return !IsThreadBindingKind(loop.kind); }

}  // namespace

double FloatOpsPerEvaluation(const OpCounts& ops, const AnalyzerOptions& options) {
  double n = static_cast<double>(ops.float_addsub + ops.float_mul + ops.float_divmod);
  if (options.count_all_float_ops) {
    n += static_cast<double>(ops.float_mad + ops.float_cmp + ops.float_math_func +
                             ops.float_other_func);
  }
  return n;
}

BufferSymbols GpuStoreSymbols(const StoreSite& site, const StoreAccesses& accesses,
                              double float_ops, const MachineParams& machine,
                              const AnalyzerOptions& options, SymbolScratch* scratch) {
  const Program& program = *site.program;
  const std::vector<AccessGroup>& groups = accesses.groups();
  const AccessGroup& dst = groups.front();
  const Buffer& dst_buffer = program.buffer(dst.buffer);

  int64_t block[3] = {1, 1, 1}, thread[3] = {1, 1, 1};
  double inner = 1, vthreads = 1;
  for (const LoopInfo& loop : site.loops) {
    if (IsBlockKind(loop.kind)) {
      block[BindingDim(loop.kind)] = loop.extent;
    } else if (IsThreadIdxKind(loop.kind)) {
      thread[BindingDim(loop.kind)] = loop.extent;
    } else {
      inner *= static_cast<double>(loop.extent);
      if (loop.kind == ForKind::kVThread) vthreads *= static_cast<double>(loop.extent);
    }
  }
  const double grid = static_cast<double>(block[0] * block[1] * block[2]);
  const double threads = static_cast<double>(thread[0] * thread[1] * thread[2]);

  BufferSymbols s;
  s.buffer = dst.buffer;
  s.kernel = site.kernel;
  s.elem_bytes = dst.elem_bytes;
  s.vthreads = vthreads;
  s.s2_thread_flops = inner * float_ops;
  s.s8_total_flops = s.s2_thread_flops * grid * threads;
  s.s3_l1_bytes = static_cast<double>(program.kernels[site.kernel].shared_bytes);
  s.s4_l1_parallel = threads;
  s.s6_l2_parallel = grid;

  auto in_saxis = [&](const LoopInfo& loop) {
    return PerThread(loop) && accesses.Uses(dst, loop.var);
  };
  auto is_global = [&](const AccessGroup& g) {
    return program.buffer(g.buffer).scope == MemScope::kGlobal;
  };
  // Global elements the store reads and writes: each thread's distinct
  // elements, for every thread of every block.
  auto actual_global_traffic = [&] {
    double elements = 0;
    for (const AccessGroup& g : groups) {
      if (!is_global(g)) continue;
      elements += MovingLoopProduct(accesses, g, site.loops, PerThread) * threads * grid;
    }
    return elements;
  };

  if (float_ops > 0) {
    s.kind = RowKind::kCompute;
    double mem_workload = 0;
    for (const AccessGroup& g : groups) {
      s.s1_registers += MovingLoopProduct(accesses, g, site.loops, in_saxis);
      mem_workload += MovingLoopProduct(accesses, g, site.loops, PerThread);
    }
    s.reuse_flops = s.s2_thread_flops;
    s.reuse_elements = mem_workload;
    if (options.count_actual_global_traffic) s.s5_global_elements = actual_global_traffic();
  } else if (dst_buffer.scope == MemScope::kShared) {
    s.kind = RowKind::kSharedLoad;
    s.shared_fetch_elements = MovingLoopProduct(accesses, dst, site.loops, in_saxis) * threads;
    s.s5_global_elements = s.shared_fetch_elements * grid;
  } else {
    s.kind = RowKind::kMemory;
    s.s5_global_elements =
        options.count_actual_global_traffic ? actual_global_traffic() : inner * grid * threads;
  }

  if (options.use_s7 && s.s5_global_elements > 0) {
    // Nothing moving with the lanes means one transaction serves the warp.
    s.s7_transfer_bytes = SmallestTransfer(
        accesses, [&](size_t g) { return is_global(groups[g]); },
        [&](const AccessGroup& g) {
          return WarpTransferBytes(site, accesses, g, machine.l1_width, &scratch->ranges);
        },
        machine.transaction_bytes);
  }
  return s;
}

}  // namespace pruner
