// Small fixed transforms: Ansor's RuleSimplifyComputeWithConstTensor, for
// the Winograd input and output transforms (common/ir/winograd.h).
//
// data_pack and inverse reduce over the 2 or 3 non-zeros of a row of a
// transform matrix that their first two spatial axes pick. Left to the
// general rules they get rfactor sketches (their reduction is longer than
// the core count) and loops whose coefficients are computed per element.
// Ansor instead fully unrolls the axes that index the constant matrix and
// the reduction, so every coefficient becomes a literal, and tiles the other
// spatial axes in two levels. Here the inner part of the last spatial axis
// (the channel, contiguous in NHWC) goes innermost, below the unrolled loops,
// vectorized:
//
//   p.0 ci.0 p.1 | eps nu r_a r_b (unrolled) | ci.1 (vectorized)
//
// Ansor marks such stages with the attribute
// "auto_scheduler_simplify_const_tensor"; ours are recognized by their
// stage tags.
#include <memory>
#include <optional>
#include <utility>

#include "common/base/status_macros.h"
#include "common/ir/winograd.h"
#include "common/sketch/sketch_rules.h"
#include "common/sketch/sketch_state_queries.h"

namespace pruner {
namespace {

// Number of leading spatial axes of `op` that index a transform matrix, or 0
// when op is not a transform stage.
int TransformAxes(const Op& op) {
  const auto tag = op.attrs.find("op");
  if (tag == op.attrs.end()) return 0;
  return tag->second == kWinogradDataPackTag || tag->second == kWinogradInverseTag ? 2 : 0;
}

class SimplifyTransformRule : public SketchRule {
 public:
  const char* name() const override { return "SimplifyComputeWithConstTensor"; }
  RuleCondition MeetCondition(const SketchContext&, const SketchCandidate& in) const override {
    const Stage& stage = in.state.stage(in.stage);
    if (stage.is_placeholder() || !IsUntransformedRoot(stage)) return RuleCondition::kSkip;
    const int transform_axes = TransformAxes(*stage.op);
    // At least one other spatial axis must remain to be tiled.
    if (transform_axes == 0 || static_cast<int>(stage.op->axes.size()) <= transform_axes) {
      return RuleCondition::kSkip;
    }
    return RuleCondition::kApplyAndSkipRest;
  }

  absl::StatusOr<std::vector<SketchCandidate>> Apply(const SketchContext&,
                                                     const SketchCandidate& in) const override {
    SketchCandidate c = in;
    const Op& op = *c.state.stage(in.stage).op;
    const int num_spatial = static_cast<int>(op.axes.size());
    const int num_reduce = static_cast<int>(op.reduce_axes.size());
    const int fixed = TransformAxes(op);
    // Split the other spatial axes in two, last first, so that the loop
    // index of each axis still to split is unchanged. Loops are then:
    // fixed axes, (outer, inner) per other axis, reduce axes.
    for (int axis = num_spatial - 1; axis >= fixed; --axis) {
      PRUNER_RETURN_IF_ERROR(c.state.Apply(
          SplitStep(in.stage, axis, op.axes[axis].extent, {std::optional<int64_t>()})));
    }
    auto outer = [&](int axis) { return fixed + 2 * (axis - fixed); };
    const int first_reduce = fixed + 2 * (num_spatial - fixed);
    std::vector<int> order;
    for (int axis = fixed; axis < num_spatial; ++axis) order.push_back(outer(axis));
    for (int axis = fixed; axis < num_spatial - 1; ++axis) order.push_back(outer(axis) + 1);
    std::vector<int> unrolled;  // positions in `order`
    for (int axis = 0; axis < fixed; ++axis) {
      unrolled.push_back(static_cast<int>(order.size()));
      order.push_back(axis);
    }
    for (int r = 0; r < num_reduce; ++r) {
      unrolled.push_back(static_cast<int>(order.size()));
      order.push_back(first_reduce + r);
    }
    order.push_back(outer(num_spatial - 1) + 1);
    PRUNER_RETURN_IF_ERROR(c.state.Apply(ReorderStep(in.stage, order)));
    for (int position : unrolled) {
      PRUNER_RETURN_IF_ERROR(
          c.state.Apply(AnnotationStep(in.stage, position, IterAnnotation::kUnroll)));
    }
    // Vectorized here rather than by annotation: annotation skips a loop
    // longer than the vector, and an auto-unroll pragma would then unroll it
    // inside the unrolled loops (36 x 64 copies of the body, 160k LLVM
    // instructions). A vector loop longer than the machine's vector becomes
    // a loop LLVM vectorizes.
    PRUNER_RETURN_IF_ERROR(c.state.Apply(
        AnnotationStep(in.stage, static_cast<int>(order.size()) - 1, IterAnnotation::kVectorize)));
    c.stage = in.stage - 1;
    return std::vector<SketchCandidate>{std::move(c)};
  }
};

}  // namespace

std::unique_ptr<SketchRule> MakeSimplifyTransformRule() {
  return std::make_unique<SimplifyTransformRule>();
}

}  // namespace pruner
