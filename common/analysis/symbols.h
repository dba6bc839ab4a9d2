// The hardware-aware symbols of the Pruner paper (Table 2, S1-S8), one row
// per buffer the lowered program writes (../shared/specs/pruner.md §2.3-§2.4).
//
// A row holds the symbols of the last store to its buffer: the init and the
// update of an accumulator share a row and the update wins, so the init's
// traffic is not charged (as in Pruner's code). Rows come in first-store
// order; the latency sums over them, so the order does not matter.
//
// The levels mean different hardware on the two kinds of target:
//   level | GPU                                  | CPU
//   L0    | one thread's registers               | one core's vector registers
//   L1    | one block on an SM (shared memory,   | one core (L1 cache, SIMD lanes,
//         | warps)                               | FMA pipes)
//   L2    | the grid over the SMs, DRAM          | parallel tasks over the cores,
//         |                                      | traffic past the core's L2
// symbols.cc extracts, gpu_symbols.cc and cpu_symbols.cc say exactly how.
#ifndef PRUNER_COMMON_ANALYSIS_SYMBOLS_H_
#define PRUNER_COMMON_ANALYSIS_SYMBOLS_H_

#include <cstdint>
#include <string>
#include <vector>

#include "common/analysis/analyzer_options.h"
#include "common/analysis/machine_params.h"
#include "common/lower/program.h"

namespace pruner {

// Which branch of ../shared/specs/pruner.md §2.3 produced the row.
enum class RowKind : uint8_t {
  kCompute,     // the store does float arithmetic
  kSharedLoad,  // GPU: a copy into shared memory (global -> shared traffic)
  kMemory,      // a copy, init or max-only store: memory traffic only
};
const char* RowKindName(RowKind kind);

struct BufferSymbols {
  int buffer = -1;
  int kernel = 0;
  RowKind kind = RowKind::kMemory;
  int elem_bytes = 4;

  // ---- L0
  // S1 L0MemAlloc: elements the innermost level keeps in registers. GPU:
  // the code's RegUsage, sum over accessed buffers of the per-thread
  // spatial loops that move them (vthreads included). CPU: the same sum over
  // the register tile (the loops inside the innermost reduction loop).
  double s1_registers = 0;
  // S2 L0CompCount: float operations per thread (GPU) / per core (CPU).
  double s2_thread_flops = 0;
  // The data reuse P_l0,c measures: flops over the elements they touch.
  // GPU: S2 over the code's MemWorkload (all per-thread loops); CPU: the
  // register tile plus its reduction loop.
  double reuse_flops = 0;
  double reuse_elements = 0;

  // ---- L1
  // S3 L1MemAlloc: GPU: shared memory the block allocates (bytes, the
  // kernel's); CPU: bytes one iteration of the outermost reduction loop
  // touches (the reduction tile the L1 cache must hold; 0 without one).
  double s3_l1_bytes = 0;
  // GPU shared-load rows: the code's SharedMemFootprint (elements one block
  // fetches over the whole kernel). Reported, not used (as in the code).
  double shared_fetch_elements = 0;
  // S4 L1ParaInfo: threads per block (GPU) / vectorized extent (CPU).
  double s4_l1_parallel = 1;
  // CPU: accumulator elements of the register tile (independent FMA chains
  // x lanes); 0 when the store has no reduction (no chains to hide).
  double register_tile_outputs = 0;

  // ---- L2
  // S5 L2MemFootprint: elements moved to or from DRAM (GPU) / past the
  // core's L2 cache (CPU).
  double s5_global_elements = 0;
  // S6 L2ParaInfo: blocks of the grid (GPU) / parallel iterations (CPU).
  double s6_l2_parallel = 1;
  // S7 L2TransDim: contiguous bytes one transfer covers in the innermost
  // dimension (a warp's access on GPUs, a loop's stream on CPUs); the
  // smallest over the row's memory accesses. 0 when the row moves nothing
  // or S7 is off.
  double s7_transfer_bytes = 0;
  // S8 L2CompCount: float operations of the whole statement.
  double s8_total_flops = 0;

  double vthreads = 1;  // GPU: product of enclosing vthread extents

  // ---- CPU: the instructions the LLVM backend issues for the store
  // (cpu_symbols.cc, "issue symbols"). The machine loop M is the innermost
  // loop the backend keeps as a loop; inside it everything is unrolled or
  // vector lanes.
  double issue_lanes = 1;            // fp32 lanes per emitted statement
  double issue_float_ops = 0;        // float operations of one statement (per lane)
  double issue_statements = 0;       // statements executed (a vector one counts once)
  double issue_loads = 0;            // loads after hoisting and CSE (a gathered lane counts one)
  double issue_gathered_lanes = 0;   // the lanes of those loads that are gathers (a strided vector read)
  double issue_stores = 0;           // stores left in memory (register accumulators excluded)
  double issue_loop_iterations = 0;  // iterations of the loops kept as loops
  // Statements that wait for the one before: an update's (D = D + ...)
  // statements over the accumulators its unrolled body interleaves (those
  // of the loops inside the body's innermost reduction loop), the steps of
  // its FMA dependency chains. 0 for a store that does not read its
  // destination.
  double issue_chain_steps = 0;
  // Cache lines the store's accesses bring into the core's L1 and L2 (the
  // capacity model of S5 at each cache, cache_traffic.h), a region counting
  // one line per contiguous run shorter than a line: a column walk pays a
  // line per element where a row walk pays one per 16 floats.
  double issue_l1_lines = 0;
  double issue_l2_lines = 0;
  // Elements moved past the shared L3 (the capacity model at the L3's
  // capacity): the part of S5 that DRAM serves.
  double issue_dram_elements = 0;
};

// What a whole kernel contributes to its rows' penalties.
struct KernelSymbols {
  int64_t threads_per_block = 1;
  int64_t blocks = 1;
  int64_t shared_bytes = 0;
  // Largest S1 of the kernel's compute rows: the registers each thread
  // needs, which every row of the kernel runs with.
  double max_registers = 0;
};

struct ProgramSymbols {
  DeviceKind target = DeviceKind::kCpu;
  std::vector<BufferSymbols> rows;
  std::vector<KernelSymbols> kernels;

  // One line per row and per kernel, names from `program`: for tests and
  // debugging.
  std::string ToString(const Program& program) const;
};

// Symbols of a lowered program for the machine `params` describe. `options`
// chooses what counts as a flop and whether compute rows carry traffic.
ProgramSymbols ExtractSymbols(const Program& program, const MachineParams& params,
                              const AnalyzerOptions& options);

}  // namespace pruner

#endif  // PRUNER_COMMON_ANALYSIS_SYMBOLS_H_
