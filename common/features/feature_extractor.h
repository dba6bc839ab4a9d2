// The walk over a lowered program that produces the statement rows: it
// keeps TVM's traversal state (the enclosing loops, each with the touches
// of the stores below it) and, at every store, runs the analyses of the
// other files of this folder. One extractor can be reused for many
// programs; it keeps its scratch memory between them.
#ifndef PRUNER_COMMON_FEATURES_FEATURE_EXTRACTOR_H_
#define PRUNER_COMMON_FEATURES_FEATURE_EXTRACTOR_H_

#include <cstdint>
#include <span>
#include <vector>

#include "common/device/device_profile.h"
#include "common/features/access_features.h"
#include "common/features/loop_touches.h"
#include "common/features/op_counts.h"
#include "common/features/statement_features.h"
#include "common/features/store_accesses.h"
#include "common/features/touch_regions.h"
#include "common/lower/loop_nest_walker.h"
#include "common/lower/program.h"

namespace pruner {

// What the walk knows about one store once its access features are
// computed, for analyses that need more than the statement row (the PaCM
// dataflow blocks in dataflow_features.cc). Everything is only valid during
// the call.
struct StoreVisit {
  const StmtNode* store = nullptr;
  // Groups: the written buffer first, then the buffers read in first-read
  // order (StoreAccesses::Collect).
  const StoreAccesses* accesses = nullptr;
  // One per group, in group order, raw (before the group-2 sort and slog).
  std::span<const AccessFeature> features;
  const OpCounts* ops = nullptr;  // per evaluation of the stored value
  double outer_prod = 1;          // product of the enclosing loops' extents
};

class StoreObserver {
 public:
  virtual ~StoreObserver() = default;
  // Called for every store, in program (depth-first) order.
  virtual void OnStore(const StoreVisit& visit) = 0;
};

class StatementFeatureExtractor : private LoopNestWalker {
 public:
  // `observer`, when given, sees every store as it is analysed.
  ProgramFeatures Extract(const Program& program, const DeviceProfile& device,
                          StoreObserver* observer = nullptr);

 private:
  struct Frame {
    int var = -1;
    int64_t extent = 1;
    ForKind kind = ForKind::kSerial;
    int64_t auto_unroll_max_step = 0;
    LoopTouches touches;
  };

  void EnterLoop(const StmtNode& s) override;
  void VisitStore(const StmtNode& s) override;
  void VisitAllocate(const StmtNode& s) override;
  void AddAllocation(int buffer, double outer_prod);
  // Fills loops_ with the visible frames and returns their extents' product.
  double ActiveLoops();
  StatementFeatures& RowOf(int buffer);
  void WriteComputation(const OpCounts& ops, double outer_prod, float* row) const;
  void WriteOuterScope(double outer_prod, float* row) const;

  const Program* program_ = nullptr;
  StoreObserver* observer_ = nullptr;
  int cache_line_bytes_ = 64;
  std::vector<Frame> frames_;  // one per depth of enclosing_loops()

  // Per-store scratch, kept for its capacity.
  std::vector<LoopView> loops_;
  std::vector<int> var_level_;
  std::vector<Interval> ranges_;
  StoreAccesses accesses_;
  TouchRegions regions_;
  std::vector<AccessFeature> access_features_;
  std::vector<double> log_ops_;

  ProgramFeatures rows_;
  std::vector<int> row_of_buffer_;
  std::vector<double> row_outer_prod_;  // last store's outer_prod, per row
};

}  // namespace pruner

#endif  // PRUNER_COMMON_FEATURES_FEATURE_EXTRACTOR_H_
