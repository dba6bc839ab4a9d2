// PaCM's temporal dataflow features (Pruner, ASPLOS'25 §4.2;
// ../shared/specs/pruner.md §4.1-§4.4): the 8 data-movement blocks of a program's
// multi-level tiling pattern, 23 values each, read from the lowered
// program. What we copy from Pruner's feature_pam.cc and what we change is
// written at the top of dataflow_features.cc.
#ifndef PRUNER_COMMON_FEATURES_DATAFLOW_FEATURES_H_
#define PRUNER_COMMON_FEATURES_DATAFLOW_FEATURES_H_

#include <array>
#include <string>
#include <vector>

#include "common/device/device_profile.h"
#include "common/features/dataflow_block.h"
#include "common/features/statement_features.h"
#include "common/features/tiling_pattern.h"
#include "common/lower/program.h"

namespace pruner {

inline constexpr int kDataflowFeatureSize = kNumDataflowBlocks * kDataflowBlockWidth;  // 184

struct DataflowFeatures {
  // Row-major [kNumDataflowBlocks][kDataflowBlockWidth]: block b starts at
  // blocks[b * kDataflowBlockWidth]. In pattern order:
  //   0 accumulator init (local, W)   1 first input fetched (global, R)
  //   2 its tile (shared, W)          3 second input fetched (global, R)
  //   4 its tile (shared, W)          5 the tile the compute reads last (shared, R)
  //   6 the tile it reads first (shared, R)
  //   7 the accumulator (local, RW)
  // (For a matmul blocks 5 and 6 are B's and A's tiles; conv2d fetches its
  // weights first but reads the input first, so there 5 reads block 2's
  // tile.) All zeros when the program has no such pattern (element-wise
  // programs, reductions without a staged tile, a failed lowering).
  std::array<float, kDataflowFeatureSize> blocks{};
  bool has_pattern = false;

  const float* block(int b) const { return blocks.data() + b * kDataflowBlockWidth; }
};

// What the extraction saw, for tests and debugging.
struct DataflowTrace {
  // One digit per access record ('0' global, '1' shared, '2' local) and the
  // records, in pattern order (tiling_pattern.h).
  std::string digits;
  std::vector<AccessRecord> records;
  int match = -1;  // offset of the pattern in digits, -1 when absent
  // CPU: the program with its cache tiles made explicit (cpu_cache_tiles.h),
  // when there was something to stage. Records refer to its buffers.
  bool staged = false;
  Program analysed;
};

// Dataflow features of a lowered program. Deterministic (a function of the
// program and the device kind and cache line only) and thread-safe.
DataflowFeatures ExtractDataflowFeatures(const Program& program, const DeviceProfile& device,
                                         DataflowTrace* trace = nullptr);

// The dataflow features and, in *rows (when not null), the statement rows
// ExtractStatementFeatures gives, from one walk of the program where one
// suffices (GPU programs, CPU programs without a tile to stage) and two
// otherwise (the rows always come from the program as lowered).
DataflowFeatures ExtractDataflowAndStatementFeatures(const Program& program,
                                                     const DeviceProfile& device,
                                                     ProgramFeatures* rows,
                                                     DataflowTrace* trace = nullptr);

}  // namespace pruner

#endif  // PRUNER_COMMON_FEATURES_DATAFLOW_FEATURES_H_
