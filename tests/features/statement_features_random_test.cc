// Random sketch schedules of several operators on a CPU and a GPU profile:
// every row is finite, non-negative and well-formed (one-hots), the rows
// match the stored buffers, and extraction is deterministic and free of
// state leaking from one program to the next.
#include <cmath>
#include <ostream>
#include <set>
#include <string>
#include <thread>
#include <vector>

#include "common/features/feature_columns.h"
#include "common/features/statement_features.h"
#include "common/lower/lower.h"
#include "gtest/gtest.h"
#include "tests/features/feature_test_util.h"
#include "tests/features/random_states.h"
#include "tests/lower/lower_test_util.h"

namespace pruner {
namespace {

namespace fc = feature_columns;

constexpr int kSchedulesPerCase = 200;

struct Case {
  const char* spec;
  bool gpu;
};

void PrintTo(const Case& c, std::ostream* os) { *os << c.spec << (c.gpu ? " gpu" : " cpu"); }

std::string CaseName(const ::testing::TestParamInfo<Case>& info) {
  return testing::OperatorCaseName(info.param.spec, info.param.gpu);
}

// Distinct buffers stored to, in first-store order.
std::vector<int> StoredBuffers(const Program& program) {
  std::vector<int> order;
  std::set<int> seen;
  for (const Kernel& kernel : program.kernels) {
    VisitStmt(kernel.body, [&](const StmtNode& s) {
      if (s.kind == StmtKind::kStore && seen.insert(s.buffer).second) order.push_back(s.buffer);
    });
  }
  return order;
}

float Sum(const float* begin, int n) {
  float s = 0;
  for (int i = 0; i < n; ++i) s += begin[i];
  return s;
}

// Structural checks of one row; returns a description of the first problem.
std::string CheckRow(const StatementFeatures& r, bool gpu) {
  const std::vector<std::string>& names = StatementFeatureNames();
  for (int i = 0; i < kNumStatementFeatures; ++i) {
    // Every column is a slog of a non-negative quantity, a one-hot bit or a
    // ratio of two logs of quantities >= 1.
    if (!std::isfinite(r[i]) || r[i] < 0) return names[i] + " = " + std::to_string(r[i]);
  }
  for (int block : {fc::kVecBlock, fc::kUnrollBlock, fc::kParallelBlock}) {
    if (Sum(&r[block + fc::kAnnPosNone], 8) != 1.0f) return names[block] + ": position one-hot";
    if ((r[block + fc::kAnnNum] == 0) != (r[block + fc::kAnnPosNone] == 1.0f)) {
      return names[block] + ": num vs position";
    }
  }
  if (r[fc::kIsGpu] != (gpu ? 1.0f : 0.0f)) return "is_gpu";
  if (gpu && r[fc::kParallelBlock + fc::kAnnNum] != 0) return "parallel loop on a GPU";
  // The written buffer's slot is always there: slot 0 is never empty.
  bool empty_seen = false;
  for (int s = 0; s < fc::kMaxBufferSlots; ++s) {
    const float* slot = &r[fc::BufferColumn(s, 0)];
    const float acc = Sum(slot + fc::kAccRead, 3);
    const float reuse = Sum(slot + fc::kReuseLoopMultipleRead, 3);
    if (acc == 0) {
      empty_seen = true;
      if (Sum(slot, fc::kBufferSlotWidth) != 0) return "padding slot " + std::to_string(s);
      continue;
    }
    if (empty_seen) return "slot after padding " + std::to_string(s);
    if (acc != 1.0f || reuse != 1.0f) return "one-hot of slot " + std::to_string(s);
  }
  if (Sum(&r[fc::BufferColumn(0, 0)], 3) != 1.0f) return "slot 0 empty";
  // A statement executes at least once; slog(1) == 1.
  if (r[fc::kOuterProd] < 1.0f) return "outer_prod";
  return "";
}

class RandomScheduleFeatures : public ::testing::TestWithParam<Case> {};

TEST_P(RandomScheduleFeatures, RowsAreFiniteWellFormedAndDeterministic) {
  const Case c = GetParam();
  const DeviceProfile device = c.gpu ? testing::TestGpu() : testing::TestCpu();
  const std::vector<State> states =
      testing::SampleRandomStates(c.spec, device, kSchedulesPerCase, /*seed=*/11);
  ASSERT_EQ(states.size(), kSchedulesPerCase);

  std::vector<ProgramFeatures> first(states.size());
  int failures = 0;
  size_t lowered = 0;
  for (size_t i = 0; i < states.size() && failures < 5; ++i) {
    const State& state = states[i];
    absl::StatusOr<Program> program = Lower(state, device);
    absl::StatusOr<ProgramFeatures> features = ExtractStateFeatures(state, device);
    // Lowering fails exactly when extraction does, with the same error.
    ASSERT_EQ(program.ok(), features.ok()) << state.ToSentence();
    if (!program.ok()) {
      EXPECT_EQ(program.status(), features.status());
      continue;
    }
    ++lowered;
    first[i] = *features;
    const std::vector<int> stored = StoredBuffers(*program);
    if (features->size() != stored.size()) {
      ADD_FAILURE() << features->size() << " rows for " << stored.size() << " stored buffers\n"
                    << program->ToString();
      ++failures;
    }
    for (const StatementFeatures& row : *features) {
      const std::string problem = CheckRow(row, c.gpu);
      if (!problem.empty()) {
        ADD_FAILURE() << problem << "\n"
                      << state.ToSentence() << "\n"
                      << program->ToString() << testing::DescribeRow(row);
        ++failures;
        break;
      }
    }
  }
  // The sampler promises schedules within the device's limits.
  EXPECT_GE(lowered, states.size() * 9 / 10);
  // Again, in reverse order and on another thread (with its own scratch):
  // nothing may depend on what was extracted before.
  std::vector<ProgramFeatures> second(states.size());
  std::thread worker([&] {
    for (size_t i = states.size(); i-- > 0;) {
      absl::StatusOr<ProgramFeatures> again = ExtractStateFeatures(states[i], device);
      if (again.ok()) second[i] = *std::move(again);
    }
  });
  worker.join();
  for (size_t i = 0; i < states.size(); ++i) {
    ASSERT_EQ(second[i], first[i]) << "state " << i << " changed: " << states[i].ToSentence();
  }
}

INSTANTIATE_TEST_SUITE_P(
    Operators, RandomScheduleFeatures,
    ::testing::Values(Case{"dense:M=128,K=256,N=64,bias=1,act=relu", false},
                      Case{"dense:M=128,K=256,N=64,bias=1,act=relu", true},
                      Case{"conv2d:N=1,C=16,H=14,W=14,K=32,R=3,S=3,stride=1,pad=1", false},
                      Case{"conv2d:N=1,C=16,H=14,W=14,K=32,R=3,S=3,stride=1,pad=1", true},
                      Case{"softmax:M=64,N=200", false}, Case{"softmax:M=64,N=200", true},
                      Case{"layer_norm:M=32,N=256", false}, Case{"layer_norm:M=32,N=256", true},
                      Case{"max_pool2d:C=16,H=28,W=28,kernel=3,stride=2,pad=1", false},
                      Case{"max_pool2d:C=16,H=28,W=28,kernel=3,stride=2,pad=1", true}),
    CaseName);

}  // namespace
}  // namespace pruner
