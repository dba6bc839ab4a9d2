// AutoTVM's program features (../shared/specs/autotvm.md §3), read from our
// lowered loop nest instead of TVM's analysis lowering:
//
// - Loop-variable ("itervar") features, §3.2: one row per loop in order of
//   first appearance (extent, depth, top-down and bottom-up products, an
//   11-way annotation one-hot, float add/mul/div counts) and, per buffer
//   access below the loop, TVM's touch pattern (stride, mod, count, reuse,
//   thread count, thread reuse) with its count/reuse and thread-base rules.
//   Good within one workload; the positions mean different loops in
//   different loop nests, so it does not transfer across operator types.
// - Relation ("curve") features, §3.3: for each buffer touched at the
//   deepest nest level, its count, reuse and top-down products along the
//   nest, sorted and sampled at 20 log2 points as four curves. Invariant to
//   the loop structure: the features of AutoTVM's transfer model.
//
// Departures, each because a learner needs one fixed width across programs
// (TVM pads each batch to its longest vector instead): at most
// kAutotvmItervarRows loops and kAutotvmTouchSlots accesses per loop (the
// first ones in TVM's order), and at most kAutotvmCurveBuffers innermost
// buffers. The option knobs TVM appends are our one knob that is not a
// loop: the largest auto_unroll_max_step pragma, appended raw. Strides are
// read from the buffer-relative index flattened row-major: a variable's
// linear coefficient, 1 when it only appears inside a non-linear term
// (TVM's parser gives a bare variable stride 1), 0 when it does not appear.
#ifndef PRUNER_COMMON_FEATURES_AUTOTVM_FEATURES_H_
#define PRUNER_COMMON_FEATURES_AUTOTVM_FEATURES_H_

#include <cstdint>
#include <map>
#include <string>
#include <vector>

#include "common/lower/program.h"

namespace pruner {

// TVM's AnnotationType, in its order (the one-hot's positions).
enum class AutotvmAnnotation : uint8_t {
  kBlockX, kBlockY, kBlockZ, kThreadX, kThreadY, kThreadZ,
  kUnrolled, kVectorized, kParallel, kSerial, kVirtualThread,
};
inline constexpr int kAutotvmAnnotations = 11;

// One access's pattern as seen from one loop (TVM's TouchPattern).
struct AutotvmTouch {
  double stride = 0;
  double count = 1;
  double reuse = 1;
  double thread_count = 0;
  double thread_reuse = 0;
};

// One loop (TVM's ItervarFeature).
struct AutotvmItervar {
  int var = -1;
  int64_t length = 1;
  int nest_level = 0;      // 1 for an outermost loop
  double topdown = 1;      // product of the enclosing extents, this one included
  double bottomup = -1;    // max over its accesses of count * reuse
  AutotvmAnnotation annotation = AutotvmAnnotation::kSerial;
  int64_t float_addsub = 0;
  int64_t float_mul = 0;
  int64_t float_divmod = 0;
  // Access key "<buffer>_<k>" (the k-th access of that buffer in the
  // program) -> pattern; std::map sorts the keys as TVM does.
  std::map<std::string, AutotvmTouch> touches;
};

// The loops of every kernel of `program`, in first-appearance order.
std::vector<AutotvmItervar> ExtractAutotvmItervars(const Program& program);

// TVM's log transform: log2(x + 1) for x >= 0, -log2(-x + 1) below.
float AutotvmLog(double x);

inline constexpr int kAutotvmItervarRows = 24;
inline constexpr int kAutotvmTouchSlots = 8;
inline constexpr int kAutotvmTouchWidth = 6;   // stride, mod, count, reuse, thread count, reuse
inline constexpr int kAutotvmItervarHead = 4 + kAutotvmAnnotations + 3;
inline constexpr int kAutotvmItervarRowWidth =
    kAutotvmItervarHead + kAutotvmTouchSlots * kAutotvmTouchWidth;
inline constexpr int kAutotvmItervarWidth = kAutotvmItervarRows * kAutotvmItervarRowWidth + 1;

inline constexpr int kAutotvmCurveSamples = 20;
inline constexpr int kAutotvmCurveBuffers = 4;
inline constexpr int kAutotvmCurvePerBuffer = 4 * kAutotvmCurveSamples * 2;
inline constexpr int kAutotvmCurveWidth = kAutotvmCurveBuffers * kAutotvmCurvePerBuffer + 1;

// Fixed-width vectors (zero-padded, cropped as the file comment says).
std::vector<float> AutotvmItervarFeatures(const Program& program);
std::vector<float> AutotvmCurveFeatures(const Program& program);
// Both from one walk of the program.
struct AutotvmProgramFeatures {
  std::vector<float> itervar;  // kAutotvmItervarWidth
  std::vector<float> curve;    // kAutotvmCurveWidth
};
AutotvmProgramFeatures AutotvmFeatures(const Program& program);

}  // namespace pruner

#endif  // PRUNER_COMMON_FEATURES_AUTOTVM_FEATURES_H_
