#include "common/features/tiling_pattern.h"

namespace pruner {

MemScope DataflowLevel(const Buffer& buffer, DeviceKind target) {
  if (target == DeviceKind::kGpu || buffer.scope != MemScope::kGlobal) return buffer.scope;
  return buffer.attached ? MemScope::kLocal : MemScope::kGlobal;
}

int FindMultiTilingPattern(std::string_view digits) {
  // The needle is 8 characters and the digit strings a few dozen: a plain
  // search costs less than building KMP's table (the original's method;
  // both find the first occurrence).
  const size_t at = digits.find(kMultiTilingNeedle);
  return at == std::string_view::npos ? -1 : static_cast<int>(at);
}

}  // namespace pruner
