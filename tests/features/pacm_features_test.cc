// What PaCM reads of a program: the statement rows and dataflow blocks
// together, the workload tag, the flat batch layout and the per-column
// normalisation (../shared/specs/pruner.md §4.1, §4.5, §4.6).
#include <algorithm>
#include <string>
#include <vector>

#include "common/features/pacm_batch.h"
#include "common/features/pacm_features.h"
#include "common/ir/ops.h"
#include "common/lower/lower.h"
#include "gtest/gtest.h"
#include "tests/lower/lower_test_util.h"

namespace pruner {
namespace {

WorkloadTag TagOf(const std::string& spec) {
  auto dag = testing::Share(BuildOperator(spec));
  return dag == nullptr ? WorkloadTag{} : ComputeWorkloadTag(*dag);
}

// Entries: max, min, add, conv2d, winograd, depthwise, dense, softmax,
// batch_matmul, 0.
TEST(WorkloadTag, MarksTheOperatorFamilies) {
  EXPECT_EQ(TagOf("matmul:M=64,K=64,N=64"), (WorkloadTag{0, 0, 0, 0, 0, 0, 1, 0, 0, 0}));
  // relu is max(x, 0); bias_add is an add.
  EXPECT_EQ(TagOf("dense:M=16,K=32,N=8,bias=1,act=relu"),
            (WorkloadTag{1, 0, 1, 0, 0, 0, 1, 0, 0, 0}));
  EXPECT_EQ(TagOf("conv2d:N=1,C=16,H=14,W=14,K=32,R=3,S=3,pad=1"),
            (WorkloadTag{0, 0, 0, 1, 0, 0, 0, 0, 0, 0}));
  EXPECT_EQ(TagOf("depthwise_conv2d:C=16,H=14,W=14,R=3,S=3,pad=1"),
            (WorkloadTag{0, 0, 0, 0, 0, 1, 0, 0, 0, 0}));
  // The row maximum is a max reduction.
  EXPECT_EQ(TagOf("softmax:M=8,N=32"), (WorkloadTag{1, 0, 0, 0, 0, 0, 0, 1, 0, 0}));
  EXPECT_EQ(TagOf("batch_matmul:B=2,M=8,K=8,N=8"), (WorkloadTag{0, 0, 0, 0, 0, 0, 0, 0, 1, 0}));
  EXPECT_EQ(TagOf("max_pool2d:C=4,H=8,W=8,kernel=2"), (WorkloadTag{1, 0, 0, 0, 0, 0, 0, 0, 0, 0}));
  EXPECT_EQ(TagOf("add:shape=4x4"), (WorkloadTag{0, 0, 1, 0, 0, 0, 0, 0, 0, 0}));
}

// ExtractPaCMFeatures is ExtractStateFeatures + ExtractDataflowFeatures +
// the tag, on both kinds of device.
TEST(PaCMFeatures, CombineStatementRowsBlocksAndTag) {
  struct Setup {
    DeviceProfile device;
    std::string steps;
  };
  const Setup setups[] = {
      {testing::TestGpu(), testing::GpuMatmulSteps(64, 64, 64, "[1,4,2,2]", "[1,4,2,2]", "[4,4]", 1)},
      {testing::TestCpu(), testing::CpuMatmulSteps(64, 64, 64)},
  };
  auto dag = testing::Share(BuildOperator("matmul:M=64,K=64,N=64"));
  ASSERT_NE(dag, nullptr);
  for (const Setup& s : setups) {
    absl::StatusOr<State> state = testing::ReplayText(dag, s.steps);
    ASSERT_TRUE(state.ok()) << state.status();
    absl::StatusOr<PaCMFeatures> f = ExtractPaCMFeatures(*state, s.device);
    ASSERT_TRUE(f.ok()) << f.status();
    absl::StatusOr<ProgramFeatures> rows = ExtractStateFeatures(*state, s.device);
    ASSERT_TRUE(rows.ok());
    EXPECT_EQ(f->statements, *rows);
    absl::StatusOr<Program> program = Lower(*state, s.device);
    ASSERT_TRUE(program.ok());
    const DataflowFeatures blocks = ExtractDataflowFeatures(*program, s.device);
    EXPECT_TRUE(f->dataflow.has_pattern);
    EXPECT_EQ(f->dataflow.blocks, blocks.blocks);
    EXPECT_EQ(f->tag, ComputeWorkloadTag(*dag));
  }
}

TEST(PaCMFeatures, LoweringErrorsComeBack) {
  auto dag = testing::Share(Matmul(16, 16, 16));
  ASSERT_NE(dag, nullptr);
  absl::StatusOr<State> state = testing::ReplayText(dag, "AN 2 0 threadIdx.x");
  ASSERT_TRUE(state.ok()) << state.status();
  const absl::StatusOr<PaCMFeatures> f = ExtractPaCMFeatures(*state, testing::TestCpu());
  ASSERT_FALSE(f.ok());
  EXPECT_EQ(f.status(), Lower(*state, testing::TestCpu()).status());
}

// Two small hand-made programs' features: A with two rows and blocks,
// B with one row and no pattern.
PaCMFeatures Synthetic(int rows, float base, bool blocks) {
  PaCMFeatures f;
  for (int r = 0; r < rows; ++r) {
    StatementFeatures row{};
    row[0] = base + r;  // column 0 differs per row
    row[163] = 2 * base;
    f.statements.push_back(row);
  }
  f.tag = WorkloadTag{1, 0, 0, 0, 0, 0, base, 0, 0, 0};
  if (blocks) {
    f.dataflow.has_pattern = true;
    for (int b = 0; b < kNumDataflowBlocks; ++b) f.dataflow.blocks[b * kDataflowBlockWidth] = b;
  }
  return f;
}

TEST(PaCMBatch, LaysOutRowsWithTagsSegmentsBlocksAndValidity) {
  PaCMBatch batch;
  batch.Add(Synthetic(2, 3, true));
  batch.AddInvalid();
  batch.Add(Synthetic(1, 5, false));
  ASSERT_EQ(batch.num_programs, 3);
  ASSERT_EQ(batch.num_rows(), 4);  // 2 + the invalid program's zero row + 1
  EXPECT_EQ(batch.statement_program, (std::vector<int32_t>{0, 0, 1, 2}));
  EXPECT_EQ(batch.valid, (std::vector<uint8_t>{1, 0, 1}));
  ASSERT_EQ(batch.statements.size(), 4u * kPaCMStatementWidth);
  ASSERT_EQ(batch.blocks.size(), 3u * kDataflowFeatureSize);
  auto at = [&](int row, int col) { return batch.statements[row * kPaCMStatementWidth + col]; };
  EXPECT_EQ(at(0, 0), 3);
  EXPECT_EQ(at(1, 0), 4);
  EXPECT_EQ(at(1, 163), 6);
  // The tag follows each row: entry 0 at column 164, entry 6 at 170.
  EXPECT_EQ(at(0, 164), 1);
  EXPECT_EQ(at(1, 170), 3);
  EXPECT_EQ(at(3, 170), 5);
  for (int c = 0; c < kPaCMStatementWidth; ++c) EXPECT_EQ(at(2, c), 0) << c;
  // Program 0's block 5 starts with 5; programs 1 and 2 have none.
  EXPECT_EQ(batch.blocks[5 * kDataflowBlockWidth], 5);
  EXPECT_TRUE(std::all_of(batch.blocks.begin() + kDataflowFeatureSize, batch.blocks.end(),
                          [](float v) { return v == 0; }));
}

TEST(PaCMColumnScales, DivideEachColumnByItsTrainingMaximum) {
  PaCMBatch train;
  train.Add(Synthetic(2, 3, true));
  train.Add(Synthetic(1, 5, false));
  const PaCMColumnScales scales = PaCMColumnScales::Fit(train);
  // Statement column 0: rows 3, 4, 5; column 163: 6, 6, 10; tag entry 6
  // (column 170): 3, 3, 5; tag entry 0 (column 164): 1. Untouched columns
  // (max 0) divide by 1.
  EXPECT_EQ(scales.statement[0], 5);
  EXPECT_EQ(scales.statement[163], 10);
  EXPECT_EQ(scales.statement[170], 5);
  EXPECT_EQ(scales.statement[164], 1);
  EXPECT_EQ(scales.statement[1], 1);
  // Block column 0 pooled over the 8 positions: 0..7.
  EXPECT_EQ(scales.block[0], 7);
  EXPECT_EQ(scales.block[1], 1);

  PaCMBatch batch;
  batch.Add(Synthetic(1, 10, true));  // larger than anything in training
  scales.Apply(&batch);
  EXPECT_FLOAT_EQ(batch.statements[0], 10.0f / 5);
  EXPECT_FLOAT_EQ(batch.statements[163], 20.0f / 10);
  EXPECT_FLOAT_EQ(batch.statements[164], 1.0f);
  EXPECT_FLOAT_EQ(batch.blocks[3 * kDataflowBlockWidth], 3.0f / 7);
}

}  // namespace
}  // namespace pruner
