// SkipStage, AlwaysInline and the CPU/GPU rule lists.
#include <memory>

#include "common/base/status_macros.h"
#include "common/sketch/sketch_rules.h"
#include "common/sketch/sketch_state_queries.h"

namespace pruner {
namespace {

// Leaves the stage as it is. Always applies, last in every list, so a stage
// no other rule claimed still moves the derivation on.
class SkipStageRule : public SketchRule {
 public:
  const char* name() const override { return "SkipStage"; }
  RuleCondition MeetCondition(const SketchContext&, const SketchCandidate&) const override {
    return RuleCondition::kApply;
  }
  absl::StatusOr<std::vector<SketchCandidate>> Apply(const SketchContext&,
                                                     const SketchCandidate& in) const override {
    SketchCandidate out = in;
    out.stage = in.stage - 1;
    return std::vector<SketchCandidate>{std::move(out)};
  }
};

// Inlines element-wise work into its consumers. On GPU every inlineable op
// is inlined greedily (a separate kernel per element-wise op costs a trip
// through global memory); on CPU only strictly inlineable ones, so that
// expensive or gathering ops can still get their own loop nest or a compute
// location chosen by annotation.
class AlwaysInlineRule : public SketchRule {
 public:
  const char* name() const override { return "AlwaysInline"; }
  RuleCondition MeetCondition(const SketchContext& ctx,
                              const SketchCandidate& in) const override {
    const Stage& stage = in.state.stage(in.stage);
    if (stage.is_placeholder() || stage.compute_at == ComputeAtKind::kInlined ||
        ctx.analysis.IsOutput(in.stage) || HasReduceIter(stage) || stage.has_reduce()) {
      return RuleCondition::kSkip;
    }
    // A stage others are attached to cannot be inlined. A cache_write stage
    // exists to be tiled (the fusion rule comes next); inlining it would
    // only undo the cache (an element-wise op with broadcast reads can need
    // tiling and yet be inlineable).
    if (!in.state.AttachedStages(in.stage, -1).empty() ||
        in.record.cache_writes.count(stage.op->id) > 0) {
      return RuleCondition::kSkip;
    }
    if (!ctx.is_gpu() && !ctx.analysis.IsStrictlyInlineable(in.stage)) {
      return RuleCondition::kSkip;
    }
    return RuleCondition::kApplyAndSkipRest;
  }
  absl::StatusOr<std::vector<SketchCandidate>> Apply(const SketchContext&,
                                                     const SketchCandidate& in) const override {
    SketchCandidate out = in;
    PRUNER_RETURN_IF_ERROR(out.state.Apply(ComputeInlineStep(in.stage)));
    out.stage = in.stage - 1;
    return std::vector<SketchCandidate>{std::move(out)};
  }
};

}  // namespace

std::unique_ptr<SketchRule> MakeSkipStageRule() { return std::make_unique<SkipStageRule>(); }
std::unique_ptr<SketchRule> MakeAlwaysInlineRule() { return std::make_unique<AlwaysInlineRule>(); }

SketchRuleList CpuSketchRules() {
  SketchRuleList rules;
  rules.push_back(MakeSimplifyTransformRule());
  rules.push_back(MakeAlwaysInlineRule());
  rules.push_back(MakeCpuRfactorRule());
  rules.push_back(MakeAddCacheWriteRule());
  rules.push_back(MakeMultiLevelTilingWithFusionRule());
  rules.push_back(MakeMultiLevelTilingRule());
  rules.push_back(MakeSkipStageRule());
  return rules;
}

SketchRuleList GpuSketchRules() {
  SketchRuleList rules;
  rules.push_back(MakeAddCacheReadRule());
  rules.push_back(MakeAlwaysInlineRule());
  rules.push_back(MakeGpuRfactorRule());
  rules.push_back(MakeAddCacheWriteRule());
  rules.push_back(MakeMultiLevelTilingWithFusionRule());
  rules.push_back(MakeMultiLevelTilingRule());
  rules.push_back(MakeSkipStageRule());
  return rules;
}

}  // namespace pruner
