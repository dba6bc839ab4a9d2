// AddCacheWrite, MultiLevelTilingWithFusion and MultiLevelTiling: the rules
// that give data-reusing stages their tiled loop nests.
#include <functional>
#include <memory>
#include <string>
#include <vector>

#include "absl/strings/str_cat.h"
#include "common/base/status_macros.h"
#include "common/sketch/sketch_rules.h"
#include "common/sketch/sketch_state_queries.h"
#include "common/sketch/sketch_tiling.h"

namespace pruner {
namespace {

int TensorOf(const State& state, int stage) { return state.stage(stage).op->id; }

bool IsCacheWriteStage(const SketchCandidate& in) {
  return in.record.cache_writes.count(TensorOf(in.state, in.stage)) > 0;
}

// The element-wise consumer tiling-with-fusion would follow, or -1. Besides
// Ansor's HasSingleElementwiseMatchedConsumer, the consumer must still be an
// untransformed root stage with one loop per producer spatial axis: a
// consumer already tiled for another producer cannot follow a second one.
int FusibleConsumer(const SketchContext& ctx, const SketchCandidate& in) {
  int target = -1;
  if (!HasSingleElementwiseMatchedConsumer(in.state, ctx.analysis, in.stage, &target)) return -1;
  const Stage& consumer = in.state.stage(target);
  if (!IsUntransformedRoot(consumer) || consumer.has_reduce() ||
      consumer.op->axes.size() != in.state.stage(in.stage).op->axes.size()) {
    return -1;
  }
  return target;
}

// Spatial axes besides the last that a CPU register tile may put innermost
// (and vectorize): each read of the stage either ignores the axis or is a
// layout-free input that uses it, which lowering stores in the order of the
// loops that read it, as it does the cache's own buffer (layout_order.h).
// conv2d NCHW's output channels qualify: its weights are the only operand
// they index, and 16 output channels fill an AVX-512 register where the 56
// output columns of a ResNet layer cannot.
std::vector<int> AlternativeInnermostAxes(const State& state, int stage) {
  const Op& op = *state.stage(stage).op;
  std::vector<int> axes;
  for (int a = 0; a + 1 < static_cast<int>(op.axes.size()); ++a) {
    if (op.axes[a].extent <= 1) continue;
    bool ok = true;
    bool weight_uses_it = false;
    VisitExpr(op.body, [&](const ExprNode& n) {
      if (n.kind != ExprKind::kRead) return;
      bool uses = false;
      for (const Expr& index : n.args) uses = uses || UsesVar(index, a);
      if (!uses) return;
      const Op* source = state.current_dag().FindTensor(n.id);
      if (source != nullptr && source->is_layout_free()) {
        weight_uses_it = true;
      } else {
        ok = false;
      }
    });
    if (ok && weight_uses_it) axes.push_back(a);
  }
  return axes;
}

// Computes a tiled stage into a local buffer first, so its accumulation
// stays in registers and the original becomes an element-wise copy that the
// fusion rule then tiles around the cache (the next visit of the same stage
// index finds the cache stage). CPU keeps both variants (Apply), GPU always
// caches (ApplyAndSkipRest).
class AddCacheWriteRule : public SketchRule {
 public:
  const char* name() const override { return "AddCacheWrite"; }
  RuleCondition MeetCondition(const SketchContext& ctx,
                              const SketchCandidate& in) const override {
    const Stage& stage = in.state.stage(in.stage);
    if (stage.is_placeholder() || !IsUntransformedRoot(stage) ||
        !ctx.analysis.NeedsMultiLevelTiling(in.stage) || IsCacheWriteStage(in)) {
      return RuleCondition::kSkip;
    }
    if (HasSingleElementwiseMatchedConsumer(in.state, ctx.analysis, in.stage, nullptr)) {
      return RuleCondition::kSkip;
    }
    return ctx.is_gpu() ? RuleCondition::kApplyAndSkipRest : RuleCondition::kApply;
  }
  absl::StatusOr<std::vector<SketchCandidate>> Apply(const SketchContext&,
                                                     const SketchCandidate& in) const override {
    SketchCandidate out = in;
    PRUNER_RETURN_IF_ERROR(out.state.Apply(CacheWriteStep(in.stage, "local")));
    // The cache now sits at in.stage and the original at in.stage + 1.
    out.record.cache_writes.insert(TensorOf(out.state, in.stage));
    out.stage = in.stage;
    return std::vector<SketchCandidate>{std::move(out)};
  }
};

// Tiles the stage and its element-wise consumer together: the consumer
// follows the stage's first `level` spatial tile levels and the stage is
// computed inside that tile, so the consumer's work happens while the
// stage's output tile is still hot. CPU tries levels {1, 2}, GPU level 3
// (inside the thread tile).
class MultiLevelTilingWithFusionRule : public SketchRule {
 public:
  const char* name() const override { return "MultiLevelTilingWithFusion"; }
  RuleCondition MeetCondition(const SketchContext& ctx,
                              const SketchCandidate& in) const override {
    const Stage& stage = in.state.stage(in.stage);
    if (stage.is_placeholder() || !IsUntransformedRoot(stage) ||
        !ctx.analysis.NeedsMultiLevelTiling(in.stage) || FusibleConsumer(ctx, in) < 0) {
      return RuleCondition::kSkip;
    }
    return ctx.is_gpu() || IsCacheWriteStage(in) ? RuleCondition::kApplyAndSkipRest
                                                 : RuleCondition::kApply;
  }
  absl::StatusOr<std::vector<SketchCandidate>> Apply(const SketchContext& ctx,
                                                     const SketchCandidate& in) const override {
    std::vector<int> innermost = {-1};  // -1: the structure's own order
    if (!ctx.is_gpu()) {
      for (int axis : AlternativeInnermostAxes(in.state, in.stage)) innermost.push_back(axis);
    }
    std::vector<SketchCandidate> out;
    for (int axis : innermost) {
      PRUNER_ASSIGN_OR_RETURN(auto tiled, TileAndFuse(ctx, in, axis));
      for (SketchCandidate& c : tiled) out.push_back(std::move(c));
    }
    return out;
  }

 private:
  absl::StatusOr<std::vector<SketchCandidate>> TileAndFuse(const SketchContext& ctx,
                                                           const SketchCandidate& in,
                                                           int innermost_axis) const {
    const int consumer = FusibleConsumer(ctx, in);
    SketchCandidate base = in;
    PRUNER_ASSIGN_OR_RETURN(auto splits,
                            ApplyMultiLevelTiling(&base.state, in.stage, ctx.structure(), innermost_axis));
    base.record.tiled[TensorOf(base.state, in.stage)] = splits;
    const std::string axis_note =
        innermost_axis < 0
            ? ""
            : absl::StrCat(", ", in.state.stage(in.stage).op->axes[innermost_axis].name,
                           " innermost");
    return FuseIntoConsumerAtLevels(ctx, base, in.stage, consumer, splits, [&](int level) {
      return absl::StrCat(name(), "(level ", level, axis_note, ")@", in.stage);
    });
  }
};

// Plain multi-level tiling (no fusion, no cache).
class MultiLevelTilingRule : public SketchRule {
 public:
  const char* name() const override { return "MultiLevelTiling"; }
  RuleCondition MeetCondition(const SketchContext& ctx,
                              const SketchCandidate& in) const override {
    const Stage& stage = in.state.stage(in.stage);
    if (stage.is_placeholder() || !IsUntransformedRoot(stage) ||
        !ctx.analysis.NeedsMultiLevelTiling(in.stage)) {
      return RuleCondition::kSkip;
    }
    return RuleCondition::kApplyAndSkipRest;
  }
  absl::StatusOr<std::vector<SketchCandidate>> Apply(const SketchContext& ctx,
                                                     const SketchCandidate& in) const override {
    SketchCandidate out = in;
    PRUNER_ASSIGN_OR_RETURN(auto splits,
                            ApplyMultiLevelTiling(&out.state, in.stage, ctx.structure()));
    out.record.tiled[TensorOf(out.state, in.stage)] = splits;
    out.stage = in.stage - 1;
    return std::vector<SketchCandidate>{std::move(out)};
  }
};

}  // namespace

absl::StatusOr<std::vector<SketchCandidate>> FuseIntoConsumerAtLevels(
    const SketchContext& ctx, const SketchCandidate& tiled, int producer, int consumer,
    const std::vector<int>& followed_splits, const std::function<std::string(int)>& trace) {
  const std::vector<int>& levels =
      ctx.is_gpu() ? ctx.options.gpu_fusion_levels : ctx.options.cpu_fusion_levels;
  std::vector<SketchCandidate> out;
  for (int level : levels) {
    // Only a spatial tile level can be followed.
    if (level < 1 || level > static_cast<int>(ctx.structure().size()) ||
        ctx.structure()[level - 1] != 'S') {
      continue;
    }
    SketchCandidate c = tiled;
    PRUNER_ASSIGN_OR_RETURN(auto attach_iter,
                            ApplyFollowTiling(&c.state, consumer, followed_splits, level));
    if (absl::Status st = c.state.Apply(ComputeAtStep(producer, consumer, attach_iter));
        !st.ok()) {
      return st;
    }
    c.record.followers[TensorOf(c.state, consumer)] = followed_splits;
    c.record.trace.back() = trace(level);
    c.stage = producer - 1;
    out.push_back(std::move(c));
  }
  return out;
}

std::unique_ptr<SketchRule> MakeAddCacheWriteRule() {
  return std::make_unique<AddCacheWriteRule>();
}
std::unique_ptr<SketchRule> MakeMultiLevelTilingWithFusionRule() {
  return std::make_unique<MultiLevelTilingWithFusionRule>();
}
std::unique_ptr<SketchRule> MakeMultiLevelTilingRule() {
  return std::make_unique<MultiLevelTilingRule>();
}

}  // namespace pruner
