#include "common/ir/dtype.h"

namespace pruner {

int DTypeBytes(DType t) {
  switch (t) {
    case DType::kFloat32: return 4;
    case DType::kFloat16: return 2;
    case DType::kInt32: return 4;
    case DType::kInt64: return 8;
    case DType::kBool: return 1;
  }
  return 0;
}

bool IsFloat(DType t) { return t == DType::kFloat32 || t == DType::kFloat16; }

bool IsInt(DType t) { return t == DType::kInt32 || t == DType::kInt64; }

std::string_view DTypeName(DType t) {
  switch (t) {
    case DType::kFloat32: return "float32";
    case DType::kFloat16: return "float16";
    case DType::kInt32: return "int32";
    case DType::kInt64: return "int64";
    case DType::kBool: return "bool";
  }
  return "unknown";
}

std::optional<DType> ParseDType(std::string_view name) {
  for (DType t : {DType::kFloat32, DType::kFloat16, DType::kInt32, DType::kInt64, DType::kBool}) {
    if (DTypeName(t) == name) return t;
  }
  return std::nullopt;
}

}  // namespace pruner
