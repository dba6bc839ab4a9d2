#include "common/features/dataflow_block.h"

#include <algorithm>

#include "common/features/feature_columns.h"
#include "common/features/feature_math.h"
#include "common/features/statement_features.h"

namespace pruner {
namespace {

namespace dc = dataflow_columns;
namespace fc = feature_columns;

static_assert(dc::kAllocSize - dc::kAccRead == fc::kBufferSlotWidth,
              "a block embeds exactly one group-2 slot");
static_assert(dc::kStride - dc::kAccRead == fc::kStride - fc::kAccRead);
static_assert(dc::kAllocSize + 1 == kDataflowBlockWidth);

}  // namespace

void EncodeDataflowBlock(const AccessRecord& record, float* block) {
  std::fill(block, block + kDataflowBlockWidth, 0.0f);
  block[dc::kFloatOp] = Slog(record.float_ops);
  block[dc::kLocationGlobal + static_cast<int>(record.level)] = 1.0f;
  WriteAccessSlot(record.access, block + dc::kAccRead);
  block[dc::kAllocSize] = Slog(record.alloc_bytes);
}

const std::vector<std::string>& DataflowBlockFeatureNames() {
  static const std::vector<std::string>* names = [] {
    auto* n = new std::vector<std::string>{"float_op", "location.global", "location.shared",
                                           "location.local"};
    // The embedded group-2 slot, named as the statement row names slot B0.
    const std::vector<std::string>& row = StatementFeatureNames();
    for (int c = 0; c < fc::kBufferSlotWidth; ++c) {
      const std::string& name = row[fc::BufferColumn(0, c)];
      n->push_back(name.substr(name.find('.') + 1));  // "B0.bytes" -> "bytes"
    }
    n->push_back("alloc_size");
    return n;
  }();
  return *names;
}

}  // namespace pruner
