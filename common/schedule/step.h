// Transform steps: the words of a schedule sentence.
//
// A schedule is an ordered list of steps replayed on a workload's initial
// state (see state.h). All stage and iterator indices refer to the state as
// it is just before the step applies, as in TVM's auto_scheduler, so a
// sentence is meaningful on its own and can be replayed from a record.
//
// Text form (one step; a sentence joins steps with "; "):
//   SP s i E [l1,l2,..]     split iterator i of stage s (extent E, 0 if
//                           unknown) into len+1 parts; l = inner lengths,
//                           "?" when not yet chosen. Outermost = ceil(E/prod).
//   FSP s i src n           split like step `src` (an SP): its first n-1
//                           lengths, the last = product of the rest
//   FFSP s i [src..] lvl f  one split whose length is prod of lengths[lvl] of
//                           the src SP steps; f=1 factor, f=0 nparts
//   RE s [i..]              reorder: a permutation of all iterators
//   FU s [i..]              fuse consecutive iterators
//   AN s i <ann>            annotate: unroll vectorize parallel vthread
//                           blockIdx.x threadIdx.x blockIdx.y threadIdx.y
//                           blockIdx.z threadIdx.z
//   PR s i auto_unroll_max_step$N
//   CA s t i                compute stage s at iterator i of stage t
//   CI s                    compute inline
//   CR s                    compute root
//   CHR s <scope> [r..]     cache_read: new stage at s+1 copying s into
//                           <scope> (shared|local), read by stages r..
//   CHW s <scope>           cache_write: new stage at s computing s's body
//                           into <scope>; the original becomes a copy
//   RF s i f                rfactor on iterator i; the factored axis becomes
//                           spatial axis f of the new stage inserted at s
#ifndef PRUNER_COMMON_SCHEDULE_STEP_H_
#define PRUNER_COMMON_SCHEDULE_STEP_H_

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "absl/status/statusor.h"

namespace pruner {

enum class IterAnnotation : uint8_t {
  kNone,
  kUnroll,
  kVectorize,
  kParallel,
  kVThread,
  kBlockX,
  kThreadX,
  kBlockY,
  kThreadY,
  kBlockZ,
  kThreadZ,
};
const char* AnnotationName(IterAnnotation a);
std::optional<IterAnnotation> ParseAnnotation(std::string_view name);
bool IsThreadBinding(IterAnnotation a);  // vthread, blockIdx.*, threadIdx.*
bool IsBlockBinding(IterAnnotation a);
bool IsThreadIdxBinding(IterAnnotation a);

enum class StepKind : uint8_t {
  kSplit,             // SP
  kFollowSplit,       // FSP
  kFollowFusedSplit,  // FFSP
  kReorder,           // RE
  kFuse,              // FU
  kAnnotation,        // AN
  kPragma,            // PR
  kComputeAt,         // CA
  kComputeInline,     // CI
  kComputeRoot,       // CR
  kCacheRead,         // CHR
  kCacheWrite,        // CHW
  kRfactor,           // RF
};

// One step. A plain struct rather than a class hierarchy: steps are copied
// by the thousand during search and compared by value.
struct Step {
  StepKind kind = StepKind::kSplit;
  int stage = 0;
  int iter = 0;  // SP FSP FFSP AN PR RF
  // SP: extent of the iterator when the step was made (0 if unknown).
  int64_t extent = 0;
  // SP: inner lengths, std::nullopt = not chosen yet.
  std::vector<std::optional<int64_t>> lengths;
  // RE: new order; FU: fused iterators; CHR: reader stages; FFSP: src steps.
  std::vector<int> ints;
  int src_step = 0;      // FSP
  int n_split = 0;       // FSP
  int level = 0;         // FFSP
  bool factor = true;    // FFSP: length is the inner factor (else nparts)
  IterAnnotation annotation = IterAnnotation::kNone;  // AN
  int64_t pragma_value = 0;  // PR auto_unroll_max_step$N
  int target_stage = 0;      // CA
  int target_iter = 0;       // CA
  std::string scope;         // CHR CHW
  int factor_iter = 0;       // RF

  bool operator==(const Step& other) const;
  bool IsDefined() const;  // false for SP with an unchosen length
  bool ChangesDag() const {  // inserts a stage
    return kind == StepKind::kCacheRead || kind == StepKind::kCacheWrite ||
           kind == StepKind::kRfactor;
  }
};

// Named constructors, so rule code reads like the schedule it writes.
Step SplitStep(int stage, int iter, int64_t extent,
               std::vector<std::optional<int64_t>> lengths);
Step FollowSplitStep(int stage, int iter, int src_step, int n_split);
Step FollowFusedSplitStep(int stage, int iter, std::vector<int> src_steps,
                          int level, bool factor);
Step ReorderStep(int stage, std::vector<int> order);
Step FuseStep(int stage, std::vector<int> iters);
Step AnnotationStep(int stage, int iter, IterAnnotation annotation);
Step AutoUnrollPragmaStep(int stage, int iter, int64_t max_step);
Step ComputeAtStep(int stage, int target_stage, int target_iter);
Step ComputeInlineStep(int stage);
Step ComputeRootStep(int stage);
Step CacheReadStep(int stage, std::string scope, std::vector<int> readers);
Step CacheWriteStep(int stage, std::string scope);
Step RfactorStep(int stage, int iter, int factor_iter);

std::string StepToString(const Step& step);
absl::StatusOr<Step> ParseStep(std::string_view text);
// A sentence: steps joined by "; ".
std::string StepsToString(const std::vector<Step>& steps);
absl::StatusOr<std::vector<Step>> ParseSteps(std::string_view text);

}  // namespace pruner

#endif  // PRUNER_COMMON_SCHEDULE_STEP_H_
