// Recognition of the multi-level tiling pattern (../shared/specs/pruner.md §4.3):
// every access of every store becomes one digit of its buffer's memory
// level, in a fixed order, and the pattern is the first occurrence of
//   "2"   init of the local accumulator           C.local = 0
//   "01"  global -> shared fetch of one input     A.shared = A[...]
//   "01"  global -> shared fetch of the other     B.shared = B[...]
//   "112" compute from shared into local          C.local += A.shared * B.shared
// in that digit string. Deterministic by construction: the order is the
// program's store order and, within a store, the order of first appearance
// of each buffer in the statement, never a hash-map's iteration order.
#ifndef PRUNER_COMMON_FEATURES_TILING_PATTERN_H_
#define PRUNER_COMMON_FEATURES_TILING_PATTERN_H_

#include <string_view>

#include "common/device/device_profile.h"
#include "common/lower/program.h"

namespace pruner {

inline constexpr std::string_view kMultiTilingNeedle = "20101112";
inline constexpr int kNumDataflowBlocks = static_cast<int>(kMultiTilingNeedle.size());

// '0' global, '1' shared, '2' local.
inline char LevelDigit(MemScope level) { return static_cast<char>('0' + static_cast<int>(level)); }

// The memory level a buffer's accesses count at. On GPUs its storage scope,
// as in the paper. On CPUs (which have no explicit shared stage) scope
// shared stays shared (the virtual cache tiles of cpu_cache_tiles.h), and a
// buffer allocated inside the loop nest counts as local whatever its scope:
// an attached accumulator tile lives in L1 and registers like a
// cache_write's local buffer (dataflow_features.cc has the reasoning).
MemScope DataflowLevel(const Buffer& buffer, DeviceKind target);

// Per store, the order of its accesses in the digit string: the buffers read
// in reverse order of first appearance, then the written buffer, i.e. group
// indices n-1, ..., 1, 0 of StoreAccesses (written buffer first, reads in
// first-read order). This is the order TVM's libstdc++ hash map yields for
// most (about 93%) pointer sets; the rest of TVM's programs miss the
// pattern by accident, ours never do.
inline int PatternGroupAt(int position, int num_groups) { return num_groups - 1 - position; }

// Offset of the first occurrence of kMultiTilingNeedle in `digits`, or -1.
int FindMultiTilingPattern(std::string_view digits);

}  // namespace pruner

#endif  // PRUNER_COMMON_FEATURES_TILING_PATTERN_H_
