// AddCacheRead (GPU): stage the inputs of a tiled stage through shared
// memory, one tile of the outermost reduce level at a time.
#include <algorithm>
#include <memory>

#include "common/sketch/sketch_rules.h"
#include "common/sketch/sketch_state_queries.h"

namespace pruner {
namespace {

// A consumer that can read `stage` through a shared-memory cache: it is
// multi-level tiled by this derivation (so it has a reduce tile to attach
// to), it reduces, and it reads `stage` directly rather than through an
// inlined stage (cache_read rewrites the reader's own body).
//
// Ansor only inspects the first consumer and asks "needs multi-level tiling
// and has no cross-thread reduction". Asking "was multi-level tiled" is the
// same question for its rules, and also right for our rfactor stand-in,
// whose ".rf" stage needs tiling by the analysis but is never tiled.
bool CanCacheFor(const SketchCandidate& in, int consumer) {
  const Stage& c = in.state.stage(consumer);
  if (!in.record.IsMultiLevelTiled(c.op->id) || LastReduceIterInOutermostReduceTile(c) < 0) {
    return false;
  }
  const std::vector<int> direct = GetDirectProducers(in.state, consumer);
  return std::find(direct.begin(), direct.end(), in.stage) != direct.end();
}

class AddCacheReadRule : public SketchRule {
 public:
  const char* name() const override { return "AddCacheRead"; }
  RuleCondition MeetCondition(const SketchContext&, const SketchCandidate& in) const override {
    const Stage& stage = in.state.stage(in.stage);
    if (stage.compute_at == ComputeAtKind::kInlined || IsSharedCacheStage(stage)) {
      return RuleCondition::kSkip;
    }
    // Ansor reads the first consumer without checking there is one (an
    // output has none); skip explicitly.
    const std::vector<int> consumers = GetConsumers(in.state, in.stage);
    if (consumers.empty() || !CanCacheFor(in, consumers.front())) return RuleCondition::kSkip;
    return RuleCondition::kApplyAndSkipRest;
  }

  absl::StatusOr<std::vector<SketchCandidate>> Apply(const SketchContext&,
                                                     const SketchCandidate& in) const override {
    SketchCandidate out = in;
    // Consumers by tensor id: every cache_read inserts a stage and shifts the
    // later stage indices by one.
    std::vector<int> consumer_tensors;
    for (int c : GetConsumers(in.state, in.stage)) {
      if (CanCacheFor(in, c)) consumer_tensors.push_back(in.state.stage(c).op->id);
    }
    for (int tensor : consumer_tensors) {
      const int consumer = out.state.StageOfTensor(tensor);
      if (absl::Status st = out.state.Apply(CacheReadStep(in.stage, "shared", {consumer}));
          !st.ok()) {
        return st;
      }
      const int cache = in.stage + 1;
      const int shifted_consumer = consumer + 1;
      const int attach =
          LastReduceIterInOutermostReduceTile(out.state.stage(shifted_consumer));
      if (absl::Status st = out.state.Apply(ComputeAtStep(cache, shifted_consumer, attach));
          !st.ok()) {
        return st;
      }
    }
    // Revisit the same stage: it may still be inlined (padding) or skipped.
    out.stage = in.stage;
    return std::vector<SketchCandidate>{std::move(out)};
  }
};

}  // namespace

std::unique_ptr<SketchRule> MakeAddCacheReadRule() { return std::make_unique<AddCacheReadRule>(); }

}  // namespace pruner
