// Symbols of hand-written schedules, worked out by hand from the rules in
// gpu_symbols.cc and cpu_symbols.cc, and the public code's formula on the
// worked example of ../shared/specs/pruner.md §2.8.
#include <string>

#include "common/analysis/symbol_analyzer.h"
#include "common/analysis/symbols.h"
#include "gtest/gtest.h"
#include "tests/analysis/analysis_test_util.h"
#include "tests/lower/lower_test_util.h"

namespace pruner {
namespace {

using testing::RowOf;

using testing::Analyzed;

Analyzed Analyze(const std::string& spec, const std::string& steps, const DeviceProfile& device,
                 const AnalyzerOptions& options = {}) {
  return testing::AnalyzeSteps(spec, steps, device, options);
}

// Ansor's GPU sketch on matmul 64x64x64 (tests/lower/lower_test_util.h),
// i = [2,4,2,1], j = [1,8,1,2], k = [4,2], 2-wide fetches:
//   blockIdx 16 (4 x 4 tiles of 16x16) / vthread 2 (i.1) / threadIdx 32
//   (i.2 4 x j.2 8); C.local[2, 2] under k.0 8 / k.1 4 / i.3 2 / k.2 2 /
//   j.4 2; A.shared[16, 8] and B.shared[8, 16] fetched at k.0 by 32
//   threads x 2 iterations x 2 lanes.
TEST(GpuSymbols, MatmulMatchesHandComputedValues) {
  const Analyzed a =
      Analyze("matmul:M=64,K=64,N=64",
              testing::GpuMatmulSteps(64, 64, 64, "[2,4,2,1]", "[1,8,1,2]", "[4,2]", 2),
              testing::TestGpu());
  const Program& p = a.program;
  const ProgramSymbols& s = a.estimate.symbols;
  SCOPED_TRACE(p.ToString() + a.estimate.ToString(p));
  ASSERT_EQ(s.rows.size(), 4u);  // C.local (init + update), A.shared, B.shared, C
  ASSERT_EQ(s.kernels.size(), 1u);
  EXPECT_EQ(s.kernels[0].shared_bytes, (16 * 8 + 8 * 16) * 4);

  const BufferSymbols c = RowOf(p, s, "matmul.local");
  EXPECT_EQ(c.kind, RowKind::kCompute);
  // Per thread: vthread 2 x k.0 8 x k.1 4 x i.3 2 x k.2 2 x j.4 2 = 512
  // updates of one add and one mul.
  EXPECT_DOUBLE_EQ(c.s2_thread_flops, 2.0 * 512);
  EXPECT_DOUBLE_EQ(c.s8_total_flops, 2.0 * 64 * 64 * 64);
  EXPECT_DOUBLE_EQ(c.s4_l1_parallel, 32);
  EXPECT_DOUBLE_EQ(c.s6_l2_parallel, 16);
  EXPECT_DOUBLE_EQ(c.vthreads, 2);
  // SAxis = {vthread, i.3, j.4}. C.local moves with all three (2x2x2 = 8),
  // A.shared[i, k] with vthread and i.3 (4), B.shared[k, j] with j.4 only
  // (the vthread splits i): S1 = 14.
  EXPECT_DOUBLE_EQ(c.s1_registers, 8 + 4 + 2);
  // MemWorkload over every per-thread loop: C 8, A vthread x k 64 x i.3 =
  // 256, B k 64 x j.4 = 128.
  EXPECT_DOUBLE_EQ(c.reuse_flops, c.s2_thread_flops);
  EXPECT_DOUBLE_EQ(c.reuse_elements, 8 + 256 + 128);
  EXPECT_DOUBLE_EQ(c.s5_global_elements, 0);  // reads shared, writes local
  EXPECT_DOUBLE_EQ(c.s3_l1_bytes, 1024);

  // Each block fetches its 16 rows of A over all 64 k (k.0 8 x 2 x 2 lanes
  // x 32 threads = 1024 elements); 16 blocks fetch 16384 (A read 4 times).
  const BufferSymbols fa = RowOf(p, s, "A.shared");
  EXPECT_EQ(fa.kind, RowKind::kSharedLoad);
  EXPECT_DOUBLE_EQ(fa.shared_fetch_elements, 1024);
  EXPECT_DOUBLE_EQ(fa.s5_global_elements, 1024.0 * 16);
  // The first warp's 64 elements cover 8 rows x 8 k: 8 floats = 32 bytes
  // of A's innermost dimension. B's tile rows are 16 floats wide.
  EXPECT_DOUBLE_EQ(fa.s7_transfer_bytes, 8 * 4);
  const BufferSymbols fb = RowOf(p, s, "B.shared");
  EXPECT_DOUBLE_EQ(fb.s5_global_elements, 1024.0 * 16);
  EXPECT_DOUBLE_EQ(fb.s7_transfer_bytes, 16 * 4);

  // The write-back: every thread writes its 2 x (2 x 2) elements once.
  const BufferSymbols out = RowOf(p, s, "matmul");
  EXPECT_EQ(out.kind, RowKind::kMemory);
  EXPECT_DOUBLE_EQ(out.s5_global_elements, 64.0 * 64);
  // The warp's threads sit 2 columns apart (floormod(t, 8) * 2): the span
  // 0..14 of the innermost index, 15 floats. S7 is the interval's length,
  // not the count of distinct elements.
  EXPECT_DOUBLE_EQ(out.s7_transfer_bytes, 15 * 4);

  // Penalties: 1 warp of 4 schedulers, 16 blocks on 108 SMs, reuse
  // 1 + 1024/392; every memory term is whole except the write-back's S7.
  const int ci = testing::RowIndexOf(p, s, "matmul.local");
  const RowPenalties& pc = a.estimate.rows[ci].penalties;
  EXPECT_DOUBLE_EQ(pc.l1_compute, 0.25);
  EXPECT_DOUBLE_EQ(pc.l1_waste, 1);
  EXPECT_DOUBLE_EQ(pc.l2_compute, 16.0 / 108);
  EXPECT_DOUBLE_EQ(pc.l0_compute, 1 / (1 + 1 / (1 + 1024.0 / 392)));
  EXPECT_DOUBLE_EQ(pc.l0_memory, 1);
  const RowPenalties& po = a.estimate.rows[testing::RowIndexOf(p, s, "matmul")].penalties;
  EXPECT_DOUBLE_EQ(po.l2_memory, 60.0 / 64);
  // Eq. 1: L_c = S8 / (T_p x P), L_m = S5 bytes / (T_m x P).
  EXPECT_DOUBLE_EQ(a.estimate.rows[ci].compute_s,
                   2.0 * 64 * 64 * 64 / (19490e9 * pc.compute_utilization()));
  EXPECT_DOUBLE_EQ(a.estimate.rows[testing::RowIndexOf(p, s, "A.shared")].memory_s,
                   16384.0 * 4 / 1555e9);
}

// Ansor's CPU sketch on matmul 64x64x64 (lower_test_util.h CpuMatmulSteps):
//   parallel i.0@j.0@ 16 / i.1 2 / j.1 2 / C.local[8, 8] allocated there /
//   k.0 8 / i.2 4 / j.2 2 / k.1 8 / i.3 2 / vectorized j.3 4,
// then the write-back i.2 8 / vectorized j.2 8, on the hand CPU (8 cores,
// 8 lanes, 16 vector registers, 2 FMA pipes, 32 KiB L1, 1 MiB L2).
TEST(CpuSymbols, MatmulMatchesHandComputedValues) {
  const Analyzed a =
      Analyze("matmul:M=64,K=64,N=64", testing::CpuMatmulSteps(64, 64, 64), testing::HandCpu());
  const Program& p = a.program;
  const ProgramSymbols& s = a.estimate.symbols;
  SCOPED_TRACE(p.ToString() + a.estimate.ToString(p));
  ASSERT_EQ(s.rows.size(), 2u);

  const BufferSymbols c = RowOf(p, s, "matmul.local");
  EXPECT_EQ(c.kind, RowKind::kCompute);
  EXPECT_DOUBLE_EQ(c.s8_total_flops, 2.0 * 64 * 64 * 64);
  EXPECT_DOUBLE_EQ(c.s6_l2_parallel, 16);
  EXPECT_DOUBLE_EQ(c.s2_thread_flops, 2.0 * 64 * 64 * 64 / 16);
  EXPECT_DOUBLE_EQ(c.s4_l1_parallel, 4);
  // Register tile: the loops inside k.1, {i.3 2, j.3 4}: C 8 + A 2 + B 4.
  EXPECT_DOUBLE_EQ(c.s1_registers, 8 + 2 + 4);
  EXPECT_DOUBLE_EQ(c.register_tile_outputs, 8);
  // Reuse window {k.1 8, i.3, j.3}: 2 x 64 flops over C 8 + A 16 + B 32.
  EXPECT_DOUBLE_EQ(c.reuse_flops, 2.0 * 64);
  EXPECT_DOUBLE_EQ(c.reuse_elements, 8 + 16 + 32);
  // One k.0 iteration: C 8x8, A 8 rows x 8 k, B 8 k x 8 columns.
  EXPECT_DOUBLE_EQ(c.s3_l1_bytes, (64 + 64 + 64) * 4.0);
  // Everything fits in L2: A and B are fetched once; C.local is a 256-byte
  // tile the nest allocates, never fetched.
  EXPECT_DOUBLE_EQ(c.s5_global_elements, 64.0 * 64 * 2);
  // Whole matrices: their rows run into each other.
  EXPECT_DOUBLE_EQ(c.s7_transfer_bytes, 64.0 * 64 * 4);

  const BufferSymbols out = RowOf(p, s, "matmul");
  EXPECT_EQ(out.kind, RowKind::kMemory);
  EXPECT_DOUBLE_EQ(out.s5_global_elements, 64.0 * 64);
  EXPECT_DOUBLE_EQ(out.s1_registers, 8 + 8);  // the vectorized loop's C and C.local
  EXPECT_DOUBLE_EQ(out.register_tile_outputs, 0);

  // 16 tasks on 8 cores; 4 of 8 lanes; 8 accumulators / 4 lanes = 2 chains
  // of the 2 pipes x 4 cycles needed.
  const int ci = testing::RowIndexOf(p, s, "matmul.local");
  const RowPenalties& pc = a.estimate.rows[ci].penalties;
  EXPECT_DOUBLE_EQ(pc.l2_compute, 1);
  EXPECT_DOUBLE_EQ(pc.l1_waste, 0.5);
  EXPECT_DOUBLE_EQ(pc.l1_compute, 2.0 / 8);
  EXPECT_DOUBLE_EQ(pc.l0_compute, 1 / (1 + 1 / (1 + 128.0 / 56)));
  EXPECT_DOUBLE_EQ(pc.memory_utilization(), 1);
  EXPECT_DOUBLE_EQ(a.estimate.rows[ci].compute_s,
                   2.0 * 64 * 64 * 64 / (768e9 * pc.compute_utilization()));
  EXPECT_DOUBLE_EQ(a.estimate.rows[ci].memory_s, 8192.0 * 4 / 50e9);
}

// A reduction's init and update share one row, and the update wins: the
// naive matmul has one row for C.
TEST(CpuSymbols, InitAndUpdateShareTheirBuffersRow) {
  const Analyzed a = Analyze("matmul:M=16,K=8,N=4", "", testing::HandCpu());
  ASSERT_EQ(a.estimate.symbols.rows.size(), 1u);
  EXPECT_DOUBLE_EQ(a.estimate.symbols.rows[0].s8_total_flops, 2.0 * 16 * 8 * 4);
}

// The naive loop order (i, j, k) walks B down its columns: C[i, j] is the
// only accumulator (one chain), no loop is vectorized or parallel, and
// when B does not fit the cache every row of C fetches all of it again.
TEST(CpuSymbols, NaiveMatmulRefetchesTheMatrixThatDoesNotFit) {
  DeviceProfile cpu = testing::HandCpu();
  cpu.l2_cache_bytes = 64 * 1024;  // B (256 KiB) does not fit, a row of A does
  const Analyzed a = Analyze("matmul:M=256,K=256,N=256", "", cpu);
  const Program& p = a.program;
  const BufferSymbols c = RowOf(p, a.estimate.symbols, "matmul");
  SCOPED_TRACE(a.estimate.ToString(p));
  EXPECT_DOUBLE_EQ(c.register_tile_outputs, 1);
  EXPECT_DOUBLE_EQ(c.s6_l2_parallel, 1);
  EXPECT_DOUBLE_EQ(c.s4_l1_parallel, 1);
  // One j iteration (a row of A, a column of B) fits, one i iteration
  // (all of B) does not: per i, B whole, one row of A and of C.
  EXPECT_DOUBLE_EQ(c.s5_global_elements, 256.0 * (256 * 256 + 256 + 256));
  const RowPenalties& pc = a.estimate.rows[0].penalties;
  EXPECT_DOUBLE_EQ(pc.l2_compute, 1.0 / 8);
  EXPECT_DOUBLE_EQ(pc.l1_waste, 1.0 / 8);
  EXPECT_DOUBLE_EQ(pc.l1_compute, 1.0 / 8);
}

// The same nest with a shared L3 behind the L2: what one L3 holds is
// fetched from DRAM once, the rest of S5 is served by the L3; a B that does
// not fit the L3 either comes from DRAM for every row of C.
TEST(CpuSymbols, TrafficPastL2ThatFitsTheL3IsNotFromDram) {
  DeviceProfile cpu = testing::HandCpu();
  cpu.l2_cache_bytes = 64 * 1024;
  const double s5 = 256.0 * (256 * 256 + 256 + 256);
  struct Case {
    int64_t l3_bytes;
    double dram_elements;
  };
  // 1 MiB holds A, B and C (768 KiB): each once. 128 KiB holds a column
  // of B, a row of A and C's row, as the L2 does. No L3: all of S5.
  for (const Case& k : {Case{1024 * 1024, 3.0 * 256 * 256}, Case{128 * 1024, s5}, Case{0, s5}}) {
    cpu.l3_cache_bytes = k.l3_bytes;
    const Analyzed a = Analyze("matmul:M=256,K=256,N=256", "", cpu);
    const BufferSymbols c = RowOf(a.program, a.estimate.symbols, "matmul");
    SCOPED_TRACE(k.l3_bytes);
    EXPECT_DOUBLE_EQ(c.s5_global_elements, s5);
    EXPECT_DOUBLE_EQ(c.issue_dram_elements, k.dram_elements);
  }
}

// Element-wise programs: one compute row whose memory term is its global
// traffic (two reads and a write per element) on both targets.
TEST(Symbols, ElementWiseProgramsPayForTheirTraffic) {
  const Analyzed gpu = Analyze("add:shape=64x256",
                               "FU 2 [0,1]; SP 2 0 16384 [32]; AN 2 0 blockIdx.x; "
                               "AN 2 1 threadIdx.x",
                               testing::TestGpu());
  ASSERT_EQ(gpu.estimate.symbols.rows.size(), 1u);
  const BufferSymbols& g = gpu.estimate.symbols.rows[0];
  EXPECT_EQ(g.kind, RowKind::kCompute);
  EXPECT_DOUBLE_EQ(g.s8_total_flops, 64 * 256);
  EXPECT_DOUBLE_EQ(g.s5_global_elements, 3.0 * 64 * 256);
  EXPECT_DOUBLE_EQ(g.s7_transfer_bytes, 32 * 4);  // a warp reads 32 consecutive floats
  EXPECT_GT(gpu.estimate.rows[0].memory_s, gpu.estimate.rows[0].compute_s);

  const Analyzed cpu = Analyze("add:shape=64x256", "AN 2 0 parallel", testing::HandCpu());
  ASSERT_EQ(cpu.estimate.symbols.rows.size(), 1u);
  const BufferSymbols& c = cpu.estimate.symbols.rows[0];
  EXPECT_DOUBLE_EQ(c.s5_global_elements, 3.0 * 64 * 256);
  EXPECT_DOUBLE_EQ(c.s6_l2_parallel, 64);
  EXPECT_DOUBLE_EQ(c.register_tile_outputs, 0);  // nothing accumulates
  EXPECT_GT(cpu.estimate.latency_s, 0);

  // A max-only ReLU has no add/sub/mul/div: the code's count makes it a
  // memory row that writes every element; the paper's counts the max.
  const std::string relu_steps =
      "FU 1 [0,1]; SP 1 0 16384 [64]; AN 1 0 blockIdx.x; AN 1 1 threadIdx.x";
  const Analyzed paper = Analyze("relu:shape=64x256", relu_steps, testing::TestGpu());
  const Analyzed code = Analyze("relu:shape=64x256", relu_steps, testing::TestGpu(),
                                AnalyzerOptions::CodeBehaviour());
  ASSERT_EQ(paper.estimate.symbols.rows.size(), 1u);
  ASSERT_EQ(code.estimate.symbols.rows.size(), 1u);
  EXPECT_EQ(paper.estimate.symbols.rows[0].kind, RowKind::kCompute);
  EXPECT_DOUBLE_EQ(paper.estimate.symbols.rows[0].s5_global_elements, 2.0 * 64 * 256);
  EXPECT_EQ(code.estimate.symbols.rows[0].kind, RowKind::kMemory);
  EXPECT_DOUBLE_EQ(code.estimate.symbols.rows[0].s5_global_elements, 64.0 * 256);
}

// ../shared/specs/pruner.md §2.8: GEMM 1024^3 on a100_40 with a 64x64 block tile
// (256 blocks), 256 threads, a 4x4 tile per thread and k_outer 128. The
// public code's formula gives L_c ~0.167 ms, 0.010 ms per shared fetch and
// 0.0006 ms for the write-back: ~0.188 ms.
TEST(CodeBehaviour, ReproducesTheSpecsWorkedExample) {
  const Analyzed a = Analyze(
      "matmul:M=1024,K=1024,N=1024",
      testing::GpuMatmulSteps(1024, 1024, 1024, "[1,16,2,2]", "[1,16,2,2]", "[4,2]", 2),
      testing::TestGpu(), AnalyzerOptions::CodeBehaviour());
  const Program& p = a.program;
  const ProgramSymbols& s = a.estimate.symbols;
  SCOPED_TRACE(a.estimate.ToString(p));
  const BufferSymbols c = RowOf(p, s, "matmul.local");
  EXPECT_DOUBLE_EQ(c.s2_thread_flops, 32768);
  EXPECT_DOUBLE_EQ(c.s1_registers, 24);
  EXPECT_DOUBLE_EQ(c.reuse_elements, 8208);
  EXPECT_DOUBLE_EQ(RowOf(p, s, "A.shared").s5_global_elements, 64.0 * 1024 * 256);

  const int ci = testing::RowIndexOf(p, s, "matmul.local");
  EXPECT_NEAR(a.estimate.rows[ci].penalties.l2_compute, 256.0 / (3 * 108), 1e-12);
  EXPECT_NEAR(a.estimate.rows[ci].compute_s * 1e3, 0.167, 0.001);
  EXPECT_NEAR(a.estimate.rows[testing::RowIndexOf(p, s, "A.shared")].memory_s * 1e3, 0.010,
              0.0005);
  EXPECT_NEAR(a.estimate.rows[testing::RowIndexOf(p, s, "matmul")].memory_s * 1e3, 0.0006,
              0.0001);
  EXPECT_NEAR(a.estimate.latency_s * 1e3, 0.188, 0.002);
}

TEST(Analyzer, RejectsProgramsForTheOtherKindOfDevice) {
  absl::StatusOr<Program> program =
      testing::LowerSteps("add:shape=8x8", "AN 2 0 parallel", testing::HandCpu());
  ASSERT_TRUE(program.ok()) << program.status();
  absl::StatusOr<double> latency = EstimateLatency(*program, testing::TestGpu());
  EXPECT_TRUE(absl::IsInvalidArgument(latency.status())) << latency.status();
  EXPECT_TRUE(EstimateLatency(*program, testing::HandCpu()).ok());
}

TEST(Analyzer, NeedsThePeakThroughput) {
  DeviceProfile cpu = testing::HandCpu();
  cpu.peak_gflops = 0;
  EXPECT_TRUE(absl::IsFailedPrecondition(SymbolAnalyzer::Create(cpu).status()));
  DeviceProfile gpu = testing::TestGpu();
  gpu.mem_bandwidth_gbps = 0;
  EXPECT_TRUE(absl::IsFailedPrecondition(SymbolAnalyzer::Create(gpu).status()));
  // The detected CPU reports no bandwidth: the analyzer assumes one.
  DeviceProfile local = testing::HandCpu();
  local.mem_bandwidth_gbps = 0;
  absl::StatusOr<SymbolAnalyzer> analyzer = SymbolAnalyzer::Create(local);
  ASSERT_TRUE(analyzer.ok());
  EXPECT_DOUBLE_EQ(analyzer->machine().bandwidth_gbps,
                   AnalyzerOptions().cpu_fallback_gbps_per_core * 8);
  EXPECT_NE(analyzer->machine().notes.find("mem_bandwidth_gbps"), std::string::npos);
}

}  // namespace
}  // namespace pruner
