// Dataflow blocks of random sketch schedules on a CPU and a GPU profile:
// the pattern is found for tiled operators (dense, conv2d) and never for
// element-wise ones, every block is finite and well-formed, and extraction
// is deterministic: the same state gives bit-identical blocks when lowered
// again, in another order and on another thread.
#include <cmath>
#include <cstring>
#include <ostream>
#include <string>
#include <thread>
#include <vector>

#include "common/features/dataflow_features.h"
#include "common/lower/lower.h"
#include "gtest/gtest.h"
#include "tests/features/random_states.h"
#include "tests/lower/lower_test_util.h"

namespace pruner {
namespace {

namespace dc = dataflow_columns;

constexpr int kSchedulesPerCase = 150;

struct Case {
  const char* spec;
  bool gpu;
  // A tiled operator (dense, conv2d, batch_matmul): most of its sketches
  // have the pattern. Others never do.
  bool tiled;
};

void PrintTo(const Case& c, std::ostream* os) { *os << c.spec << (c.gpu ? " gpu" : " cpu"); }

std::string CaseName(const ::testing::TestParamInfo<Case>& info) {
  return testing::OperatorCaseName(info.param.spec, info.param.gpu);
}

// What every matched pattern must look like (tiling_pattern.h): a
// description of the first violation, or "".
std::string CheckPattern(const DataflowFeatures& f, const DataflowTrace& trace) {
  static constexpr MemScope kLevel[] = {MemScope::kLocal,  MemScope::kGlobal, MemScope::kShared,
                                        MemScope::kGlobal, MemScope::kShared, MemScope::kShared,
                                        MemScope::kShared, MemScope::kLocal};
  static constexpr AccessType kType[] = {AccessType::kWrite, AccessType::kRead,
                                         AccessType::kWrite, AccessType::kRead,
                                         AccessType::kWrite, AccessType::kRead,
                                         AccessType::kRead,  AccessType::kReadWrite};
  for (int b = 0; b < kNumDataflowBlocks; ++b) {
    const float* block = f.block(b);
    const std::string at = "block " + std::to_string(b) + ": ";
    for (int l = 0; l < 3; ++l) {
      if (block[dc::kLocationGlobal + l] != (l == static_cast<int>(kLevel[b]) ? 1.0f : 0.0f)) {
        return at + "location";
      }
    }
    for (int t = 0; t < 3; ++t) {
      if (block[dc::kAccRead + t] != (t == static_cast<int>(kType[b]) ? 1.0f : 0.0f)) {
        return at + "access type";
      }
    }
    const float reuse = block[dc::kReuseLoopMultipleRead] +
                        block[dc::kReuseSerialMultipleReadWrite] + block[dc::kReuseNone];
    if (reuse != 1.0f) return at + "reuse one-hot";
    // Tiles and accumulators are allocated; global tensors are not.
    if ((block[dc::kAllocSize] > 0) != (kLevel[b] != MemScope::kGlobal)) return at + "alloc";
  }
  // The movement: A -> A's tile, B -> B's tile, both tiles read by the
  // compute into the accumulator that block 0 initialised. (Which tile
  // blocks 5 and 6 read depends on the order of the compute's reads: conv2d
  // fetches W first but reads the padded input first.)
  const AccessRecord* r = trace.records.data() + trace.match;
  if (r[0].buffer != r[7].buffer) return "accumulator";
  const bool same_order = r[2].buffer == r[6].buffer && r[4].buffer == r[5].buffer;
  const bool crossed = r[2].buffer == r[5].buffer && r[4].buffer == r[6].buffer;
  if (!same_order && !crossed) return "tiles";
  if (r[1].buffer == r[3].buffer || r[2].buffer == r[4].buffer) return "two inputs";
  // The compute does float work; the fetches only move data.
  if (f.block(7)[dc::kFloatOp] <= 0 || f.block(1)[dc::kFloatOp] != 0) return "float_op";
  return "";
}

class RandomScheduleDataflow : public ::testing::TestWithParam<Case> {};

TEST_P(RandomScheduleDataflow, BlocksAreWellFormedAndDeterministic) {
  const Case c = GetParam();
  const DeviceProfile device = c.gpu ? testing::TestGpu() : testing::TestCpu();
  const std::vector<State> states =
      testing::SampleRandomStates(c.spec, device, kSchedulesPerCase, /*seed=*/5);
  ASSERT_EQ(states.size(), kSchedulesPerCase);

  std::vector<DataflowFeatures> first(states.size());
  std::vector<bool> lowered(states.size(), false);
  int matched = 0, num_lowered = 0, failures = 0;
  for (size_t i = 0; i < states.size() && failures < 5; ++i) {
    absl::StatusOr<Program> program = Lower(states[i], device);
    if (!program.ok()) continue;
    lowered[i] = true;
    ++num_lowered;
    DataflowTrace trace;
    first[i] = ExtractDataflowFeatures(*program, device, &trace);
    const DataflowFeatures& f = first[i];
    std::string problem;
    for (float v : f.blocks) {
      // Slogs of non-negative quantities and one-hot bits.
      if (!std::isfinite(v) || v < 0) problem = "value " + std::to_string(v);
    }
    if (problem.empty() && f.has_pattern != (trace.match >= 0)) problem = "has_pattern";
    // Where the pattern must be: on GPUs, a program staging two inputs in
    // shared memory (Ansor's sketches do so for tiled reductions only); on
    // CPUs, a program whose tiles were staged.
    int shared_buffers = 0;
    for (const Buffer& b : program->buffers) shared_buffers += b.scope == MemScope::kShared;
    const bool expected = c.gpu ? shared_buffers == 2 : trace.staged;
    if (problem.empty() && f.has_pattern != expected) problem = "pattern where not expected or v.v.";
    if (problem.empty() && f.has_pattern) problem = CheckPattern(f, trace);
    if (problem.empty() && !f.has_pattern) {
      for (float v : f.blocks) {
        if (v != 0) problem = "no pattern but non-zero blocks";
      }
    }
    if (!problem.empty()) {
      ADD_FAILURE() << problem << "\ndigits " << trace.digits << "\n"
                    << states[i].ToSentence() << "\n"
                    << trace.analysed.ToString();
      ++failures;
    }
    matched += f.has_pattern ? 1 : 0;
  }
  EXPECT_GE(num_lowered, static_cast<int>(states.size()) * 9 / 10);
  std::printf("%s %s: pattern in %d of %d lowered schedules\n", c.spec, c.gpu ? "gpu" : "cpu",
              matched, num_lowered);
  if (c.tiled) {
    // CPU conv2d keeps its padding a stage of its own (root or computed at
    // a loop of the conv), and fewer of its random schedules stage tiles.
    EXPECT_GE(matched * 5, num_lowered);
  } else {
    EXPECT_EQ(matched, 0);
  }

  // Again from the states, lowered afresh, in reverse order, on another
  // thread with its own scratch: bit-identical.
  std::vector<DataflowFeatures> second(states.size());
  std::thread worker([&] {
    for (size_t i = states.size(); i-- > 0;) {
      absl::StatusOr<Program> program = Lower(states[i], device);
      if (program.ok()) second[i] = ExtractDataflowFeatures(*program, device);
    }
  });
  worker.join();
  for (size_t i = 0; i < states.size(); ++i) {
    if (!lowered[i]) continue;
    EXPECT_EQ(second[i].has_pattern, first[i].has_pattern);
    ASSERT_EQ(std::memcmp(second[i].blocks.data(), first[i].blocks.data(),
                          sizeof(float) * kDataflowFeatureSize),
              0)
        << "state " << i << " changed: " << states[i].ToSentence();
  }
}

INSTANTIATE_TEST_SUITE_P(
    Operators, RandomScheduleDataflow,
    ::testing::Values(
        Case{"dense:M=128,K=256,N=64,bias=1,act=relu", false, true},
        Case{"dense:M=128,K=256,N=64,bias=1,act=relu", true, true},
        Case{"conv2d:N=1,C=16,H=14,W=14,K=32,R=3,S=3,stride=1,pad=1", false, true},
        Case{"conv2d:N=1,C=16,H=14,W=14,K=32,R=3,S=3,stride=1,pad=1", true, true},
        Case{"batch_matmul:B=4,M=32,K=64,N=32", false, true},
        Case{"batch_matmul:B=4,M=32,K=64,N=32", true, true},
        Case{"relu:shape=64x256", false, false}, Case{"relu:shape=64x256", true, false},
        Case{"add:shape=16x32x32", false, false}, Case{"add:shape=16x32x32", true, false},
        Case{"softmax:M=64,N=200", false, false}, Case{"softmax:M=64,N=200", true, false},
        Case{"max_pool2d:C=16,H=28,W=28,kernel=3,stride=2,pad=1", false, false},
        Case{"max_pool2d:C=16,H=28,W=28,kernel=3,stride=2,pad=1", true, false}),
    CaseName);

}  // namespace
}  // namespace pruner
