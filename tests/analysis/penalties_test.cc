// The penalties move the way the hardware does: each one, fed a row whose
// only change is the symbol it reads, gets worse as the symbol leaves the
// device's sweet spot, and the latency of Eq. 1 follows.
#include <vector>

#include "common/analysis/penalties.h"
#include "common/analysis/symbol_analyzer.h"
#include "gtest/gtest.h"
#include "tests/analysis/analysis_test_util.h"
#include "tests/lower/lower_test_util.h"

namespace pruner {
namespace {

MachineParams Machine(const DeviceProfile& device, const AnalyzerOptions& options = {}) {
  absl::StatusOr<MachineParams> m = ResolveMachineParams(device, options);
  EXPECT_TRUE(m.ok()) << m.status();
  return m.ok() ? *m : MachineParams{};
}

// A GPU compute row of a 256-thread block on a full wave of A100 SMs,
// and a shared-load row of the same kernel.
BufferSymbols GpuComputeRow() {
  BufferSymbols r;
  r.kind = RowKind::kCompute;
  r.s1_registers = 24;
  r.s2_thread_flops = 32768;
  r.reuse_flops = 32768;
  r.reuse_elements = 8208;
  r.s4_l1_parallel = 256;
  r.s6_l2_parallel = 108;
  r.s8_total_flops = 32768.0 * 256 * 108;
  return r;
}

KernelSymbols GpuKernel() {
  KernelSymbols k;
  k.threads_per_block = 256;
  k.blocks = 108;
  k.max_registers = 24;
  k.shared_bytes = 4096;
  return k;
}

RowPenalties Gpu(const BufferSymbols& row, const KernelSymbols& kernel,
                 const AnalyzerOptions& options = {}) {
  return ComputePenalties(row, kernel, Machine(testing::TestGpu(), options), options);
}

// Penalties of the well-shaped GPU row once `change` has edited the row
// and its kernel.
template <typename Change>
RowPenalties GpuAfter(Change change, const AnalyzerOptions& options = {}) {
  BufferSymbols row = GpuComputeRow();
  KernelSymbols kernel = GpuKernel();
  change(row, kernel);
  return Gpu(row, kernel, options);
}

// f(v) for every v, in order.
template <typename F>
std::vector<double> Sweep(std::initializer_list<double> values, F f) {
  std::vector<double> out;
  for (double v : values) out.push_back(f(v));
  return out;
}

// Checks that `values` never increases and decreases at least once.
void ExpectNonIncreasing(const std::vector<double>& values, const char* what) {
  bool dropped = false;
  for (size_t i = 1; i < values.size(); ++i) {
    EXPECT_LE(values[i], values[i - 1]) << what << " at step " << i;
    dropped = dropped || values[i] < values[i - 1];
  }
  EXPECT_TRUE(dropped) << what << " never changed";
}

TEST(GpuPenalties, TheWellShapedRowIsUnpenalizedExceptForReuse) {
  const RowPenalties p = Gpu(GpuComputeRow(), GpuKernel());
  EXPECT_DOUBLE_EQ(p.l1_compute, 1);
  EXPECT_DOUBLE_EQ(p.l1_waste, 1);
  EXPECT_DOUBLE_EQ(p.l2_compute, 1);
  EXPECT_DOUBLE_EQ(p.memory_utilization(), 1);
  EXPECT_DOUBLE_EQ(p.l0_compute, 1 / (1 + 1 / (1 + 32768.0 / 8208)));
}

TEST(GpuPenalties, MoreRegistersThanTheCapSlowMemory) {
  const std::vector<double> memory = Sweep({24, 128, 160, 256, 512}, [](double registers) {
    const RowPenalties p =
        GpuAfter([&](BufferSymbols&, KernelSymbols& k) { k.max_registers = registers; });
    EXPECT_DOUBLE_EQ(p.l0_memory, std::min(1.0, 128 / registers));
    return p.memory_utilization();
  });
  ExpectNonIncreasing(memory, "memory utilization as registers grow");
  // The code charges registers to compute instead.
  const RowPenalties code = GpuAfter([](BufferSymbols& r, KernelSymbols&) { r.s1_registers = 256; },
                                     AnalyzerOptions::CodeBehaviour());
  EXPECT_DOUBLE_EQ(code.register_divisor, 2);
  EXPECT_DOUBLE_EQ(code.memory_utilization(), 1);
}

TEST(GpuPenalties, FewerBlocksThanSmsLeaveSmsIdle) {
  auto with_blocks = [](double blocks) {
    return GpuAfter([&](BufferSymbols& r, KernelSymbols&) { r.s6_l2_parallel = blocks; })
        .l2_compute;
  };
  const std::vector<double> efficiency = Sweep({108, 100, 54, 27, 1}, with_blocks);
  EXPECT_DOUBLE_EQ(efficiency[2], 0.5);
  ExpectNonIncreasing(efficiency, "P_l2,c as the grid shrinks");
  // One block more than a wave needs a second, nearly empty, wave.
  EXPECT_DOUBLE_EQ(with_blocks(109), 109.0 / 216);
}

TEST(GpuPenalties, BlocksOfFewWarpsLeaveSchedulersIdle) {
  auto with_threads = [](double threads) {
    return GpuAfter([&](BufferSymbols& r, KernelSymbols&) { r.s4_l1_parallel = threads; });
  };
  const std::vector<double> efficiency =
      Sweep({128, 96, 64, 32}, [&](double t) { return with_threads(t).l1_compute; });
  EXPECT_DOUBLE_EQ(efficiency.back(), 0.25);  // one warp, four schedulers
  ExpectNonIncreasing(efficiency, "P_l1,c as blocks shrink");
  // A partial warp wastes lanes (alpha_l1).
  EXPECT_DOUBLE_EQ(with_threads(48).l1_waste, 48.0 / 64);
}

TEST(GpuPenalties, SharedMemoryBeyondTheOccupancyShareSlowsMemory) {
  // 256 threads: 8 blocks fill an SM's 2048 thread slots, so each may use
  // 164 KiB / 8 = 20.5 KiB before shared memory limits occupancy.
  const std::vector<double> memory = Sweep({4096, 20992, 32768, 49152}, [](double bytes) {
    return GpuAfter([&](BufferSymbols& r, KernelSymbols& k) {
             k.shared_bytes = static_cast<int64_t>(bytes);
             r.s3_l1_bytes = bytes;
           })
        .l1_memory;
  });
  EXPECT_DOUBLE_EQ(memory[1], 1);
  EXPECT_DOUBLE_EQ(memory[3], 20992.0 / 49152);
  ExpectNonIncreasing(memory, "P_l1,m as shared memory grows");
}

TEST(GpuPenalties, ShortTransfersWasteDramSectors) {
  auto with_run = [](double bytes) {
    return GpuAfter([&](BufferSymbols& r, KernelSymbols&) { r.s7_transfer_bytes = bytes; })
        .l2_memory;
  };
  const std::vector<double> memory = Sweep({128, 32, 16, 8, 4}, with_run);
  EXPECT_DOUBLE_EQ(memory[2], 0.5);
  EXPECT_DOUBLE_EQ(memory[4], 0.125);
  ExpectNonIncreasing(memory, "P_l2,m as transfers shorten");
  EXPECT_DOUBLE_EQ(with_run(48), 0.75);  // a sector and a half
}

TEST(GpuPenalties, LessReuseLowersComputeEfficiency) {
  const std::vector<double> efficiency = Sweep({100, 1000, 10000, 100000}, [](double elements) {
    return GpuAfter([&](BufferSymbols& r, KernelSymbols&) { r.reuse_elements = elements; })
        .l0_compute;
  });
  ExpectNonIncreasing(efficiency, "P_l0,c as reuse falls");
  EXPECT_GT(efficiency.back(), 0.5);  // bounded: at worst half the peak
}

TEST(GpuPenalties, TheCodeFoldsWarpsIntoTheGridTerm) {
  const AnalyzerOptions code = AnalyzerOptions::CodeBehaviour();
  BufferSymbols row = GpuComputeRow();
  row.s4_l1_parallel = 64;   // 2 warps per block
  row.s6_l2_parallel = 256;  // >= SMs: plain waves, warps ignored
  EXPECT_DOUBLE_EQ(Gpu(row, GpuKernel(), code).l2_compute, 256.0 / (3 * 108));
  EXPECT_DOUBLE_EQ(Gpu(row, GpuKernel(), code).l1_compute, 1);
  EXPECT_DOUBLE_EQ(Gpu(row, GpuKernel()).l1_compute, 0.5);  // the paper's P_l1,c
  // A small grid counts warps (at most 4) as units over 4 x SMs:
  // 27 blocks x 2 warps / 432, the paper's product 27/108 x 2/4.
  row.s6_l2_parallel = 27;
  EXPECT_DOUBLE_EQ(Gpu(row, GpuKernel(), code).l2_compute, 27.0 * 2 / 432);
  const RowPenalties paper = Gpu(row, GpuKernel());
  EXPECT_DOUBLE_EQ(paper.l2_compute * paper.l1_compute, 27.0 / 108 * 2 / 4);
}

// A CPU compute row of 64 parallel tasks on the hand CPU's 8 cores, 8-wide
// vectors, 8 vector accumulators, a 16 KiB reduction tile.
BufferSymbols CpuComputeRow() {
  BufferSymbols r;
  r.kind = RowKind::kCompute;
  r.s1_registers = 64 + 8 + 8;
  r.register_tile_outputs = 64;
  r.reuse_flops = 2.0 * 64 * 256;
  r.reuse_elements = 64 + 8 * 256 + 8 * 256;
  r.s3_l1_bytes = 16384;
  r.s4_l1_parallel = 8;
  r.s6_l2_parallel = 64;
  r.s5_global_elements = 1e6;
  r.s7_transfer_bytes = 256;
  r.s8_total_flops = 1e9;
  return r;
}

// Penalties of the well-shaped CPU row once `change` has edited it.
template <typename Change>
RowPenalties CpuAfter(Change change) {
  BufferSymbols row = CpuComputeRow();
  change(row);
  const AnalyzerOptions options;
  return ComputePenalties(row, KernelSymbols{}, Machine(testing::HandCpu(), options), options);
}

TEST(CpuPenalties, TheWellShapedRowIsUnpenalizedExceptForReuse) {
  const RowPenalties p = CpuAfter([](BufferSymbols&) {});
  EXPECT_DOUBLE_EQ(p.l1_compute, 1);
  EXPECT_DOUBLE_EQ(p.l1_waste, 1);
  EXPECT_DOUBLE_EQ(p.l2_compute, 1);
  EXPECT_DOUBLE_EQ(p.memory_utilization(), 1);
}

TEST(CpuPenalties, FewerTasksThanCoresLeaveCoresIdle) {
  const std::vector<double> efficiency = Sweep({64, 12, 4, 1}, [](double tasks) {
    return CpuAfter([&](BufferSymbols& r) { r.s6_l2_parallel = tasks; }).l2_compute;
  });
  EXPECT_DOUBLE_EQ(efficiency[1], 12.0 / 16);
  EXPECT_DOUBLE_EQ(efficiency.back(), 1.0 / 8);  // no parallel loop: one core
  ExpectNonIncreasing(efficiency, "P_l2,c as tasks shrink");
}

TEST(CpuPenalties, NarrowVectorsAndFewAccumulatorsWasteTheFmaPipes) {
  const std::vector<double> lanes = Sweep({8, 4, 1}, [](double vector) {
    return CpuAfter([&](BufferSymbols& r) { r.s4_l1_parallel = vector; }).l1_waste;
  });
  EXPECT_DOUBLE_EQ(lanes.back(), 1.0 / 8);  // scalar code uses one lane
  ExpectNonIncreasing(lanes, "alpha as vectors narrow");
  // 2 pipes x 4 cycles need 8 independent accumulator vectors.
  const std::vector<double> chains = Sweep({64, 32, 16, 8}, [](double outputs) {
    return CpuAfter([&](BufferSymbols& r) { r.register_tile_outputs = outputs; }).l1_compute;
  });
  EXPECT_DOUBLE_EQ(chains.back(), 1.0 / 8);
  ExpectNonIncreasing(chains, "P_l1,c as the register tile shrinks");
}

TEST(CpuPenalties, TilesBeyondRegistersAndL1SlowMemory) {
  // 16 AVX2 registers x 8 lanes = 128 elements.
  const std::vector<double> registers = Sweep({80, 128, 256}, [](double s1) {
    return CpuAfter([&](BufferSymbols& r) { r.s1_registers = s1; }).l0_memory;
  });
  EXPECT_DOUBLE_EQ(registers.back(), 0.5);
  ExpectNonIncreasing(registers, "P_l0,m as the register tile grows");
  const std::vector<double> l1 = Sweep({16384, 32768, 131072}, [](double bytes) {
    return CpuAfter([&](BufferSymbols& r) { r.s3_l1_bytes = bytes; }).l1_memory;
  });
  EXPECT_DOUBLE_EQ(l1.back(), 0.25);
  ExpectNonIncreasing(l1, "P_l1,m as the reduction tile grows");
}

// End to end: a GPU matmul whose per-thread tile holds 4x4, 8x8, 8x16 and
// 16x16 accumulators (S1 = 24, 80, 152, 288 with the operand registers) in
// the same 8 x 8 thread block. The register penalty appears past the cap
// and its memory time per element grows.
TEST(GpuPenalties, PerThreadTilesBeyondTheCapPayOnMemory) {
  const DeviceProfile gpu = testing::TestGpu();
  absl::StatusOr<SymbolAnalyzer> analyzer = SymbolAnalyzer::Create(gpu);
  ASSERT_TRUE(analyzer.ok());
  struct Tile {
    const char* i;
    const char* j;
    double s1;
  };
  const std::vector<Tile> tiles = {{"[1,8,2,2]", "[1,8,2,2]", 24},
                                   {"[1,8,2,4]", "[1,8,2,4]", 80},
                                   {"[1,8,2,4]", "[1,8,4,4]", 152},
                                   {"[1,8,4,4]", "[1,8,4,4]", 288}};
  std::vector<double> seconds_per_element;
  for (const Tile& t : tiles) {
    absl::StatusOr<Program> p = testing::LowerSteps(
        "matmul:M=512,K=512,N=512", testing::GpuMatmulSteps(512, 512, 512, t.i, t.j, "[4,2]", 1),
        gpu);
    ASSERT_TRUE(p.ok()) << p.status();
    absl::StatusOr<LatencyEstimate> e = analyzer->Analyze(*p);
    ASSERT_TRUE(e.ok()) << e.status();
    SCOPED_TRACE(e->ToString(*p));
    EXPECT_DOUBLE_EQ(e->symbols.kernels[0].max_registers, t.s1);
    double memory_s = 0, elements = 0;
    for (size_t r = 0; r < e->rows.size(); ++r) {
      EXPECT_DOUBLE_EQ(e->rows[r].penalties.l0_memory, std::min(1.0, 128 / t.s1));
      memory_s += e->rows[r].memory_s;
      elements += e->symbols.rows[r].s5_global_elements;
    }
    seconds_per_element.push_back(-memory_s / elements);  // negated: non-increasing
  }
  ExpectNonIncreasing(seconds_per_element, "-(memory seconds per element)");
}

}  // namespace
}  // namespace pruner
