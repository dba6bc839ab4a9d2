// PaCM's dataflow blocks (../shared/specs/pruner.md §4.2-§4.4) on hand-written
// schedules: a GPU matmul computed by hand block by block, the CPU's staged
// cache tiles, and programs without the pattern.
#include <algorithm>
#include <string>
#include <vector>

#include "common/features/cpu_cache_tiles.h"
#include "common/features/dataflow_features.h"
#include "common/features/feature_columns.h"
#include "common/features/statement_features.h"
#include "common/ir/ops.h"
#include "common/lower/lower.h"
#include "gtest/gtest.h"
#include "tests/features/feature_test_util.h"
#include "tests/lower/lower_test_util.h"

namespace pruner {
namespace {

namespace dc = dataflow_columns;
namespace fc = feature_columns;
using testing::SlogOf;

absl::StatusOr<Program> LowerSteps(const std::string& spec, const std::string& steps,
                                   const DeviceProfile& device) {
  auto dag = testing::Share(BuildOperator(spec));
  if (dag == nullptr) return absl::InvalidArgumentError(spec);
  absl::StatusOr<State> state = testing::ReplayText(dag, steps);
  if (!state.ok()) return state.status();
  return Lower(*state, device);
}

std::string DescribeBlocks(const DataflowFeatures& f) {
  std::string out;
  const std::vector<std::string>& names = DataflowBlockFeatureNames();
  for (int b = 0; b < kNumDataflowBlocks; ++b) {
    out += "block " + std::to_string(b) + ":";
    for (int c = 0; c < kDataflowBlockWidth; ++c) {
      if (f.block(b)[c] != 0) out += " " + names[c] + "=" + std::to_string(f.block(b)[c]);
    }
    out += "\n";
  }
  return out;
}

// Expected raw values of one block; the test slogs them.
struct Expected {
  double float_op;
  MemScope location;
  AccessType type;
  double bytes, unique_bytes, lines, unique_lines;
  ReuseType reuse;
  double dis_iter, dis_bytes, reuse_ct;
  double stride;
  double alloc;
};

void ExpectBlock(const float* b, const Expected& e) {
  EXPECT_FLOAT_EQ(b[dc::kFloatOp], SlogOf(e.float_op));
  for (int l = 0; l < 3; ++l) {
    EXPECT_EQ(b[dc::kLocationGlobal + l], l == static_cast<int>(e.location) ? 1.0f : 0.0f);
  }
  for (int t = 0; t < 3; ++t) {
    EXPECT_EQ(b[dc::kAccRead + t], t == static_cast<int>(e.type) ? 1.0f : 0.0f);
  }
  EXPECT_FLOAT_EQ(b[dc::kBytes], SlogOf(e.bytes));
  EXPECT_FLOAT_EQ(b[dc::kUniqueBytes], SlogOf(e.unique_bytes));
  EXPECT_FLOAT_EQ(b[dc::kLines], SlogOf(e.lines));
  EXPECT_FLOAT_EQ(b[dc::kUniqueLines], SlogOf(e.unique_lines));
  for (int r = 0; r < 3; ++r) {
    EXPECT_EQ(b[dc::kReuseLoopMultipleRead + r], r == static_cast<int>(e.reuse) ? 1.0f : 0.0f);
  }
  EXPECT_FLOAT_EQ(b[dc::kReuseDisIter], SlogOf(e.dis_iter));
  EXPECT_FLOAT_EQ(b[dc::kReuseDisBytes], SlogOf(e.dis_bytes));
  EXPECT_FLOAT_EQ(b[dc::kReuseCt], SlogOf(e.reuse_ct));
  // X / reuse_ct, or 2X without reuse (TVM's convention).
  auto per_reuse = [&](double x) { return SlogOf(e.reuse_ct > 0.5 ? x / e.reuse_ct : 2 * x); };
  EXPECT_FLOAT_EQ(b[dc::kBytesDReuseCt], per_reuse(e.bytes));
  EXPECT_FLOAT_EQ(b[dc::kUniqueBytesDReuseCt], per_reuse(e.unique_bytes));
  EXPECT_FLOAT_EQ(b[dc::kLinesDReuseCt], per_reuse(e.lines));
  EXPECT_FLOAT_EQ(b[dc::kUniqueLinesDReuseCt], per_reuse(e.unique_lines));
  EXPECT_FLOAT_EQ(b[dc::kStride], SlogOf(e.stride));
  EXPECT_FLOAT_EQ(b[dc::kAllocSize], SlogOf(e.alloc));
}

TEST(DataflowBlockNames, FollowTheSpecOrder) {
  const std::vector<std::string>& names = DataflowBlockFeatureNames();
  ASSERT_EQ(names.size(), kDataflowBlockWidth);
  EXPECT_EQ(names[dc::kFloatOp], "float_op");
  EXPECT_EQ(names[dc::kLocationShared], "location.shared");
  EXPECT_EQ(names[dc::kAccReadWrite], "acc_type.kReadWrite");
  EXPECT_EQ(names[dc::kBytes], "bytes");
  EXPECT_EQ(names[dc::kReuseNone], "reuse_type.kNoReuse");
  EXPECT_EQ(names[dc::kUniqueLinesDReuseCt], "unique_lines_d_reuse_ct");
  EXPECT_EQ(names[dc::kStride], "stride");
  EXPECT_EQ(names[dc::kAllocSize], "alloc_size");
}

TEST(TilingPattern, FindsTheFirstOccurrenceOfTheNeedle) {
  EXPECT_EQ(FindMultiTilingPattern("2010111220"), 0);
  EXPECT_EQ(FindMultiTilingPattern("0202010111220"), 3);
  EXPECT_EQ(FindMultiTilingPattern("2010111220201011122"), 0);  // first of two
  EXPECT_EQ(FindMultiTilingPattern("20101112"), 0);
  EXPECT_EQ(FindMultiTilingPattern("2010111"), -1);
  // Three staged inputs, or the reads in first-appearance order, miss.
  EXPECT_EQ(FindMultiTilingPattern("20101011112"), -1);
  EXPECT_EQ(FindMultiTilingPattern("2010101120"), -1);
  EXPECT_EQ(FindMultiTilingPattern(""), -1);
}

// 64x64x64 matmul, Ansor's GPU sketch with i and j tiled [4 blocks, 1
// vthread, 4 threads, 2, 2] and k [4, 4, 4]; A and B fetched by 16 threads
// without vectors. Lowered (b = blockIdx.x, t = threadIdx.x; fd/fm =
// floordiv/floormod):
//   b in 16: t in 16: allocate C.local[4, 4]
//     I: i3i 2, j3i 2, i4i 2, j4i 2: C.local[i3i*2+i4i, j3i*2+j4i] = 0
//     k0 in 4: allocate A.shared[16, 16] at [fd(b,4)*16, k0*16],
//                       B.shared[16, 16] at [k0*16, fm(b,4)*16]
//       FA: a0 16, threadIdx a1 16: A.shared[a0, a1] = A[a0 + fd(b,4)*16, a1 + k0*16]
//       FB: c0 16, threadIdx c1 16: B.shared[c0, c1] = B[c0 + k0*16, c1 + fm(b,4)*16]
//       U: k1 4, i3 2, j3 2, k2 4, i4 2, j4 2:
//            C.local[i3*2+i4, j3*2+j4] += A.shared[i3*2+i4 + fd(t,4)*4, k1*4+k2]
//                                         * B.shared[k1*4+k2, j3*2+j4 + fm(t,4)*4]
//     W: C[...] = C.local[wi, wj]
// Digits: I "2", FA "01", FB "01", U "112" (B.shared, A.shared, C.local),
// W "20": the pattern starts at 0. Regions are in global coordinates, so
// every buffer's whole-nest region is the 64x64 tensor (16384 bytes), and a
// thread binding inside its own binding (FA, FB) hides the outer one.
TEST(DataflowFeatures, GpuMatmulBlocksMatchHandComputedValues) {
  const DeviceProfile gpu = testing::TestGpu();  // 64-byte cache lines
  absl::StatusOr<Program> program = LowerSteps(
      "matmul:M=64,K=64,N=64",
      testing::GpuMatmulSteps(64, 64, 64, "[1,4,2,2]", "[1,4,2,2]", "[4,4]", 1), gpu);
  ASSERT_TRUE(program.ok()) << program.status();
  DataflowTrace trace;
  const DataflowFeatures f = ExtractDataflowFeatures(*program, gpu, &trace);
  SCOPED_TRACE(program->ToString() + "digits " + trace.digits + "\n" + DescribeBlocks(f));
  EXPECT_FALSE(trace.staged);
  EXPECT_EQ(trace.digits, "2010111220");
  ASSERT_TRUE(f.has_pattern);
  const auto kG = MemScope::kGlobal, kS = MemScope::kShared, kL = MemScope::kLocal;
  const auto kR = AccessType::kRead, kW = AccessType::kWrite, kRW = AccessType::kReadWrite;
  const auto kNone = ReuseType::kNoReuse, kLoop = ReuseType::kLoopMultipleRead;

  // Block 0, I's C.local write. Loops b 16, t 16, 2, 2, 2, 2: outer_prod
  // 4096, no float op. Innermost j4i moves the last dimension by 1: stride
  // 1, lines 4096 * 4/64 = 256. The last dimension's region (64) covers the
  // 4-wide tile: 16 contiguous bytes, unique_lines 16384 / 16 = 1024. Every
  // loop, b and t included (the tile's origin), moves C.local: no reuse.
  // C.local is 4x4 floats.
  ExpectBlock(f.block(0), {0, kL, kW, 4096 * 4, 16384, 256, 1024, kNone, 0, 0, 0, 1, 64});
  // Block 1, FA's read of A. Loops b 16, k0 4, a0 16, a1 16 (t hidden):
  // outer_prod 16384, bytes 65536; stride 1 at a1, lines 16384 / 16 =
  // 1024; A's rows are 256 bytes, so unique_lines = 16384 / 64 = 256. All
  // four loops move A (b through fd(b, 4)): no reuse.
  ExpectBlock(f.block(1), {0, kG, kR, 65536, 16384, 1024, 256, kNone, 0, 0, 0, 1, 0});
  // Block 2, FA's write of A.shared: the same global coordinates, so the
  // same values; its rows are 16 floats (64 bytes): 256 unique lines. 1 KiB.
  ExpectBlock(f.block(2), {0, kS, kW, 65536, 16384, 1024, 256, kNone, 0, 0, 0, 1, 1024});
  // Blocks 3, 4: FB, symmetric.
  ExpectBlock(f.block(3), {0, kG, kR, 65536, 16384, 1024, 256, kNone, 0, 0, 0, 1, 0});
  ExpectBlock(f.block(4), {0, kS, kW, 65536, 16384, 1024, 256, kNone, 0, 0, 0, 1, 1024});
  // U: loops b 16, t 16, k0 4, k1 4, i3 2, j3 2, k2 4, i4 2, j4 2:
  // outer_prod 262144, bytes 1 MiB, float_op 2 * 262144 (one add, one mul).
  const double u = 262144;
  // Block 5, U's read of B.shared. j4 moves its last dimension: stride 1,
  // lines u / 16. Reuse: j4 moves it (dis_iter 2; bytes under j4: C.local 2
  // + A.shared 1 + B.shared 2 elements = 20), i4 does not (count 2), k2
  // does: LoopMultipleRead(2, 20, 2).
  ExpectBlock(f.block(5), {2 * u, kS, kR, u * 4, 16384, u / 16, 256, kLoop, 2, 20, 2, 1, 1024});
  // Block 6, U's read of A.shared. j4 does not move it (reduce_ratio 2); i4
  // moves its first dimension, 16 floats apart: stride 16 (reported 0, not
  // innermost), lines u / 2 * min(1, 64/64). Reuse: j4 first, one element
  // of each of the 3 accesses apart (12 bytes), count 2; i4 moves it.
  ExpectBlock(f.block(6), {2 * u, kS, kR, u * 4, 16384, u / 2, 256, kLoop, 1, 12, 2, 0, 1024});
  // Block 7, U's read-write of C.local: stride 1 at j4, lines u / 16, 16
  // contiguous bytes (1024 unique lines). Reuse: j4 and i4 move it (dis_iter
  // 4; under i4: C.local 4 + A.shared 2 + B.shared 2 elements = 32 bytes),
  // k2 does not (count 4), j3 does.
  ExpectBlock(f.block(7), {2 * u, kL, kRW, u * 4, 16384, u / 16, 1024, kLoop, 4, 32, 4, 1, 64});

  // The blocks are statement accesses: A and B's fetches and U's three.
  EXPECT_EQ(trace.analysed.buffer(trace.records[1].buffer).name, "A");
  EXPECT_EQ(trace.analysed.buffer(trace.records[5].buffer).name, "B.shared");
  EXPECT_EQ(trace.analysed.buffer(trace.records[6].buffer).name, "A.shared");
}

// A block embeds Ansor's group-2 slot of the same access: U's three blocks
// are exactly the three slots of C.local's statement row (U is its last
// store), in some order.
TEST(DataflowFeatures, BlocksAgreeWithTheStatementRowSlots) {
  const DeviceProfile gpu = testing::TestGpu();
  absl::StatusOr<Program> program = LowerSteps(
      "matmul:M=64,K=64,N=64",
      testing::GpuMatmulSteps(64, 64, 64, "[2,2,2,2]", "[2,2,4,1]", "[4,4]", 2), gpu);
  ASSERT_TRUE(program.ok()) << program.status();
  ProgramFeatures rows;
  const DataflowFeatures f = ExtractDataflowAndStatementFeatures(*program, gpu, &rows);
  ASSERT_TRUE(f.has_pattern);
  EXPECT_EQ(rows, ExtractStatementFeatures(*program, gpu));
  const StatementFeatures local = testing::RowOfBuffer(*program, rows, "matmul.local");
  for (int b = 5; b < 8; ++b) {
    const float* slot_in_block = f.block(b) + dc::kAccRead;
    bool found = false;
    for (int s = 0; s < fc::kMaxBufferSlots && !found; ++s) {
      found = std::equal(slot_in_block, slot_in_block + fc::kBufferSlotWidth,
                         local.data() + fc::BufferColumn(s, 0));
    }
    EXPECT_TRUE(found) << "block " << b << "\n" << DescribeBlocks(f) << testing::DescribeRow(local);
  }
}

// Ansor's CPU matmul sketch (tests/lower/lower_test_util.h) on 64^3:
//   parallel p 16: i1 2: j1 2: allocate C.local[8, 8]
//     init; k0 8: i2 4: j2 2: k1 8: i3 2: vectorized j3 4: C.local += A * B
//     write-back
// The init and the update share p, i1, j1; the update's nest starts with
// the reduce loop k0, so the tiles go inside k0: A's is i2*i3 x k1 = 8x8,
// B's k1 x j2*j3 = 8x8.
TEST(DataflowFeatures, CpuMatmulStagesCacheTilesInsideTheOuterReduceLoop) {
  const DeviceProfile cpu = testing::TestCpu();
  absl::StatusOr<Program> program =
      LowerSteps("matmul:M=64,K=64,N=64", testing::CpuMatmulSteps(64, 64, 64), cpu);
  ASSERT_TRUE(program.ok()) << program.status();
  DataflowTrace trace;
  const DataflowFeatures f = ExtractDataflowFeatures(*program, cpu, &trace);
  SCOPED_TRACE(trace.analysed.ToString() + "digits " + trace.digits + "\n" + DescribeBlocks(f));
  ASSERT_TRUE(trace.staged);
  EXPECT_EQ(trace.digits, "2010111220");
  ASSERT_TRUE(f.has_pattern);
  std::vector<std::string> names;
  for (int b = 0; b < kNumDataflowBlocks; ++b) {
    names.push_back(trace.analysed.buffer(trace.records[b].buffer).name);
  }
  EXPECT_EQ(names, (std::vector<std::string>{"matmul.local", "A", "A.tile", "B", "B.tile",
                                             "B.tile", "A.tile", "matmul.local"}));
  const Buffer& a_tile = trace.analysed.buffer(trace.records[2].buffer);
  EXPECT_EQ(a_tile.scope, MemScope::kShared);
  EXPECT_EQ(a_tile.shape, (std::vector<int64_t>{8, 8}));
  EXPECT_EQ(trace.analysed.buffer(trace.records[4].buffer).shape, (std::vector<int64_t>{8, 8}));

  // The fetch of A: loops p 16, i1 2, j1 2, k0 8, then the tile's 8 x 8:
  // outer_prod 32768, bytes 131072; j1 does not move A: LoopMultipleRead
  // with count 2 (i1 moves it), reuse_dis_iter k0 x 64 = 512.
  const float* fetch_a = f.block(1);
  EXPECT_EQ(fetch_a[dc::kLocationGlobal], 1.0f);
  EXPECT_FLOAT_EQ(fetch_a[dc::kBytes], SlogOf(131072));
  EXPECT_EQ(fetch_a[dc::kReuseLoopMultipleRead], 1.0f);
  EXPECT_FLOAT_EQ(fetch_a[dc::kReuseCt], SlogOf(2));
  EXPECT_FLOAT_EQ(fetch_a[dc::kReuseDisIter], SlogOf(512));
  // Tiles: 8x8 floats each; the accumulator 8x8 floats (a local buffer).
  EXPECT_FLOAT_EQ(f.block(2)[dc::kAllocSize], SlogOf(256));
  EXPECT_FLOAT_EQ(f.block(4)[dc::kAllocSize], SlogOf(256));
  EXPECT_FLOAT_EQ(f.block(0)[dc::kAllocSize], SlogOf(256));
  EXPECT_EQ(fetch_a[dc::kAllocSize], 0.0f);
  // The compute reads: 64^3 multiply-adds, each access 64^3 times.
  for (int b = 5; b < 8; ++b) {
    EXPECT_FLOAT_EQ(f.block(b)[dc::kFloatOp], SlogOf(2.0 * 64 * 64 * 64));
    EXPECT_FLOAT_EQ(f.block(b)[dc::kBytes], SlogOf(4.0 * 64 * 64 * 64));
  }
  EXPECT_EQ(f.block(5)[dc::kLocationShared], 1.0f);
  EXPECT_EQ(f.block(7)[dc::kAccReadWrite], 1.0f);

  // The statement rows are the program's own, not the staged copy's.
  ProgramFeatures rows;
  ExtractDataflowAndStatementFeatures(*program, cpu, &rows);
  EXPECT_EQ(rows, ExtractStatementFeatures(*program, cpu));
  EXPECT_EQ(rows.size(), 2u);
}

// The same CPU sketch with an outer reduce split of 1 (k0 dropped by
// lowering): the update's nest starts with a spatial loop, so the tiles
// sit before it and span the whole reduction (A: 8 x 64, B: 64 x 8).
TEST(DataflowFeatures, CpuTilesSpanTheReductionWhenItsOuterSplitIsOne) {
  const DeviceProfile cpu = testing::TestCpu();
  const std::string steps =
      "CHW 2 local; SP 2 0 64 [2,4,2]; SP 2 4 64 [2,2,4]; SP 2 8 64 [64]; "
      "RE 2 [0,4,1,5,8,2,6,9,3,7]; FSP 3 0 1 2; FSP 3 3 2 2; RE 3 [0,3,1,4,2,5]; CA 2 3 3; "
      "FU 3 [0,1]; AN 3 0 parallel; AN 2 9 vectorize; AN 3 4 vectorize";
  absl::StatusOr<Program> program = LowerSteps("matmul:M=64,K=64,N=64", steps, cpu);
  ASSERT_TRUE(program.ok()) << program.status();
  DataflowTrace trace;
  const DataflowFeatures f = ExtractDataflowFeatures(*program, cpu, &trace);
  SCOPED_TRACE(trace.analysed.ToString() + "digits " + trace.digits);
  ASSERT_TRUE(f.has_pattern);
  EXPECT_EQ(trace.analysed.buffer(trace.records[2].buffer).shape,
            (std::vector<int64_t>{8, 64}));
  EXPECT_EQ(trace.analysed.buffer(trace.records[4].buffer).shape,
            (std::vector<int64_t>{64, 8}));
}

// Programs without a tiled reduction have no pattern: zeros.
// (dataflow_features_random_test.cc covers random GPU and CPU schedules.)
TEST(DataflowFeatures, ElementwiseAndUnstagedProgramsGiveZeros) {
  const DeviceProfile cpu = testing::TestCpu();
  for (const char* spec : {"relu:shape=64x64", "add:shape=32x8x16"}) {
    auto dag = testing::Share(BuildOperator(spec));
    ASSERT_NE(dag, nullptr);
    absl::StatusOr<Program> program = Lower(State::Initial(dag), cpu);
    ASSERT_TRUE(program.ok()) << program.status();
    const DataflowFeatures f = ExtractDataflowFeatures(*program, cpu);
    EXPECT_FALSE(f.has_pattern) << spec;
    EXPECT_TRUE(std::all_of(f.blocks.begin(), f.blocks.end(), [](float v) { return v == 0; }))
        << spec;
  }
  // A naive CPU matmul accumulates into its output: nothing to stage.
  auto dag = testing::Share(BuildOperator("matmul:M=64,K=64,N=64"));
  absl::StatusOr<Program> naive = Lower(State::Initial(dag), testing::TestCpu());
  ASSERT_TRUE(naive.ok());
  EXPECT_FALSE(StageCpuCacheTiles(*naive).has_value());
  DataflowTrace trace;
  EXPECT_FALSE(ExtractDataflowFeatures(*naive, testing::TestCpu(), &trace).has_pattern);
  EXPECT_EQ(trace.digits, "0000");  // init "0", update "00" + "0"
}

}  // namespace
}  // namespace pruner
