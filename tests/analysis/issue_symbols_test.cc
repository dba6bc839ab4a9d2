// The CPU issue symbols (cpu_symbols.cc): what the LLVM backend emits for
// hand-written loop nests, worked out by hand from the unroll rules of
// common/lower/unroll_rules.h, and the issue model's latency from them.
#include <cmath>
#include <string>

#include "common/analysis/machine_params.h"
#include "common/analysis/set_conflicts.h"
#include "common/analysis/symbol_analyzer.h"
#include "common/analysis/symbols.h"
#include "common/device/thread_limit.h"
#include "gtest/gtest.h"
#include "tests/analysis/analysis_test_util.h"
#include "tests/lower/lower_test_util.h"

namespace pruner {
namespace {

using testing::Analyzed;
using testing::RowOf;

// On the hand CPU: 8 lanes, 16 vector registers, 3 GHz.
Analyzed Analyze(const std::string& spec, const std::string& steps) {
  return testing::AnalyzeSteps(spec, steps, testing::HandCpu(), AnalyzerOptions::Calibrated());
}

// The same analysis of g++'s code (the C++ source the gcc backend builds).
AnalyzerOptions GccCode() {
  AnalyzerOptions gcc = AnalyzerOptions::Calibrated();
  gcc.cpu_codegen = CpuBackend::kGcc;
  return gcc;
}

struct IssueCounts {
  double lanes, statements, loop_iterations, loads, stores;
};

void ExpectIssueCounts(const BufferSymbols& c, const IssueCounts& want) {
  EXPECT_DOUBLE_EQ(c.issue_lanes, want.lanes);
  EXPECT_DOUBLE_EQ(c.issue_statements, want.statements);
  EXPECT_DOUBLE_EQ(c.issue_loop_iterations, want.loop_iterations);
  EXPECT_DOUBLE_EQ(c.issue_loads, want.loads);
  EXPECT_DOUBLE_EQ(c.issue_stores, want.stores);
}

// The single row of a naive (unscheduled) matmul, whose nest is i, j, k.
BufferSymbols NaiveMatmulRow(const std::string& spec, Analyzed* a) {
  *a = Analyze(spec, "");
  EXPECT_EQ(a->estimate.symbols.rows.size(), 1u) << a->program.ToString();
  return a->estimate.symbols.rows.empty() ? BufferSymbols{} : a->estimate.symbols.rows[0];
}

// Ansor's CPU sketch on matmul 64^3 (lower_test_util.h CpuMatmulSteps):
//   parallel 16 / i.1 2 / j.1 2 / k.0 8 / i.2 4 / j.2 2 / k.1 8 / i.3 2 /
//   vectorized j.3 4, auto_unroll_max_step 16.
// i.3 (2 steps) and k.1 (8 x 2 = 16) are unrolled, j.2 (2 x 16 = 32) is
// not: M = j.2, outer = 16 x 2 x 2 x 8 x 4 x 2 = 4096 iterations, each
// 8 x 2 = 16 statements of 4 lanes.
TEST(IssueSymbols, RegisterTiledMatmulMatchesHandCount) {
  const Analyzed a = Analyze("matmul:M=64,K=64,N=64", testing::CpuMatmulSteps(64, 64, 64));
  const Program& p = a.program;
  SCOPED_TRACE(p.ToString() + a.estimate.ToString(p));
  const BufferSymbols c = RowOf(p, a.estimate.symbols, "matmul.local");
  // Statements: 64^3 updates / 4 lanes. Loads: A[i, k] does not move with
  // j.2, but its 16 values per body (k.1 x i.3) outnumber the 14 registers
  // the two accumulators leave, so they are not kept across j.2: 16 loads
  // per iteration; B[k, j] moves with j.2: 8 loads (k.1; the lanes are
  // contiguous) per iteration. Stores: the body's two accumulators (i.3),
  // once per iteration.
  ExpectIssueCounts(c, {.lanes = 4,
                        .statements = 4096.0 * 16,
                        .loop_iterations = 4096,
                        .loads = 4096.0 * 16 + 4096.0 * 8,
                        .stores = 4096.0 * 2});
  EXPECT_DOUBLE_EQ(c.issue_float_ops, 2);
}

// The naive nest (i 16, j 4, k 8): k (8 steps) is unrolled, j (4 x 8)
// is not; M = j writes C contiguously and reads A (invariant) and B
// (contiguous), so LLVM's loop vectorizer runs it as one 4-lane iteration.
TEST(IssueSymbols, ContiguousMachineLoopIsAutoVectorized) {
  Analyzed a;
  const BufferSymbols c = NaiveMatmulRow("matmul:M=16,K=8,N=4", &a);
  // A: once per run of j, 8 (k) each; B: 8 per iteration.
  ExpectIssueCounts(c, {.lanes = 4,
                        .statements = 16.0 * 8,
                        .loop_iterations = 16,
                        .loads = 16.0 * 8 + 16.0 * 8,
                        .stores = 16});
}

// A long reduction (k 64) stays a loop and is the machine loop: no
// vectorizer touches it (no fp reassociation), every update loads A and B,
// and the accumulator C[i, j] stays in a register for the whole loop.
TEST(IssueSymbols, ReductionMachineLoopKeepsItsAccumulatorInARegister) {
  Analyzed a;
  const BufferSymbols c = NaiveMatmulRow("matmul:M=4,K=64,N=4", &a);
  ExpectIssueCounts(c, {.lanes = 1,
                        .statements = 1024,
                        .loop_iterations = 1024,
                        .loads = 2048,
                        .stores = 16});

  // Everything (2 KiB) fits in L1 and L2: each matrix is fetched once, in
  // whole lines (A and B 256 elements, 16 lines each; C 16, one line).
  EXPECT_DOUBLE_EQ(c.issue_l1_lines, 33);
  EXPECT_DOUBLE_EQ(c.issue_l2_lines, 33);

  // The issue model: load x 2048 + store x 16 + loop x 1024 + chain step
  // x 1024 (one accumulator) + line x 33 cycles at 3 GHz (statement = 0;
  // S5 is each matrix once).
  const CpuIssueConstants k;
  const double cycles = k.statement * 1024 * std::pow(2.0, k.ops_exponent) + k.load * 2048 +
                        k.store * 16 + k.loop_iteration * 1024 + k.chain_step * 1024 +
                        k.l2_miss_element * c.s5_global_elements +
                        k.dram_element * c.issue_dram_elements + k.l1_line * 33 + k.l2_line * 33;
  EXPECT_DOUBLE_EQ(a.estimate.latency_s, cycles / 3e9);
}

// The issue model ranks the register-tiled schedule far ahead of the naive
// nest, as the machine does; Eq. 1 mapped onto the CPU sees the same flops
// and ranks them much closer.
TEST(IssueSymbols, IssueModelFavoursTheRegisterTile) {
  const Analyzed tiled = Analyze("matmul:M=64,K=64,N=64", testing::CpuMatmulSteps(64, 64, 64));
  const Analyzed naive = Analyze("matmul:M=64,K=64,N=64", "");
  EXPECT_GT(naive.estimate.latency_s, 4 * tiled.estimate.latency_s);
}

// A register tile the schedule left scalar: i.3 4 x j.3 16 unrolled under
// the reduction loop k.1 (8 x 64 steps exceed the budget of 64, so k.1 is
// the machine loop M). j.3 writes C contiguously, B is contiguous and A
// invariant along it, so LLVM's SLP vectorizer packs each row of the tile
// into 2 vectors of 8 lanes: 8 accumulators, which fit the 16 registers.
//   outer = 16 (i.0, parallel) x 4 (j.0) x 8 (k.0) x 8 (k.1) = 4096
//   statements = 4096 x 64 / 8; A moves with k.1: 4 loads (i.3) per
//   iteration; B: 16 / 8 = 2 vector loads; C stays in registers over k.1:
//   8 stores per run of it (512 runs).
constexpr char kScalarTileSteps[] =
    "SP 2 0 64 [1,1,4]; SP 2 4 64 [1,1,16]; SP 2 8 64 [8]; RE 2 [0,4,1,5,8,2,6,9,3,7]; "
    "AN 2 0 parallel; PR 2 0 auto_unroll_max_step$64";
TEST(IssueSymbols, UnrolledContiguousTileIsSlpVectorized) {
  const Analyzed a = Analyze("matmul:M=64,K=64,N=64", kScalarTileSteps);
  SCOPED_TRACE(a.program.ToString() + a.estimate.ToString(a.program));
  ASSERT_EQ(a.estimate.symbols.rows.size(), 1u);
  ExpectIssueCounts(a.estimate.symbols.rows[0], {.lanes = 8,
                                                 .statements = 4096.0 * 64 / 8,
                                                 .loop_iterations = 4096,
                                                 .loads = 4096.0 * 4 + 4096.0 * 2,
                                                 .stores = 512.0 * 8});
}

// Chain steps: an update's statements over the accumulators its body
// interleaves, the FMAs that wait for the one before. The register tile's
// 2 (i.3, inside k.1) halve its 4096 x 16, and its machine loop j.2 moves
// the accumulators, so its 2 iterations run side by side: / 2 again. The
// naive reduction loop has one accumulator, so all 1024 statements chain;
// the SLP-packed tile's 8 vectors divide by 8 (its machine loop k.1 sums
// into them, so nothing overlaps); an element-wise store updates nothing.
// Each step costs chain_step cycles (1 by default).
TEST(IssueSymbols, ReductionStatementsChainOnTheirAccumulators) {
  const Analyzed tiled = Analyze("matmul:M=64,K=64,N=64", testing::CpuMatmulSteps(64, 64, 64));
  EXPECT_DOUBLE_EQ(RowOf(tiled.program, tiled.estimate.symbols, "matmul.local").issue_chain_steps,
                   4096.0 * 16 / 2 / 2);
  Analyzed naive;
  EXPECT_DOUBLE_EQ(NaiveMatmulRow("matmul:M=4,K=64,N=4", &naive).issue_chain_steps, 1024);
  const Analyzed slp = Analyze("matmul:M=64,K=64,N=64", kScalarTileSteps);
  ASSERT_EQ(slp.estimate.symbols.rows.size(), 1u);
  EXPECT_DOUBLE_EQ(slp.estimate.symbols.rows[0].issue_chain_steps, 4096.0 * 64 / 8 / 8);
  const Analyzed relu = Analyze("relu:shape=64x64", "");
  ASSERT_EQ(relu.estimate.symbols.rows.size(), 1u);
  EXPECT_DOUBLE_EQ(relu.estimate.symbols.rows[0].issue_chain_steps, 0);

  // The same 4 x 2 tile summed over k.1 innermost: every update of an
  // accumulator follows the one before it, so every statement chains;
  // with k.1 outside the tile, the 4 x 2 accumulators come between.
  const char kReductionInnermost[] =
      "SP 2 0 64 [1,1,4]; SP 2 4 64 [1,1,2]; SP 2 8 64 [8]; RE 2 [0,4,1,5,8,2,6,3,7,9]; "
      "PR 2 0 auto_unroll_max_step$64";
  const char kReductionOutside[] =
      "SP 2 0 64 [1,1,4]; SP 2 4 64 [1,1,2]; SP 2 8 64 [8]; RE 2 [0,4,1,5,8,2,6,9,3,7]; "
      "PR 2 0 auto_unroll_max_step$64";
  const Analyzed inner = Analyze("matmul:M=64,K=64,N=64", kReductionInnermost);
  const Analyzed outside = Analyze("matmul:M=64,K=64,N=64", kReductionOutside);
  ASSERT_EQ(inner.estimate.symbols.rows.size(), 1u);
  ASSERT_EQ(outside.estimate.symbols.rows.size(), 1u);
  const BufferSymbols& in_row = inner.estimate.symbols.rows[0];
  const BufferSymbols& out_row = outside.estimate.symbols.rows[0];
  SCOPED_TRACE(inner.program.ToString() + outside.program.ToString());
  EXPECT_DOUBLE_EQ(in_row.issue_chain_steps, in_row.issue_statements);
  EXPECT_LE(out_row.issue_chain_steps * 4, out_row.issue_statements);

  AnalyzerOptions priced = AnalyzerOptions::Calibrated();
  priced.cpu_issue.chain_step = 4;
  const Analyzed naive_priced =
      testing::AnalyzeSteps("matmul:M=4,K=64,N=4", "", testing::HandCpu(), priced);
  EXPECT_NEAR(naive_priced.estimate.latency_s - naive.estimate.latency_s,
              (4.0 - CpuIssueConstants{}.chain_step) * 1024 / 3e9, 1e-15);
}

// One 8-lane accumulator per row over 128 rows (i.2, the machine loop M),
// 4 k-steps (k.1, unrolled) into each: 4 chained FMAs per iteration, but
// the rows are independent, so the core overlaps 256 / (instructions per
// iteration) of them. Per iteration: 4 statements, 4 broadcasts of A; B's
// 4 vectors do not move with i.2 and stay in registers (loaded once per
// run of it, 16 runs).
TEST(IssueSymbols, ChainsOfIndependentRowsOverlap) {
  const Analyzed a = Analyze("matmul:M=128,K=64,N=8",
                             "SP 2 0 128 [1,128,1]; SP 2 4 8 [1,1,8]; SP 2 8 64 [4]; "
                             "RE 2 [0,4,1,5,8,2,6,9,3,7]; AN 2 9 vectorize; "
                             "PR 2 0 auto_unroll_max_step$64");
  SCOPED_TRACE(a.program.ToString() + a.estimate.ToString(a.program));
  ASSERT_EQ(a.estimate.symbols.rows.size(), 1u);
  const BufferSymbols& c = a.estimate.symbols.rows[0];
  ExpectIssueCounts(c, {.lanes = 8,
                        .statements = 16.0 * 128 * 4,
                        .loop_iterations = 16.0 * 128,
                        .loads = 16.0 * 128 * 4 + 16.0 * 4,
                        .stores = 16.0 * 128});
  const double per_iteration = (8192.0 + 8256.0) / 2048;  // about 8 instructions
  EXPECT_DOUBLE_EQ(c.issue_chain_steps, 8192.0 / (256 / per_iteration));
}

// A parallel loop divides the row's cycles over the cores its kernel runs
// on: all 8 of the hand CPU, none once the device is limited to the one
// thread the kernels get (WithThreadLimit), where the parallel schedule and
// the same one run serially are predicted alike.
TEST(IssueSymbols, ParallelLoopsAreCreditedOnlyWithTheThreadsKernelsGet) {
  const std::string serial =
      "SP 2 0 64 [1,1,4]; SP 2 4 64 [1,1,16]; SP 2 8 64 [8]; RE 2 [0,4,1,5,8,2,6,9,3,7]; "
      "PR 2 0 auto_unroll_max_step$64";
  const AnalyzerOptions options = AnalyzerOptions::Calibrated();
  const DeviceProfile all = testing::HandCpu();
  const DeviceProfile one = WithThreadLimit(all, 1);
  ASSERT_EQ(one.num_cores, 1);
  const std::string spec = "matmul:M=64,K=64,N=64";
  const double parallel_all = testing::AnalyzeSteps(spec, kScalarTileSteps, all, options).estimate.latency_s;
  const double serial_all = testing::AnalyzeSteps(spec, serial, all, options).estimate.latency_s;
  const double parallel_one = testing::AnalyzeSteps(spec, kScalarTileSteps, one, options).estimate.latency_s;
  const double serial_one = testing::AnalyzeSteps(spec, serial, one, options).estimate.latency_s;
  EXPECT_NEAR(serial_all / parallel_all, 8, 1e-9);  // 16 parallel tasks on 8 cores
  EXPECT_NEAR(serial_one / parallel_one, 1, 1e-9);
  EXPECT_NEAR(serial_one, serial_all, 1e-12);  // one core was all a serial nest used anyway
}

// The same tile with i.3 innermost: it strides C by a row, so nothing is
// packed, and 64 scalar accumulators outnumber the 16 registers: the 48
// that do not fit are stored by every statement.
TEST(IssueSymbols, UnrolledStridedTileStaysScalar) {
  const Analyzed a = Analyze(
      "matmul:M=64,K=64,N=64",
      "SP 2 0 64 [1,1,4]; SP 2 4 64 [1,1,16]; SP 2 8 64 [8]; RE 2 [0,4,1,5,8,2,6,9,7,3]; "
      "AN 2 0 parallel; PR 2 0 auto_unroll_max_step$64");
  SCOPED_TRACE(a.program.ToString() + a.estimate.ToString(a.program));
  ASSERT_EQ(a.estimate.symbols.rows.size(), 1u);
  ExpectIssueCounts(a.estimate.symbols.rows[0], {.lanes = 1,
                                                 .statements = 4096.0 * 64,
                                                 .loop_iterations = 4096,
                                                 .loads = 4096.0 * 4 + 4096.0 * 16,
                                                 .stores = 4096.0 * 64 * 48 / 64});
}

// A vector loop that strides a read gathers it: depthwise 3 x 3 with stride
// 2 (C 8, 16 x 16 -> 7 x 7), xx innermost and vectorized. out[ff, yy, xx]
// is contiguous in xx, weight[ff, ry, rx] invariant, in[ff, yy*2+ry,
// xx*2+rx] strided by 2: every load of it is a 7-lane gather. ry x rx
// (9 steps) is unrolled, so M = yy: outer = 8 x 7 = 56 iterations of 9
// statements; the input moves with yy: 9 gathers per iteration (504, of 7
// lanes each); the weight does not: 9 loads per run of yy (72); the output
// moves with yy: one store per iteration.
TEST(IssueSymbols, StridedVectorReadIsAGather) {
  const Analyzed a = Analyze("depthwise_conv2d:C=8,H=16,W=16,R=3,S=3,stride=2",
                             "RE 2 [0,1,2,4,5,3]; AN 2 5 vectorize");
  SCOPED_TRACE(a.program.ToString() + a.estimate.ToString(a.program));
  ASSERT_EQ(a.estimate.symbols.rows.size(), 1u);
  const BufferSymbols& c = a.estimate.symbols.rows[0];
  ExpectIssueCounts(c, {.lanes = 7,
                        .statements = 504,
                        .loop_iterations = 56,
                        .loads = 504.0 * 7 + 72,
                        .stores = 56});
  EXPECT_DOUBLE_EQ(c.issue_gathered_lanes, 504.0 * 7);

  // With stride 1 the same schedule reads contiguously: no gather.
  const Analyzed unit = Analyze("depthwise_conv2d:C=8,H=16,W=16,R=3,S=3",
                                "RE 2 [0,1,2,4,5,3]; AN 2 5 vectorize");
  ASSERT_EQ(unit.estimate.symbols.rows.size(), 1u);
  EXPECT_DOUBLE_EQ(unit.estimate.symbols.rows[0].issue_gathered_lanes, 0);
  EXPECT_GT(unit.estimate.symbols.rows[0].issue_loads, 0);
}

// CSE keeps one load per distinct address, and a read stays in registers
// across M only while it fits. Depthwise 3 x 3, stride 1 (C 8, 16 x 16 ->
// 14 x 14), yy split by 2 with yy.1, ry, rx unrolled (18 steps) around the
// 14-lane vector loop xx: M = yy.0, outer = 8 x 7 = 56. On 8-lane
// registers a 14-lane value is two vectors (8 + 6 lanes), so each of the
// 18 statements issues twice. The input row yy.1 + ry takes 4 values (a
// sliding window), not 2 x 3: 4 x 3 (rx) values, 24 vectors, per
// iteration. The weight's 9 values do not move with yy.0 and, as
// broadcast scalars, fit the 12 registers the 2 accumulators (yy.1, 4
// vectors) leave: 9 per run of yy.0. With a 5 x 5 window (12 x 12 out,
// 12 lanes = 8 + 4, yy.0 6, outer 48) the input takes (2 + 4) x 5 = 30
// values, 60 vectors, and the weight's 25 values no longer fit, so they
// are loaded every iteration.
TEST(IssueSymbols, LoadsCountDistinctAddressesAndHoistOnlyWhatFits) {
  // Depthwise R x R, stride 1, on 16 x 16; yy (16 - R + 1 rows) split by 2.
  auto expect_window = [](int r, const IssueCounts& want) {
    const int rows = 16 - r + 1;
    const std::string steps = "SP 2 2 " + std::to_string(rows) +
                              " [2]; RE 2 [0,1,2,3,5,6,4]; AN 2 6 vectorize; "
                              "PR 2 0 auto_unroll_max_step$64";
    const std::string spec = "depthwise_conv2d:C=8,H=16,W=16,R=" + std::to_string(r) +
                             ",S=" + std::to_string(r);
    const Analyzed a = Analyze(spec, steps);
    SCOPED_TRACE(a.program.ToString() + a.estimate.ToString(a.program));
    ASSERT_EQ(a.estimate.symbols.rows.size(), 1u);
    ExpectIssueCounts(a.estimate.symbols.rows[0], want);
  };
  expect_window(3, {.lanes = 14,
                    .statements = 56.0 * 18 * 2,
                    .loop_iterations = 56,
                    .loads = 56.0 * 24 + 8.0 * 9,
                    .stores = 56.0 * 4});
  expect_window(5, {.lanes = 12,
                    .statements = 48.0 * 50 * 2,
                    .loop_iterations = 48,
                    .loads = 48.0 * 60 + 48.0 * 25,
                    .stores = 48.0 * 4});
}

// A vector loop wider than the registers, or of lanes that are not a power
// of two, is split into pieces (vector_pieces.h), each a register and an
// instruction. Matmul 48 x 64 x 48 with a 12-row tile (i.3, unrolled) of
// L-lane vectors (j.3) under the reduction loop k.1 (8 x 12 steps exceed
// the budget of 64: M = k.1, outer = 4 (i.0) x 48 / L (j.0) x 8 x 8):
//   L = 8: 12 accumulators of one register fit the 16; A moves with k.1
//     (12 broadcasts per iteration), B one vector; C is stored once per
//     run of k.1 (outer / 8 runs).
//   L = 12 (8 + 4 lanes): every statement issues twice, B is two vectors,
//     and the 24 accumulator registers outnumber the 16: the 8 that do not
//     fit are stored by every statement, 24,576 x 8 / 24.
TEST(IssueSymbols, SplitVectorsTakeARegisterAndAnInstructionPerPiece) {
  auto counts = [](int lanes, const IssueCounts& want) {
    const std::string steps = "SP 2 0 48 [1,1,12]; SP 2 4 48 [1,1," + std::to_string(lanes) +
                              "]; SP 2 8 64 [8]; RE 2 [0,4,1,5,8,2,6,9,3,7]; AN 2 0 parallel; "
                              "AN 2 9 vectorize; PR 2 0 auto_unroll_max_step$64";
    const Analyzed a = Analyze("matmul:M=48,K=64,N=48", steps);
    SCOPED_TRACE(a.program.ToString() + a.estimate.ToString(a.program));
    ASSERT_EQ(a.estimate.symbols.rows.size(), 1u);
    ExpectIssueCounts(a.estimate.symbols.rows[0], want);
    // Chains count statements as written: the pieces are chains of their own.
    EXPECT_DOUBLE_EQ(a.estimate.symbols.rows[0].issue_chain_steps,
                     a.estimate.symbols.rows[0].issue_statements /
                         (want.lanes == 8 ? 1 : 2) / 12);
  };
  counts(8, {.lanes = 8,
             .statements = 1536.0 * 12,
             .loop_iterations = 1536,
             .loads = 1536.0 * (12 + 1),
             .stores = 1536.0 / 8 * 12});
  counts(12, {.lanes = 12,
              .statements = 1024.0 * 12 * 2,
              .loop_iterations = 1024,
              .loads = 1024.0 * (12 + 2),
              .stores = 1024.0 * 12 * 2 * 8 / 24});
}

// The SLP vectorizer splits a row as the backend splits a vector loop: 12
// statements along j.3 become an 8- and a 4-lane vector, 2 per row, not
// 12 / 8. The scalar tile above with 12 columns (matmul 64 x 64 x 48):
// outer = 16 x 4 x 8 x 8 = 4096 iterations of k.1, each 4 rows x 2
// vectors; A 4 broadcasts and B 2 vectors per iteration; 8 accumulators,
// stored once per run of k.1.
TEST(IssueSymbols, SlpRowsSplitAsTheBackendSplitsVectors) {
  const Analyzed a = Analyze("matmul:M=64,K=64,N=48",
                             "SP 2 0 64 [1,1,4]; SP 2 4 48 [1,1,12]; SP 2 8 64 [8]; "
                             "RE 2 [0,4,1,5,8,2,6,9,3,7]; AN 2 0 parallel; "
                             "PR 2 0 auto_unroll_max_step$64");
  SCOPED_TRACE(a.program.ToString() + a.estimate.ToString(a.program));
  ASSERT_EQ(a.estimate.symbols.rows.size(), 1u);
  ExpectIssueCounts(a.estimate.symbols.rows[0], {.lanes = 8,
                                                 .statements = 4096.0 * 4 * 2,
                                                 .loop_iterations = 4096,
                                                 .loads = 4096.0 * (4 + 2),
                                                 .stores = 4096.0 / 8 * 8});
}

// A padding copy reads its input in a select's arm; scalar code branches
// around that read (it may be out of bounds), and LLVM's SLP vectorizer
// does not pack across branches. Depthwise 3 x 3 with pad 1 on 14 x 14,
// unscheduled: the pad stage's 16-step w loop is always unrolled and M =
// h, so its 8 x 16 x 16 statements stay scalar. A ReLU of the same
// 16-column rows, whose read is unguarded, is packed: 16 / 8 lanes.
TEST(IssueSymbols, ReadsUnderASelectAreNotSlpPacked) {
  const Analyzed padded = Analyze("depthwise_conv2d:C=8,H=14,W=14,R=3,S=3,pad=1", "");
  SCOPED_TRACE(padded.program.ToString() + padded.estimate.ToString(padded.program));
  const BufferSymbols pad = RowOf(padded.program, padded.estimate.symbols, "pad");
  EXPECT_DOUBLE_EQ(pad.issue_lanes, 1);
  EXPECT_DOUBLE_EQ(pad.issue_statements, 8.0 * 16 * 16);
  EXPECT_DOUBLE_EQ(pad.issue_loop_iterations, 8.0 * 16);

  const Analyzed relu = Analyze("relu:shape=128x16", "");
  ASSERT_EQ(relu.estimate.symbols.rows.size(), 1u);
  EXPECT_DOUBLE_EQ(relu.estimate.symbols.rows[0].issue_lanes, 8);
  EXPECT_DOUBLE_EQ(relu.estimate.symbols.rows[0].issue_statements, 128.0 * 2);
}

// g++ if-converts the same select into a load and a blend (cpu_codegen.h),
// so for its code the pad rows pack like the ReLU's: 16 columns, 2 vectors
// of 8 lanes a row.
TEST(IssueSymbols, GuardedReadsPackInGccCode) {
  const AnalyzerOptions gcc = GccCode();
  const Analyzed padded = testing::AnalyzeSteps("depthwise_conv2d:C=8,H=14,W=14,R=3,S=3,pad=1",
                                                "", testing::HandCpu(), gcc);
  SCOPED_TRACE(padded.program.ToString() + padded.estimate.ToString(padded.program));
  const BufferSymbols pad = RowOf(padded.program, padded.estimate.symbols, "pad");
  EXPECT_DOUBLE_EQ(pad.issue_lanes, 8);
  EXPECT_DOUBLE_EQ(pad.issue_statements, 8.0 * 16 * 2);
  EXPECT_DOUBLE_EQ(pad.issue_loop_iterations, 8.0 * 16);
}

// g++ splits lanes that do not fill a register into halving vectors down
// to a scalar (its epilogue vectorization; 7 lanes are a 4-, a 2-lane
// vector and a scalar, read off g++ 12's assembly), where LLVM emits one
// vector. The split test's 12-row tile with 7-lane vectors (matmul 48 x 64
// x 56): M = k.1, outer = 4 x 8 x 8 x 8 = 2048 iterations of 12 statements.
TEST(IssueSymbols, GccSplitsAPartialVectorIntoHalvingVectors) {
  const std::string spec = "matmul:M=48,K=64,N=56";
  const std::string steps =
      "SP 2 0 48 [1,1,12]; SP 2 4 56 [1,1,7]; SP 2 8 64 [8]; RE 2 [0,4,1,5,8,2,6,9,3,7]; "
      "AN 2 0 parallel; AN 2 9 vectorize; PR 2 0 auto_unroll_max_step$64";
  const Analyzed llvm = Analyze(spec, steps);
  const Analyzed gcc = testing::AnalyzeSteps(spec, steps, testing::HandCpu(), GccCode());
  SCOPED_TRACE(gcc.program.ToString() + gcc.estimate.ToString(gcc.program));
  ASSERT_EQ(llvm.estimate.symbols.rows.size(), 1u);
  ASSERT_EQ(gcc.estimate.symbols.rows.size(), 1u);
  EXPECT_DOUBLE_EQ(llvm.estimate.symbols.rows[0].issue_statements, 2048.0 * 12);
  EXPECT_DOUBLE_EQ(gcc.estimate.symbols.rows[0].issue_statements, 2048.0 * 12 * 3);
  EXPECT_DOUBLE_EQ(gcc.estimate.symbols.rows[0].issue_lanes, 7);
}

// g++ keeps a vector loop's accumulators in registers across a reduction
// loop M only when the unrolled body addresses them at constant offsets
// (read off g++ 12's assembly of the Xeon's records). The split test's
// 8-lane tile accumulates straight into C, whose address the loops outside
// k.1 move: LLVM stores the 12 accumulators once per run of k.1 (1536 / 8
// runs), g++ at every iteration. With a cache-write tile of exactly the
// body (matmul 64^3: 4 rows x 8 lanes under k.0, k.1 and i.3 unrolled,
// 4 x 4 = 16 steps within the budget; outer = 32 x 2 x 2 x 16 = 2048) the
// tile sits at constant offsets, whatever place in C the loops outside its
// allocation give it, and g++ keeps it as LLVM does: stored once per run
// of k.0 (128 runs, 4 vectors each). A scalar tile that the SLP vectorizer
// packs is promoted before it is vectorized, wherever it lives: the SLP
// test's 4 x 12 tile of C is stored once per run of k.1 in both codes.
TEST(IssueSymbols, GccKeepsOnlyAccumulatorsAtConstantAddresses) {
  const std::string direct =
      "SP 2 0 48 [1,1,12]; SP 2 4 48 [1,1,8]; SP 2 8 64 [8]; RE 2 [0,4,1,5,8,2,6,9,3,7]; "
      "AN 2 0 parallel; AN 2 9 vectorize; PR 2 0 auto_unroll_max_step$64";
  const Analyzed llvm = Analyze("matmul:M=48,K=64,N=48", direct);
  const Analyzed gcc =
      testing::AnalyzeSteps("matmul:M=48,K=64,N=48", direct, testing::HandCpu(), GccCode());
  ASSERT_EQ(gcc.estimate.symbols.rows.size(), 1u);
  EXPECT_DOUBLE_EQ(llvm.estimate.symbols.rows[0].issue_stores, 1536.0 / 8 * 12);
  EXPECT_DOUBLE_EQ(gcc.estimate.symbols.rows[0].issue_stores, 1536.0 * 12);

  const std::string tile =
      "CHW 2 local; SP 2 0 64 [2,1,4]; SP 2 4 64 [2,1,8]; SP 2 8 64 [4]; "
      "RE 2 [0,4,1,5,8,2,6,9,3,7]; FSP 3 0 1 2; FSP 3 3 2 2; RE 3 [0,3,1,4,2,5]; "
      "CA 2 3 3; FU 3 [0,1]; AN 3 0 parallel; AN 2 9 vectorize; PR 2 0 auto_unroll_max_step$16";
  const Analyzed tiled =
      testing::AnalyzeSteps("matmul:M=64,K=64,N=64", tile, testing::HandCpu(), GccCode());
  SCOPED_TRACE(tiled.program.ToString() + tiled.estimate.ToString(tiled.program));
  const BufferSymbols c = RowOf(tiled.program, tiled.estimate.symbols, "matmul.local");
  EXPECT_DOUBLE_EQ(c.issue_loop_iterations, 2048);
  EXPECT_DOUBLE_EQ(c.issue_stores, 128.0 * 4);

  const Analyzed slp = testing::AnalyzeSteps("matmul:M=64,K=64,N=48",
                                             "SP 2 0 64 [1,1,4]; SP 2 4 48 [1,1,12]; SP 2 8 64 [8]; "
                                             "RE 2 [0,4,1,5,8,2,6,9,3,7]; AN 2 0 parallel; "
                                             "PR 2 0 auto_unroll_max_step$64",
                                             testing::HandCpu(), GccCode());
  ASSERT_EQ(slp.estimate.symbols.rows.size(), 1u);
  EXPECT_DOUBLE_EQ(slp.estimate.symbols.rows[0].issue_stores, 4096.0 / 8 * 8);
}

// g++ tunes Intel's AVX-512 cores for 256-bit vectors: its code for the
// Xeon counts 8 lanes (16 for LLVM's); for the EPYC g++ uses zmm too.
TEST(IssueSymbols, GccUses256BitVectorsOnIntelAvx512) {
  auto lanes = [](const DeviceProfile& cpu, const AnalyzerOptions& options) {
    absl::StatusOr<MachineParams> m = ResolveMachineParams(cpu, options);
    EXPECT_TRUE(m.ok()) << m.status();
    return m.ok() ? m->l1_width : 0;
  };
  EXPECT_EQ(lanes(testing::PinnedXeonCpu(), GccCode()), 8);
  EXPECT_EQ(lanes(testing::PinnedXeonCpu(), AnalyzerOptions::Calibrated()), 16);
  EXPECT_EQ(lanes(testing::PinnedEpycCpu(), GccCode()), 16);
}

// Cache lines into L1 (32 KiB) for M = N = 64, K = 4096. The naive nest
// (i, j, k) walks B[k, j] down a 4,096-long column; one run of k (a row of
// A, a column of B, one C: 32 KiB + 4 B) does not fit, so each of the 4,096
// (i, j) fetches them again: A's 16 KiB row in 256 lines, B's column a line
// per element (4,096), C one. With j innermost (i, k, j) a run of k, j
// (a row of A, all of B, a row of C) is fetched once per i: 256 + 16,384 + 4
// lines, 16.7x fewer.
TEST(IssueSymbols, ColumnWalkPaysALinePerElement) {
  Analyzed a;
  const BufferSymbols column = NaiveMatmulRow("matmul:M=64,K=4096,N=64", &a);
  EXPECT_DOUBLE_EQ(column.issue_l1_lines, 4096.0 * (256 + 4096 + 1));
  const Analyzed rows = Analyze("matmul:M=64,K=4096,N=64", "RE 2 [0,2,1]");
  SCOPED_TRACE(rows.program.ToString());
  ASSERT_EQ(rows.estimate.symbols.rows.size(), 1u);
  EXPECT_DOUBLE_EQ(rows.estimate.symbols.rows[0].issue_l1_lines, 64.0 * (256 + 16384 + 4));
}

// The L1's sets (set_conflicts.h): 32 KiB of 8 ways over 64 sets, indexed
// within a 4 KiB page. The naive nest (i, j, k) of M = 4, K = 64 walks a
// column of B; with N = 1,008 its 64 elements are 4,032 bytes apart, one
// line in each set, so one run of k fits and the next j finds the lines
// again: a run of j, k (B's 64 x 1,008 box does not fit) is fetched once
// per i: A's row in 4 lines, B in 64 rows of 63 lines, C's row in 63. With
// N = 1,024 the column's lines are 4 KiB apart, all 64 in one 8-way set:
// they do not stay for the next j, and each (i, j) fetches its run of k
// again: 4 + 64 + 1 lines.
TEST(IssueSymbols, RowsAPageApartCrowdOneL1Set) {
  Analyzed spread;
  const BufferSymbols fits = NaiveMatmulRow("matmul:M=4,K=64,N=1008", &spread);
  EXPECT_DOUBLE_EQ(fits.issue_l1_lines, 4.0 * (4 + 64 * 63 + 63));
  Analyzed crowded;
  const BufferSymbols conflicts = NaiveMatmulRow("matmul:M=4,K=64,N=1024", &crowded);
  EXPECT_DOUBLE_EQ(conflicts.issue_l1_lines, 4.0 * 1024 * (4 + 64 + 1));
  // The L2 has no sets in the model (it is indexed by physical addresses,
  // and pages land anywhere): both keep all of A, B and C, fetched once.
  EXPECT_DOUBLE_EQ(fits.issue_l2_lines, 16 + 64 * 63 + 4 * 63);
  EXPECT_DOUBLE_EQ(conflicts.issue_l2_lines, 16 + 64 * 64 + 4 * 64);
}

TEST(IssueSymbols, L1SetsComeFromThePage) {
  const CacheSets epyc = PageIndexedSets(32 * 1024, 64);
  EXPECT_EQ(epyc.sets, 64);
  EXPECT_EQ(epyc.ways, 8);
  const CacheSets xeon = PageIndexedSets(48 * 1024, 64);
  EXPECT_EQ(xeon.sets, 64);
  EXPECT_EQ(xeon.ways, 12);
}

}  // namespace
}  // namespace pruner
