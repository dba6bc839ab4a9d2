// One PaCM data-movement block (../shared/specs/pruner.md §4.2, §4.4): one access of
// one buffer by one statement, described by the statement's float work, the
// buffer's memory level, and Ansor's group-2 quantities of the access.
#ifndef PRUNER_COMMON_FEATURES_DATAFLOW_BLOCK_H_
#define PRUNER_COMMON_FEATURES_DATAFLOW_BLOCK_H_

#include <array>
#include <string>
#include <vector>

#include "common/features/access_features.h"
#include "common/lower/program.h"

namespace pruner {

inline constexpr int kDataflowBlockWidth = 23;
using DataflowBlock = std::array<float, kDataflowBlockWidth>;

// Column indices of a block, in the exact order of ../shared/specs/pruner.md §4.4.
// Columns [kAccRead, kAllocSize) are a group-2 slot of the statement row
// (feature_columns.h kAccRead..kStride), shifted by kAccRead.
namespace dataflow_columns {
inline constexpr int kFloatOp = 0;
inline constexpr int kLocationGlobal = 1;  // one-hot by MemScope: global, shared, local
inline constexpr int kLocationShared = 2;
inline constexpr int kLocationLocal = 3;
inline constexpr int kAccRead = 4;  // one-hot by AccessType: read, write, read-write
inline constexpr int kAccWrite = 5;
inline constexpr int kAccReadWrite = 6;
inline constexpr int kBytes = 7;
inline constexpr int kUniqueBytes = 8;
inline constexpr int kLines = 9;
inline constexpr int kUniqueLines = 10;
inline constexpr int kReuseLoopMultipleRead = 11;  // one-hot by ReuseType
inline constexpr int kReuseSerialMultipleReadWrite = 12;
inline constexpr int kReuseNone = 13;
inline constexpr int kReuseDisIter = 14;
inline constexpr int kReuseDisBytes = 15;
inline constexpr int kReuseCt = 16;
inline constexpr int kBytesDReuseCt = 17;
inline constexpr int kUniqueBytesDReuseCt = 18;
inline constexpr int kLinesDReuseCt = 19;
inline constexpr int kUniqueLinesDReuseCt = 20;
inline constexpr int kStride = 21;
inline constexpr int kAllocSize = 22;
}  // namespace dataflow_columns

// The raw (not yet slog'ed) values behind one block.
struct AccessRecord {
  int buffer = -1;
  // The memory level the access moves data from or to (dataflow_features.cc
  // says how CPU buffers are assigned one).
  MemScope level = MemScope::kGlobal;
  AccessFeature access;
  // Float operations the owning statement executes in total (its group-1
  // float counts per evaluation times outer_prod).
  double float_ops = 0;
  // Allocated bytes of a shared- or local-level buffer; 0 for global ones.
  double alloc_bytes = 0;
};

// Writes the 23 values of `record`: slog of every count and size, one-hots
// raw.
void EncodeDataflowBlock(const AccessRecord& record, float* block);

// The 23 column names ("float_op", "location.global", "acc_type.kRead",
// "bytes", ..., "alloc_size").
const std::vector<std::string>& DataflowBlockFeatureNames();

}  // namespace pruner

#endif  // PRUNER_COMMON_FEATURES_DATAFLOW_BLOCK_H_
