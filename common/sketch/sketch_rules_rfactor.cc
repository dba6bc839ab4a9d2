// Reduction factorization: split a long reduction so that its partial
// results can be computed in parallel (CPU: threads or vector lanes; GPU:
// threads), then reduce the partials.
//
// The split is built with length 1, because State can only rfactor a split
// whose lengths are known, and recorded in SketchRecord::rfactor_splits so
// that sketch generation reopens it and annotation samples it (the "rfactor
// hack", ansor.md §1.3).
#include <algorithm>
#include <memory>

#include "absl/strings/str_cat.h"
#include "common/base/status_macros.h"
#include "common/sketch/sketch_rules.h"
#include "common/sketch/sketch_state_queries.h"
#include "common/sketch/sketch_tiling.h"

namespace pruner {
namespace {

// Fuses the reduce loops of an untransformed stage (spatial loops first,
// then reduce loops, as State builds them) and splits the result by [1].
// Returns the number of spatial loops, which is where the two split parts
// now sit.
absl::StatusOr<int> FuseAndSplitReduction(SketchCandidate* c) {
  const Stage& stage = c->state.stage(c->stage);
  const int num_spatial = static_cast<int>(stage.op->axes.size());
  const int num_loops = static_cast<int>(stage.iters.size());
  if (num_loops <= num_spatial) {
    return absl::FailedPreconditionError(
        absl::StrCat("stage '", stage.op->name, "' has no reduce loop to factor"));
  }
  if (num_loops - num_spatial > 1) {
    std::vector<int> reduce_loops;
    for (int i = num_spatial; i < num_loops; ++i) reduce_loops.push_back(i);
    PRUNER_RETURN_IF_ERROR(c->state.Apply(FuseStep(c->stage, reduce_loops)));
  }
  const int64_t extent = c->state.stage(c->stage).iter_extent(num_spatial);
  if (absl::Status st = c->state.Apply(SplitStep(c->stage, num_spatial, extent, {int64_t{1}}));
      !st.ok()) {
    return st;
  }
  c->record.rfactor_splits.push_back(static_cast<int>(c->state.steps().size()) - 1);
  return num_spatial;
}

bool IsRfactorable(const SketchCandidate& in) {
  const Stage& stage = in.state.stage(in.stage);
  // A stage rfactor made (attr "rfactor") is never factored again: its
  // reduction is already the outer part of one.
  return !stage.is_placeholder() && IsUntransformedRoot(stage) && stage.has_reduce() &&
         stage.op->attrs.count("rfactor") == 0 &&
         stage.op->reduce != ReduceKind::kNone &&
         in.record.cache_writes.count(stage.op->id) == 0 &&
         in.state.AttachedStages(in.stage, -1).empty();
}

// True when the stage's operands are contiguous only along its innermost
// reduce axis: every multi-dimensional read's last index is that axis with
// coefficient 1 and uses no spatial axis (dense with weights stored [N,K],
// batch_matmul with transposed B). Vectorizing a spatial axis then gathers
// with a stride of the row length, so the only contiguous vectors lie along
// the reduction, and they need rfactor to become a spatial (vectorizable)
// axis.
bool ContiguousOnlyAlongReduction(const Stage& stage) {
  const Op& op = *stage.op;
  if (op.reduce_axes.empty()) return false;
  const int num_spatial = static_cast<int>(op.axes.size());
  const int inner_reduce = op.num_axes() - 1;  // var id of the last reduce axis
  int contiguous_reads = 0;
  bool ok = true;
  VisitExpr(op.body, [&](const ExprNode& node) {
    if (!ok || node.kind != ExprKind::kRead || node.args.size() < 2) return;
    AffineForm last;
    if (!ToAffine(node.args.back(), &last)) {
      ok = false;
      return;
    }
    bool unit_reduce = false;
    for (const auto& [var, coeff] : last.terms) {
      if (var < num_spatial) ok = false;  // contiguous along a spatial axis
      if (var == inner_reduce && coeff == 1) unit_reduce = true;
    }
    if (unit_reduce) ++contiguous_reads;
    else ok = false;
  });
  return ok && contiguous_reads >= 2;
}

// CPU (Ansor's AddRfactor). Two sketches: factor the outer part (partials
// over chunks of the reduction, parallel across cores), or the inner part
// moved innermost (partials across adjacent elements, vectorizable).
//
// Departure: Ansor factors only when the spatial space is small. We also
// factor when the operands' layout makes the reduction the only contiguous
// axis (ContiguousOnlyAlongReduction); without it a dense with [N,K]
// weights has no vectorizable loop at all. Both keep the unfactored
// sketches (kApply).
class CpuRfactorRule : public SketchRule {
 public:
  const char* name() const override { return "AddRfactor"; }
  RuleCondition MeetCondition(const SketchContext& ctx,
                              const SketchCandidate& in) const override {
    if (!IsRfactorable(in)) return RuleCondition::kSkip;
    const auto [space, reduce] = SpaceAndReduceLength(in.state.stage(in.stage));
    const int64_t cores = std::max(1, ctx.device.num_cores);
    bool needs;
    if (ctx.analysis.NeedsMultiLevelTiling(in.stage)) {
      // Tiling already finds enough parallelism in the spatial loops unless
      // they are few.
      needs = (space <= reduce && space <= 16 * cores) ||
              ContiguousOnlyAlongReduction(in.state.stage(in.stage));
    } else {
      needs = reduce > cores;
    }
    return needs ? RuleCondition::kApply : RuleCondition::kSkip;
  }
  absl::StatusOr<std::vector<SketchCandidate>> Apply(const SketchContext& ctx,
                                                     const SketchCandidate& in) const override {
    const bool layout_driven = ContiguousOnlyAlongReduction(in.state.stage(in.stage));
    SketchCandidate base = in;
    PRUNER_ASSIGN_OR_RETURN(auto num_spatial, FuseAndSplitReduction(&base));
    const int n = num_spatial;
    std::vector<SketchCandidate> out;
    for (int part = 0; part < 2; ++part) {
      SketchCandidate c = base;
      // The factored loop becomes the last spatial axis of the ".rf" stage,
      // which takes index in.stage; the original moves to in.stage + 1.
      PRUNER_RETURN_IF_ERROR(c.state.Apply(RfactorStep(in.stage, n + part, n)));
      if (part == 1) {
        // rf loops: spatial..., factored, remaining reduce -> factored last.
        std::vector<int> order;
        for (int i = 0; i < n; ++i) order.push_back(i);
        order.push_back(n + 1);
        order.push_back(n);
        PRUNER_RETURN_IF_ERROR(c.state.Apply(ReorderStep(in.stage, order)));
      }
      c.record.trace.back() = absl::StrCat(name(), part == 0 ? "(outer)@" : "(inner)@", in.stage);
      if (layout_driven && part == 1 && ctx.analysis.NeedsMultiLevelTiling(in.stage)) {
        PRUNER_ASSIGN_OR_RETURN(auto fused, TileWithinFinalSum(ctx, c, n));
        for (SketchCandidate& f : fused) out.push_back(std::move(f));
        continue;
      }
      // The ".rf" stage itself is left to annotation (Ansor does the same),
      // except the vectorizable inner variant of a layout-driven rfactor,
      // whose derivation goes on with the ".rf" stage (a reduction without
      // data reuse, such as a row sum, gets no tiles).
      c.stage = (layout_driven && part == 1) ? in.stage : in.stage - 1;
      out.push_back(std::move(c));
    }
    return out;
  }

 private:
  // The vectorizable inner variant of a layout-driven rfactor of a stage
  // with data reuse (dense): the ".rf" stage (at in.stage) holds all of the
  // work, so it gets register tiles whose innermost spatial loop is the
  // factored (contiguous) axis, and it is computed inside a tile of the
  // final sum (in.stage + 1), which follows its first `num_spatial` spatial
  // splits at each fusion level and sums the lanes innermost. The partials then live in a tile-sized buffer; a
  // root ".rf" stage would write and re-read num_spatial-space x lanes
  // floats (64 MiB for dense 1024^3 with 16 lanes), which held tuned dense
  // kernels at ~0.45 of OpenBLAS.
  static absl::StatusOr<std::vector<SketchCandidate>> TileWithinFinalSum(
      const SketchContext& ctx, const SketchCandidate& in, int num_spatial) {
    SketchCandidate base = in;
    PRUNER_ASSIGN_OR_RETURN(auto splits,
                            ApplyMultiLevelTiling(&base.state, in.stage, ctx.structure()));
    base.record.tiled[base.state.stage(in.stage).op->id] = splits;
    const std::vector<int> followed(splits.begin(), splits.begin() + num_spatial);
    return FuseIntoConsumerAtLevels(ctx, base, in.stage, in.stage + 1, followed, [&](int level) {
      return absl::StrCat("AddRfactor(inner, fused level ", level, ")@", in.stage);
    });
  }
};

// GPU stand-in for Ansor's CrossThreadReduction.
//
// Departure: Ansor binds the inner part of the split reduction to
// threadIdx.x and lets the code generator emit a cross-thread (warp/shared
// memory) reduction. Our lowering does not support reduce loops bound to
// threads, so we rfactor instead: the inner part of the split becomes a
// spatial axis of a ".rf" stage, whose partial reductions are computed by
// independent threads (adjacent threads read adjacent elements, so the
// loads coalesce), and the original stage then sums the partials. Same
// condition as CrossThreadReduction; Apply, so the untouched variant (one
// thread per output, serial reduction) is kept as well.
class GpuRfactorRule : public SketchRule {
 public:
  const char* name() const override { return "RfactorReduction"; }
  RuleCondition MeetCondition(const SketchContext& ctx,
                              const SketchCandidate& in) const override {
    if (!IsRfactorable(in)) return RuleCondition::kSkip;
    const auto [space, reduce] = SpaceAndReduceLength(in.state.stage(in.stage));
    if (ctx.analysis.NeedsMultiLevelTiling(in.stage)) {
      // Enough spatial parallelism for a tiled kernel: tiling wins.
      if (space > ctx.device.max_threads_per_block) return RuleCondition::kSkip;
      return space < reduce ? RuleCondition::kApply : RuleCondition::kSkip;
    }
    return reduce > ctx.device.warp_size ? RuleCondition::kApply : RuleCondition::kSkip;
  }
  absl::StatusOr<std::vector<SketchCandidate>> Apply(const SketchContext&,
                                                     const SketchCandidate& in) const override {
    SketchCandidate c = in;
    PRUNER_ASSIGN_OR_RETURN(auto num_spatial, FuseAndSplitReduction(&c));
    if (absl::Status st = c.state.Apply(RfactorStep(in.stage, num_spatial + 1, num_spatial));
        !st.ok()) {
      return st;
    }
    c.stage = in.stage - 1;
    return std::vector<SketchCandidate>{std::move(c)};
  }
};

}  // namespace

std::unique_ptr<SketchRule> MakeCpuRfactorRule() { return std::make_unique<CpuRfactorRule>(); }
std::unique_ptr<SketchRule> MakeGpuRfactorRule() { return std::make_unique<GpuRfactorRule>(); }

}  // namespace pruner
