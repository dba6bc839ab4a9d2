// The sketch rules (ansor.md §2.2). Each rule looks at one (state, stage)
// pair of a derivation and either does not apply, or rewrites the state and
// says which stage to look at next.
#ifndef PRUNER_COMMON_SKETCH_SKETCH_RULES_H_
#define PRUNER_COMMON_SKETCH_SKETCH_RULES_H_

#include <functional>
#include <memory>
#include <string>
#include <vector>

#include "absl/status/statusor.h"
#include "common/device/device_profile.h"
#include "common/sketch/access_analysis.h"
#include "common/sketch/sketch.h"
#include "common/schedule/state.h"

namespace pruner {

// One node of the derivation: a partial sketch and the stage to decide next.
struct SketchCandidate {
  State state;
  SketchRecord record;
  int stage = 0;  // < 0: the sketch is finished
};

// What every rule may consult.
struct SketchContext {
  const DeviceProfile& device;
  const SketchOptions& options;
  // Access analysis of the candidate's current DAG (rebuilt by the engine
  // for each candidate, since cache and rfactor steps change the DAG).
  const AccessAnalysis& analysis;
  bool is_gpu() const { return device.IsGpu(); }
  const std::string& structure() const {
    return is_gpu() ? options.gpu_structure : options.cpu_structure;
  }
};

enum class RuleCondition {
  kSkip,              // not applicable; try the next rule
  kApply,             // apply, then keep trying later rules on the same input
  kApplyAndSkipRest,  // apply and stop
};

class SketchRule {
 public:
  virtual ~SketchRule() = default;
  virtual const char* name() const = 0;
  virtual RuleCondition MeetCondition(const SketchContext& ctx,
                                      const SketchCandidate& input) const = 0;
  // The derived candidates. An error means a rule built an invalid step,
  // which is a bug, so the whole generation fails loudly.
  virtual absl::StatusOr<std::vector<SketchCandidate>> Apply(
      const SketchContext& ctx, const SketchCandidate& input) const = 0;
};

using SketchRuleList = std::vector<std::unique_ptr<SketchRule>>;

// Tiling with fusion, shared by the fusion and rfactor rules: for each
// fusion level of the device (a spatial level of the structure), the
// consumer follows `followed_splits` (the tiled producer's spatial SP steps
// it follows) up to that level and the producer is computed inside it.
// One candidate per level, traced as trace(level), continuing at
// producer - 1.
absl::StatusOr<std::vector<SketchCandidate>> FuseIntoConsumerAtLevels(
    const SketchContext& ctx, const SketchCandidate& tiled, int producer, int consumer,
    const std::vector<int>& followed_splits, const std::function<std::string(int)>& trace);

// CPU: SimplifyComputeWithConstTensor, AlwaysInline, AddRfactor, AddCacheWrite, MultiLevelTilingWithFusion,
// MultiLevelTiling, SkipStage.
SketchRuleList CpuSketchRules();
// GPU: AddCacheRead, AlwaysInline, RfactorReduction (our stand-in for
// CrossThreadReduction), AddCacheWrite, MultiLevelTilingWithFusion,
// MultiLevelTiling, SkipStage.
SketchRuleList GpuSketchRules();

// ---- Rule factories, one per rule (sketch_rules_*.cc). ---------------------
std::unique_ptr<SketchRule> MakeSkipStageRule();
std::unique_ptr<SketchRule> MakeAlwaysInlineRule();
std::unique_ptr<SketchRule> MakeAddCacheReadRule();
std::unique_ptr<SketchRule> MakeAddCacheWriteRule();
std::unique_ptr<SketchRule> MakeMultiLevelTilingRule();
std::unique_ptr<SketchRule> MakeMultiLevelTilingWithFusionRule();
std::unique_ptr<SketchRule> MakeCpuRfactorRule();
std::unique_ptr<SketchRule> MakeSimplifyTransformRule();
std::unique_ptr<SketchRule> MakeGpuRfactorRule();

}  // namespace pruner

#endif  // PRUNER_COMMON_SKETCH_SKETCH_RULES_H_
