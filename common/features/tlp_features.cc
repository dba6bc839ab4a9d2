#include "common/features/tlp_features.h"

#include <algorithm>
#include <array>
#include <cmath>

namespace pruner {
namespace {

// The one-hot slot of each step kind (0-based), -1 where the platform's
// table has none (TLP then emits an all-zero one-hot, §2.2).
int KindSlot(StepKind kind, bool gpu) {
  switch (kind) {
    case StepKind::kComputeInline: return gpu ? 3 : 0;
    case StepKind::kReorder: return gpu ? 8 : 1;
    case StepKind::kAnnotation: return gpu ? 0 : 2;
    case StepKind::kRfactor: return gpu ? -1 : 3;
    case StepKind::kCacheWrite: return gpu ? 2 : 4;
    case StepKind::kSplit: return gpu ? 6 : 5;
    case StepKind::kComputeRoot: return gpu ? -1 : 6;
    case StepKind::kComputeAt: return gpu ? 4 : 7;
    case StepKind::kFuse: return gpu ? 7 : 8;
    case StepKind::kFollowSplit: return gpu ? 10 : 9;
    case StepKind::kPragma: return gpu ? 9 : 10;
    case StepKind::kCacheRead: return gpu ? 1 : -1;
    case StepKind::kFollowFusedSplit: return gpu ? 5 : -1;
  }
  return -1;
}

// TLP's unroll-pragma vocabularies (order of first appearance in its data).
float PragmaToken(int64_t max_step, bool gpu) {
  static constexpr std::array<int64_t, 4> kCpu = {16, 0, 512, 64};
  static constexpr std::array<int64_t, 5> kGpu = {0, 16, 64, 1024, 512};
  if (gpu) {
    auto it = std::find(kGpu.begin(), kGpu.end(), max_step);
    return it == kGpu.end() ? 0.0f : static_cast<float>(it - kGpu.begin() + 1);
  }
  auto it = std::find(kCpu.begin(), kCpu.end(), max_step);
  return it == kCpu.end() ? 0.0f : static_cast<float>(it - kCpu.begin() + 1);
}

float ScopeToken(const std::string& scope) {
  if (scope == "local") return 1;
  if (scope == "shared") return 2;
  if (scope == "global") return 3;
  return 0;
}

}  // namespace

TlpFeatureShape TlpShapeFor(const DeviceProfile& device) {
  return device.IsGpu() ? TlpFeatureShape{40, 20} : TlpFeatureShape{25, 22};
}

std::vector<float> TlpStepRow(const Step& s, bool gpu) {
  std::vector<float> row(kTlpStepKinds, 0.0f);
  if (const int slot = KindSlot(s.kind, gpu); slot >= 0) row[slot] = 1;
  auto push = [&](double v) { row.push_back(static_cast<float>(v)); };
  auto push_ints = [&](const std::vector<int>& values) {
    for (int v : values) push(v);
  };
  push(s.stage);
  switch (s.kind) {
    case StepKind::kSplit:
      push(s.iter);
      push(s.extent);
      for (const auto& length : s.lengths) push(length.value_or(0));
      push(1);  // inner_to_outer: our splits list inner lengths, as Ansor's do
      break;
    case StepKind::kFollowSplit:
      push(s.iter);
      push(s.src_step);
      push(s.n_split);
      break;
    case StepKind::kFollowFusedSplit:
      push(s.iter);
      push_ints(s.ints);
      push(s.level);
      push(s.factor ? 1 : 0);
      break;
    case StepKind::kReorder:
    case StepKind::kFuse:
      push_ints(s.ints);
      break;
    case StepKind::kAnnotation:
      push(s.iter);
      push(static_cast<int>(s.annotation));  // Ansor's enum order (step.h)
      break;
    case StepKind::kPragma:
      push(s.iter);
      push(PragmaToken(s.pragma_value, gpu));
      break;
    case StepKind::kComputeAt:
      push(s.target_stage);
      push(s.target_iter);
      break;
    case StepKind::kComputeInline:
    case StepKind::kComputeRoot:
      break;
    case StepKind::kCacheRead:
      push(1);  // TLP writes a constant for the scope ("shared")
      push_ints(s.ints);
      break;
    case StepKind::kCacheWrite:
      push(ScopeToken(s.scope));
      break;
    case StepKind::kRfactor:
      push(s.iter);
      push(s.factor_iter);
      break;
  }
  return row;
}

std::vector<float> TlpFeatures(const std::vector<Step>& steps, bool gpu,
                               const TlpFeatureShape& shape) {
  std::vector<float> matrix(static_cast<size_t>(shape.rows) * shape.columns, 0.0f);
  const int n = std::min<int>(static_cast<int>(steps.size()), shape.rows);
  for (int r = 0; r < n; ++r) {
    const std::vector<float> row = TlpStepRow(steps[r], gpu);
    const int width = std::min<int>(static_cast<int>(row.size()), shape.columns);
    std::copy(row.begin(), row.begin() + width, matrix.begin() + r * shape.columns);
  }
  return matrix;
}

void TlpLogPayload(const TlpFeatureShape& shape, std::vector<float>& matrix) {
  for (size_t r = 0; r * shape.columns < matrix.size(); ++r) {
    for (int c = kTlpStepKinds; c < shape.columns; ++c) {
      float& x = matrix[r * shape.columns + c];
      x = std::copysign(std::log2(1.0f + std::fabs(x)), x);
    }
  }
}

}  // namespace pruner
