#include "tests/features/feature_test_util.h"

#include <cmath>
#include <vector>

#include "absl/strings/str_cat.h"
#include "gtest/gtest.h"

namespace pruner::testing {

std::string DescribeRow(const StatementFeatures& row) {
  const std::vector<std::string>& names = StatementFeatureNames();
  std::string out;
  for (int i = 0; i < kNumStatementFeatures; ++i) {
    if (row[i] != 0.0f) absl::StrAppend(&out, "  ", i, " ", names[i], "=", row[i], "\n");
  }
  return out;
}

StatementFeatures RowOfBuffer(const Program& program, const ProgramFeatures& features,
                              const std::string& name) {
  // Rows follow the first store of each buffer in program order.
  std::vector<int> order;
  for (const Kernel& kernel : program.kernels) {
    VisitStmt(kernel.body, [&](const StmtNode& s) {
      const bool stores = s.kind == StmtKind::kStore;
      if (!stores) return;
      for (int b : order) {
        if (b == s.buffer) return;
      }
      order.push_back(s.buffer);
    });
  }
  for (size_t r = 0; r < order.size() && r < features.size(); ++r) {
    if (program.buffer(order[r]).name == name) return features[r];
  }
  ADD_FAILURE() << "no feature row for buffer " << name;
  StatementFeatures zero{};
  return zero;
}

float SlogOf(double x) { return static_cast<float>(x < 0 ? -std::log2(1 - x) : std::log2(1 + x)); }

}  // namespace pruner::testing
