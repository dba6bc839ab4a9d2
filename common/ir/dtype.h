// Element types carried by every tensor and expression. Only float32 is
// computed today; the rest exist so that float16 and integer index math can
// follow without changing any interface.
#ifndef PRUNER_COMMON_IR_DTYPE_H_
#define PRUNER_COMMON_IR_DTYPE_H_

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>

namespace pruner {

enum class DType : uint8_t { kFloat32, kFloat16, kInt32, kInt64, kBool };

// Bytes of one element.
int DTypeBytes(DType t);
bool IsFloat(DType t);
bool IsInt(DType t);
// "float32", "float16", "int32", "int64", "bool".
std::string_view DTypeName(DType t);
std::optional<DType> ParseDType(std::string_view name);

}  // namespace pruner

#endif  // PRUNER_COMMON_IR_DTYPE_H_
