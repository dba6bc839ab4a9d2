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
//
// Issue symbols: what the LLVM backend (common/codegen/cpu_llvm_codegen.cc)
// emits, which decides the speed of the small loop nests a random schedule
// makes far more than the flop count does. Loops are unrolled by the rules
// of common/lower/unroll_rules.h; M = the innermost loop not unrolled and
// not a vector of lanes (none: straight-line code). Outer = the product of
// the extents of M and the loops around it (a vector loop counting 1).
//   lanes: the vectorized loop's extent when its lanes are emitted as a
//     vector, else LLVM's own loop vectorizer on M when M writes D
//     contiguously and every read is contiguous or invariant in M (no fp
//     reassociation, so never a reduction loop): min(extent(M), width).
//   slp lanes: LLVM's SLP vectorizer on the unrolled body's innermost loop
//     when no vector loop exists and that loop writes D contiguously and
//     every read is contiguous or invariant in it, and no read sits in a
//     select's arm (scalar code branches around it): min(extent, width).
//   pieces: the machine registers one value of the vector loop takes, as
//     the backend splits it (vector_pieces.h: 14 lanes are an 8- and a
//     6-lane vector, 2 registers of 16 lanes); 1 without a vector loop.
//   statements = Outer x (unrolled extents inside M) / (auto-vector lanes x
//     slp lanes) x pieces
//   loads(B) = Outer / (extent(M) when M does not move B and B's body
//     values fit the registers the accumulators leave: hoisted) x
//     (distinct elements of B the unrolled body reads: CSE keeps one load
//     per address; the SLP loop's extent over its lanes; a sliding window
//     yy + ry covers extent(yy) + extent(ry) - 1 rows) x (pieces when the
//     vector loop moves B) x (lanes / pieces when it strides B: a gather);
//     registers are counted the same way (accumulators and hoisted values
//     alike take pieces registers per value the vector loop moves)
//   gathered lanes = the loads(B) of the groups the vector loop strides
//     (LLVM's masked gather costs more per lane than a scalar load)
//   stores = loads(D): one store per distinct destination vector of an
//     iteration of M (the unrolled body forwards the rest in registers),
//     none per iteration when M does not move D (a reduction over M keeps
//     its accumulators in registers; in g++'s code a vector loop's only at
//     constant offsets), unless the accumulators outnumber the vector
//     registers: then the share that does not fit spills, a store per
//     statement x (accumulators - registers) / accumulators.
//   loop iterations = Outer.
//   chain steps: an update (D = D + ..., the value reads D) adds each
//     statement to an accumulator, so the updates of one accumulator run
//     one after another, an FMA latency apart, unless other accumulators'
//     updates come between them: statements / pieces / (the accumulators of the
//     body's loops inside its innermost reduction loop; all the body's
//     accumulators when no reduction loop is in the body). A body that
//     sums a 3x3 window into one vector before it moves to the next
//     (14 accumulators, each updated 36 times in a row) is bound by that
//     latency however few loads it issues.
//     When M moves the accumulators, the chains of successive iterations
//     of M are independent and the core overlaps them: the steps are
//     divided by the iterations in flight, min(extent of M, kReorderWindow
//     / instructions per iteration (statements + loads)). A dense tile
//     that sums 4 k-steps into one vector per row over 128 rows is bound by
//     its loads, not by 4 FMA latencies per row.
//   l1 / l2 lines: the S5 capacity model at the L1 and at the L2 capacity,
//     in cache lines (CacheLines); at the L1 a level is kept only where no
//     group's region crowds one of its sets past the ways (rows a multiple
//     of 4 KiB apart; set_conflicts.h).
//   dram elements: the S5 capacity model at the shared L3's capacity (all
//     of S5 without an L3).
//
// g++'s code (AnalyzerOptions::cpu_codegen = kGcc, records built from the
// C++ source) differs in four ways that change the ranking, each read off
// g++ 12's assembly of real records' kernels (MachineParams):
//   - a guarded read is a load and a blend, so its rows SLP-pack;
//   - on Intel's AVX-512 cores vectors are 8 lanes (ymm), not 16;
//   - lanes that do not fill a register go out as halving vectors (7
//     lanes: 4 + 2 + 1, three instructions; LLVM emits one);
//   - a reduction over M keeps a vector loop's accumulators in registers
//     only when the body addresses them at constant offsets; a vector tile
//     that an outer loop moves (a 4 x 16 tile of a 32 x 32 cache-write
//     buffer) is loaded and stored at every step of M, as stores count.
#include <algorithm>

#include "common/analysis/cache_traffic.h"
#include "common/analysis/set_conflicts.h"
#include "common/analysis/store_symbols.h"
#include "common/analysis/transfer_run.h"
#include "common/ir/expr.h"
#include "common/lower/vector_pieces.h"

namespace pruner {
namespace {

// The instructions an out-of-order core keeps in flight, over which the
// chain steps of independent iterations overlap: Zen 3/4's reorder buffer
// holds 256-320, Golden Cove's 512. Both datasets' rankings are flat from
// 192 to 512 (bench/README.md, "LSE on the CPU: chains that overlap").
constexpr double kReorderWindow = 256;

bool Any(const LoopInfo&) { return true; }

// The machine registers (and instructions) one value of a vector loop of
// `extent` lanes takes: the backend's pieces (vector_pieces.h), or, in g++'s
// code, full registers and then halving vectors down to a scalar for the
// rest (its epilogue vectorization: 7 lanes on 8-lane registers are a 4-,
// a 2-lane vector and a scalar).
int64_t RegistersPerValue(int64_t extent, const MachineParams& machine) {
  if (!machine.remainder_in_halving_vectors) return VectorRegisters(extent, machine.l1_width);
  const int64_t lanes = std::max(machine.l1_width, 1);
  int64_t registers = extent / lanes;
  for (int64_t rest = extent % lanes; rest > 0; rest &= rest - 1) ++registers;
  return std::max<int64_t>(registers, 1);
}

// How loop `var` steps through the elements of `group` (all instances):
// 0 = never moves it, 1 = unit stride, 2 = any other stride.
int StrideClass(const Program& program, const StoreAccesses& accesses, const AccessGroup& group,
                int var) {
  const Buffer& b = program.buffer(group.buffer);
  int worst = 0;
  for (int k = 0; k < std::max(group.num_instances, 1); ++k) {
    int64_t stride = 0, inner = 1;
    for (int d = group.num_dims - 1; d >= 0; --d) {
      for (const IndexTerm& t : accesses.terms(accesses.dim(group, k, d))) {
        if (t.var == var) stride += t.coef * inner;
      }
      if (d < static_cast<int>(b.shape.size())) inner *= b.shape[d];
    }
    worst = std::max(worst, stride == 0 ? 0 : stride == 1 || stride == -1 ? 1 : 2);
  }
  return worst;
}

// Whether LLVM's vectorizers can pack the iterations of loop `var` into
// vectors: it writes the destination (the first group) with unit stride and
// reads every other buffer with unit stride or not at all.
bool Packable(const Program& program, const StoreAccesses& accesses, int var) {
  const std::vector<AccessGroup>& groups = accesses.groups();
  if (StrideClass(program, accesses, groups.front(), var) != 1) return false;
  for (size_t g = 1; g < groups.size(); ++g) {
    if (StrideClass(program, accesses, groups[g], var) == 2) return false;
  }
  return true;
}

// Whether the value reads memory in an arm of a select (a padding copy's
// select(in bounds, input[...], 0)). The LLVM backend emits such a select
// in scalar code as a branch around the read (cpu_llvm_codegen.cc, Guarded:
// the read may be out of bounds when the condition is false), and LLVM's
// SLP vectorizer does not pack statements across branches: a padding copy
// unrolled 16 x 16 stays 256 scalar branches. (g++ if-converts it into a
// load and a blend: MachineParams::guarded_reads_branch.)
bool ReadsUnderASelect(const Expr& value) {
  bool guarded = false;
  VisitExpr(value, [&](const ExprNode& n) {
    if (guarded || n.kind != ExprKind::kSelect) return;
    for (size_t arm = 1; arm < n.args.size(); ++arm) {
      VisitExpr(n.args[arm], [&](const ExprNode& a) {
        if (a.kind == ExprKind::kRead) guarded = true;
      });
    }
  });
  return guarded;
}

void IssueSymbols(const StoreSite& site, const StoreAccesses& accesses,
                  const MachineParams& machine, BufferSymbols* s) {
  const Program& program = *site.program;
  const std::vector<AccessGroup>& groups = accesses.groups();
  const std::span<const LoopInfo> loops = site.loops;
  const int n = static_cast<int>(loops.size());
  // The vector loop whose lanes the backend emits: the innermost vectorized
  // loop with nothing but unrolled loops inside it and a store that moves
  // with it (a vector loop around other loops, or whose lanes would all
  // write one element, stays a serial loop).
  int vec = -1;
  for (int l = n - 1; l >= 0; --l) {
    if (loops[l].kind == ForKind::kVectorized) {
      if (accesses.Uses(groups.front(), loops[l].var) && loops[l].extent >= 2) vec = l;
      break;
    }
  }
  auto in_body = [&](int l) { return loops[l].unrolled || l == vec; };
  int m = n - 1;
  while (m >= 0 && in_body(m)) --m;
  // A vectorized loop outside M runs serially.
  if (vec >= 0 && vec < m) vec = -1;
  double outer = 1;
  for (int l = 0; l <= m; ++l) outer *= static_cast<double>(loops[l].extent);
  double lanes = vec >= 0 ? static_cast<double>(loops[vec].extent) : 1;
  double auto_lanes = 1;
  if (vec < 0 && m >= 0 && loops[m].extent >= 2) {
    if (Packable(program, accesses, loops[m].var)) {
      auto_lanes = std::min<double>(static_cast<double>(loops[m].extent), machine.l1_width);
    }
  }
  // LLVM's SLP vectorizer packs the unrolled body's statements into vectors
  // along its innermost loop when that loop writes D contiguously and every
  // read is contiguous or invariant along it (a register tile the schedule
  // left scalar, e.g. 4 x 32 accumulators of a dense layer, becomes 8 zmm
  // accumulators).
  int slp = -1;
  double slp_lanes = 1;
  // (When the loop vectorizer already took M, its body is vector code.)
  if (vec < 0 && auto_lanes == 1 && m < n - 1 && loops[n - 1].extent >= 2 &&
      Packable(program, accesses, loops[n - 1].var) &&
      !(machine.guarded_reads_branch && ReadsUnderASelect(site.store->value))) {
    slp = n - 1;
    slp_lanes = std::min<double>(static_cast<double>(loops[slp].extent), machine.l1_width);
  }
  // The vectors the SLP vectorizer makes of one row along its loop: as many
  // as the backend's split would (28 statements: 16 + 8 + 4 lanes, 3
  // vectors, not 28 / 16).
  const double slp_vectors =
      slp >= 0 ? static_cast<double>(RegistersPerValue(loops[slp].extent, machine)) : 1;
  // What loop `l` multiplies a body count by: its extent, or along the SLP
  // loop its vectors.
  auto body_factor = [&](int l) {
    return l == slp ? slp_vectors : static_cast<double>(loops[l].extent);
  };
  double body = 1;
  for (int l = m + 1; l < n; ++l) {
    if (l != vec) body *= static_cast<double>(loops[l].extent);
  }
  // The machine registers one value of the vector loop occupies (and so the
  // instructions one of its statements issues): the backend splits 14 lanes
  // into an 8- and a 6-lane vector (vector_pieces.h), two registers where
  // 16 lanes take one.
  const double pieces =
      vec >= 0 ? static_cast<double>(RegistersPerValue(loops[vec].extent, machine)) : 1;
  s->issue_lanes = std::max({lanes, auto_lanes, slp_lanes});
  // Statements of the body as written (an update's chains count these: the
  // pieces of one statement are chains of their own), and as issued.
  const double body_statements =
      outer * body / auto_lanes / (slp >= 0 ? loops[slp].extent / slp_vectors : 1.0);
  s->issue_statements = body_statements * pieces;
  s->issue_loop_iterations = outer / auto_lanes;
  // The body loop (inside M, not the vector loop) that runs `var`, or -1.
  auto body_loop = [&](int var) {
    for (int l = m + 1; l < n; ++l) {
      if (loops[l].var == var) return l == vec ? -1 : l;
    }
    return -1;
  };
  // Distinct loads of group `g` one run of the body issues: CSE keeps one
  // per distinct address (a vector along the vector loop, a pack of lanes
  // along the SLP loop). Along an affine dimension the body's loops cover
  // at most span + 1 values: a sliding window (yy + ry over unrolled yy and
  // ry) touches extent(yy) + extent(ry) - 1 rows, not their product.
  auto body_distinct = [&](const AccessGroup& g) {
    double moving = 1;
    for (int l = m + 1; l < n; ++l) {
      if (l != vec && accesses.Uses(g, loops[l].var)) {
        moving *= body_factor(l);
      }
    }
    if (g.num_instances == 0) return moving;
    double widest = 0;
    for (int k = 0; k < g.num_instances; ++k) {
      double distinct = 1;
      for (int d = 0; d < g.num_dims; ++d) {
        const IndexDim& dim = accesses.dim(g, k, d);
        double product = 1, span = 0;
        bool window = dim.affine;
        for (const IndexTerm& t : accesses.terms(dim)) {
          const int l = body_loop(t.var);
          if (l < 0) continue;
          const double extent = static_cast<double>(loops[l].extent);
          product *= body_factor(l);
          span += static_cast<double>(t.coef < 0 ? -t.coef : t.coef) * (extent - 1);
          if (l == slp) window = false;
        }
        distinct *= window ? std::min(product, span + 1) : product;
      }
      widest = std::max(widest, distinct);
    }
    return std::min(moving, widest);
  };
  // The registers a group's distinct values take: `pieces` each when the
  // vector loop moves the group (a vector of its lanes), one otherwise (a
  // broadcast scalar). A gathered group is assembled into full vectors too.
  auto registers_per_value = [&](const AccessGroup& g) {
    return vec >= 0 && accesses.Uses(g, loops[vec].var) ? pieces : 1.0;
  };
  const double accumulators =  // destination registers
      body_distinct(groups.front()) * registers_per_value(groups.front());
  const double registers = machine.register_capacity / machine.l1_width;
  // Registers left for loads hoisted out of M once the accumulators have
  // theirs. A read invariant in M is loaded once per run of M only while
  // its body's distinct values fit there; past that LICM's hoisted values
  // spill and are reloaded every iteration (a 3x3 window of 16 input rows
  // over 4 channels, 192 vectors, is loaded again for every output
  // channel).
  double free_registers = std::max(0.0, registers - accumulators);
  // Loads of group `g` whose body reads `distinct` values: once per run of
  // M when `hoisted`, else every iteration. `gathered`: whether the vector
  // loop strides the group, so that each load is a gather of one element
  // per lane.
  // `distinct` counts registers (a value of `pieces` vectors counts each).
  auto loads_of = [&](const AccessGroup& g, double distinct, bool hoisted, bool* gathered) {
    double count =
        (hoisted ? outer / static_cast<double>(loops[m].extent) : outer / auto_lanes) * distinct;
    *gathered = vec >= 0 && StrideClass(program, accesses, g, loops[vec].var) == 2;
    if (*gathered) count *= lanes / pieces;
    return count;
  };
  auto invariant_in_m = [&](const AccessGroup& g) {
    return m >= 0 && !accesses.Uses(g, loops[m].var);
  };
  for (size_t g = 1; g < groups.size(); ++g) {
    const double distinct = body_distinct(groups[g]) * registers_per_value(groups[g]);
    const bool invariant = invariant_in_m(groups[g]);
    bool gathered = false;
    const double loads =
        loads_of(groups[g], distinct, invariant && distinct <= free_registers, &gathered);
    if (invariant) free_registers = std::max(0.0, free_registers - distinct);
    s->issue_loads += loads;
    if (gathered) s->issue_gathered_lanes += loads;
  }
  // An update (D = D + ...) chains; a store recomputed under a loop that
  // does not move it (a pad stage at its consumer's reduction) does not.
  // The body is emitted in loop order, so what separates two updates of one
  // accumulator is the accumulators of the loops inside the body's
  // innermost reduction loop (all of them without one).
  const bool accumulates = groups.front().type == AccessType::kReadWrite;
  int innermost_reduction = m;
  for (int l = m + 1; l < n; ++l) {
    if (l != vec && !accesses.Uses(groups.front(), loops[l].var)) innermost_reduction = l;
  }
  double interleaved = 1;
  for (int l = innermost_reduction + 1; l < n; ++l) {
    if (l != vec && accesses.Uses(groups.front(), loops[l].var)) {
      interleaved *= body_factor(l);
    }
  }
  s->issue_chain_steps = accumulates ? body_statements / interleaved : 0;
  // When M moves the accumulators, its iterations' chains are independent
  // and the out-of-order core runs as many of them at once as its window
  // holds (see the file comment).
  if (accumulates && m >= 0 && accesses.Uses(groups.front(), loops[m].var)) {
    const double per_iteration =
        (s->issue_statements + s->issue_loads) / std::max(1.0, s->issue_loop_iterations);
    s->issue_chain_steps /=
        std::min(static_cast<double>(loops[m].extent),
                 std::max(1.0, kReorderWindow / std::max(1.0, per_iteration)));
  }
  // The accumulators themselves stay across a reduction over M (their
  // spill is the term below) where the compiler promotes them to registers
  // (MachineParams::promotes_moving_accumulators: g++ promotes a vector
  // loop's accumulators only when no loop outside the body moves their
  // address. Scalar rows it promotes before it vectorizes, as LLVM does:
  // its store motion runs on the unrolled scalar statements, while a
  // vector loop is still a loop inside the body.)
  bool kept = invariant_in_m(groups.front());
  if (kept && vec >= 0 && !machine.promotes_moving_accumulators) {
    // Loops outside an attached buffer's allocation move only its place in
    // the tensor (region_min), not the address within it.
    const Buffer& d = program.buffer(groups.front().buffer);
    auto outside_allocation = [&](int var) {
      return d.attached && std::any_of(d.region_min.begin(), d.region_min.end(),
                                       [&](const Expr& e) { return UsesVar(e, var); });
    };
    for (int l = 0; l < m && kept; ++l) {
      kept = !accesses.Uses(groups.front(), loops[l].var) || outside_allocation(loops[l].var);
    }
  }
  bool unused_gathered = false;
  const double accumulator_loads =
      loads_of(groups.front(), accumulators, kept, &unused_gathered);
  s->issue_stores = accumulators <= registers
                        ? accumulator_loads
                        : std::max(accumulator_loads,
                                   s->issue_statements * (accumulators - registers) / accumulators);
}

// Per access group, the contiguous bytes (transfer_run.h) of the region
// `traffic` fetches at its reuse level; kBroadcastTransfer for a group it
// does not fetch. S7 and the cache lines share them.
void FetchedRuns(const StoreSite& site, const StoreAccesses& accesses,
                 const CacheTraffic& traffic, SymbolScratch* scratch) {
  const std::vector<AccessGroup>& groups = accesses.groups();
  scratch->runs.assign(groups.size(), kBroadcastTransfer);
  for (size_t g = 0; g < groups.size(); ++g) {
    if (traffic.group_elements[g] <= 0) continue;
    scratch->runs[g] = RegionRunBytes(site, accesses, groups[g], traffic.level, &scratch->ranges);
  }
}

// The cache lines `traffic` moves: each group's elements over its
// contiguous run (`runs`, FetchedRuns), clamped to [one element, one line]
// (a run longer than a line fills whole lines; a shorter one wastes the
// rest of each line it touches).
double CacheLines(const StoreAccesses& accesses, const CacheTraffic& traffic,
                  const std::vector<double>& runs, const MachineParams& machine) {
  const std::vector<AccessGroup>& groups = accesses.groups();
  const double line = std::max(machine.transaction_bytes, 1);
  double lines = 0;
  for (size_t g = 0; g < groups.size(); ++g) {
    if (traffic.group_elements[g] <= 0) continue;
    const double elem = groups[g].elem_bytes;
    const double run = runs[g] == kBroadcastTransfer ? line : runs[g];
    lines += traffic.group_elements[g] * elem / std::clamp(run, elem, std::max(line, elem));
  }
  return lines;
}

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

  IssueSymbols(site, accesses, machine, &s);
  s.issue_float_ops = float_ops;

  RegionFootprints& footprints = scratch->footprints;
  footprints.Compute(site, accesses, &scratch->ranges);
  if (outermost_reduction >= 0) s.s3_l1_bytes = footprints.bytes(accesses, outermost_reduction + 1);

  // A buffer the nest allocates itself that fits the cache is never fetched.
  std::vector<bool>& resident = scratch->resident;
  auto resident_at = [&](int64_t capacity_bytes) -> const std::vector<bool>& {
    resident.assign(groups.size(), false);
    for (size_t g = 0; g < groups.size(); ++g) {
      const Buffer& b = program.buffer(groups[g].buffer);
      resident[g] = b.attached && b.bytes() <= capacity_bytes;
    }
    return resident;
  };
  auto traffic_past = [&](int64_t capacity_bytes) {
    return MissTraffic(site, accesses, footprints, static_cast<double>(capacity_bytes),
                       resident_at(capacity_bytes));
  };
  const CacheTraffic traffic = traffic_past(machine.l2_cache_bytes);
  s.s5_global_elements = traffic.elements;
  FetchedRuns(site, accesses, traffic, scratch);
  s.issue_l2_lines = CacheLines(accesses, traffic, scratch->runs, machine);
  if (options.use_s7 && s.s5_global_elements > 0) {
    s.s7_transfer_bytes = SmallestTransfer(
        accesses, [&](size_t g) { return traffic.group_elements[g] > 0; },
        [&](const AccessGroup& g) { return scratch->runs[&g - groups.data()]; },
        machine.transaction_bytes);
  }

  s.issue_dram_elements = machine.l3_cache_bytes > machine.l2_cache_bytes
                              ? traffic_past(machine.l3_cache_bytes).elements
                              : s.s5_global_elements;

  // The L1 keeps a level's regions only where their rows do not crowd a
  // few of its sets (set_conflicts.h).
  const CacheSets l1_sets = PageIndexedSets(machine.l1_cache_bytes, machine.transaction_bytes);
  const CacheTraffic l1_traffic = MissTraffic(
      site, accesses, footprints, static_cast<double>(machine.l1_cache_bytes),
      resident_at(machine.l1_cache_bytes), [&](int level) {
        return RegionsFitSets(site, accesses, level, l1_sets, &scratch->ranges, &scratch->sets);
      });
  FetchedRuns(site, accesses, l1_traffic, scratch);
  s.issue_l1_lines = CacheLines(accesses, l1_traffic, scratch->runs, machine);
  return s;
}

}  // namespace pruner
