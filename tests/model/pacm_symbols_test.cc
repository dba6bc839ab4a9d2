// The analyzer vector PaCM's optional branch reads (pacm_symbols.h), from
// hand-made analyses: which row speaks for the program, and where each
// value lands.
#include "common/model/pacm_symbols.h"

#include <cmath>

#include "gtest/gtest.h"

namespace pruner {
namespace {

float Log2p(double x) { return static_cast<float>(std::log2(1.0 + x)); }

BufferSymbols Row(RowKind kind, double flops, double global_elements) {
  BufferSymbols r;
  r.kind = kind;
  r.s8_total_flops = flops;
  r.s5_global_elements = global_elements;
  return r;
}

LatencyEstimate Estimate(std::vector<BufferSymbols> rows) {
  LatencyEstimate e;
  e.symbols.rows = std::move(rows);
  e.rows.resize(e.symbols.rows.size());
  for (size_t i = 0; i < e.rows.size(); ++i) {
    e.rows[i].compute_s = 1e-6 * static_cast<double>(i + 1);
    e.rows[i].memory_s = 2e-6 * static_cast<double>(i + 1);
    e.latency_s += e.rows[i].compute_s + e.rows[i].memory_s;
  }
  return e;
}

TEST(PaCMSymbolsTest, TheComputeRowWithTheMostWorkSpeaksForTheProgram) {
  // A copy that moves the most data, a small epilogue, and the matmul.
  BufferSymbols matmul = Row(RowKind::kCompute, 1000, 50);
  matmul.register_tile_outputs = 256;
  matmul.issue_lanes = 16;
  matmul.issue_loads = 40;
  matmul.reuse_flops = 512;
  matmul.reuse_elements = 64;
  const LatencyEstimate e =
      Estimate({Row(RowKind::kMemory, 0, 1e6), Row(RowKind::kCompute, 100, 10), matmul});
  const ProgramSymbolVector v = ProgramSymbolsOf(e);
  EXPECT_FLOAT_EQ(v[0], Log2p(16));    // issue lanes
  EXPECT_FLOAT_EQ(v[3], Log2p(40));    // issue loads
  EXPECT_FLOAT_EQ(v[12], Log2p(8));    // reuse: flops per element
  EXPECT_FLOAT_EQ(v[15], Log2p(256));  // register-tile outputs
  EXPECT_FLOAT_EQ(v[16], Log2p(50));   // its S5, not the copy's
  EXPECT_FLOAT_EQ(v[19], Log2p(1000));
  EXPECT_FLOAT_EQ(v[20], Log2p(3e3));  // its compute and memory, in ns
  EXPECT_FLOAT_EQ(v[21], Log2p(6e3));
  EXPECT_FLOAT_EQ(v[22], Log2p(6e3));  // the program's sums and estimate
  EXPECT_FLOAT_EQ(v[23], Log2p(12e3));
  EXPECT_FLOAT_EQ(v[24], Log2p(18e3));
  EXPECT_FLOAT_EQ(v[25], Log2p(3));
}

TEST(PaCMSymbolsTest, TheProgramsSumsCountEveryRow) {
  // A matmul and its fused epilogue: the sums see the epilogue's loads and
  // DRAM traffic, which the main row's values leave out.
  BufferSymbols matmul = Row(RowKind::kCompute, 1000, 50);
  matmul.issue_loads = 40;
  matmul.issue_stores = 3;
  matmul.issue_dram_elements = 7;
  BufferSymbols epilogue = Row(RowKind::kCompute, 100, 30);
  epilogue.issue_loads = 24;
  epilogue.issue_stores = 5;
  epilogue.issue_dram_elements = 9;
  const ProgramSymbolVector v = ProgramSymbolsOf(Estimate({epilogue, matmul}));
  EXPECT_FLOAT_EQ(v[3], Log2p(40));     // the main row's loads
  EXPECT_FLOAT_EQ(v[27], Log2p(64));    // loads of every row
  EXPECT_FLOAT_EQ(v[29], Log2p(8));     // stores of every row
  EXPECT_FLOAT_EQ(v[33], Log2p(16));    // DRAM elements of every row
  EXPECT_FLOAT_EQ(v[34], Log2p(80));    // S5 of every row
  EXPECT_FLOAT_EQ(v[35], Log2p(1100));  // S8 of every row
}

TEST(PaCMSymbolsTest, WithoutComputeTheBusiestCopySpeaks) {
  const LatencyEstimate e =
      Estimate({Row(RowKind::kMemory, 0, 10), Row(RowKind::kMemory, 0, 4096)});
  EXPECT_FLOAT_EQ(ProgramSymbolsOf(e)[16], Log2p(4096));
  // No rows: only the program-wide values, all zero.
  for (float x : ProgramSymbolsOf(LatencyEstimate{})) EXPECT_EQ(x, 0.0f);
}

}  // namespace
}  // namespace pruner
