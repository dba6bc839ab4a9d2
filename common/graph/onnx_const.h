// Constant tensors of an ONNX model at import time, and the operators the
// importer evaluates on them (constant folding).
//
// PyTorch's exporter writes shape arithmetic (Shape -> Gather -> Unsqueeze ->
// Concat -> Reshape) and weight preprocessing as ordinary nodes. When every
// input of such a node is known at import (initializers, Constant nodes, the
// static shape of an activation), the importer evaluates it here, so the
// graph only ever sees the result. Internal to the ONNX frontend.
#ifndef PRUNER_COMMON_GRAPH_ONNX_CONST_H_
#define PRUNER_COMMON_GRAPH_ONNX_CONST_H_

#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include "absl/status/statusor.h"

namespace pruner::onnx_import {

// Values are float (FLOAT, DOUBLE, FLOAT16 narrowed) or integer (every INT
// and UINT type, and BOOL as 0/1). Float values are shared so that large
// weights are never copied.
// A double as int64: saturated at the ends, NaN as 0 (a plain cast of
// either is undefined; folded integer arithmetic and 64-bit data reach them).
int64_t SaturatingInt64(double d);

struct ConstTensor {
  bool is_float = true;
  std::vector<int64_t> shape;
  std::shared_ptr<const std::vector<float>> floats;  // when is_float
  std::vector<int64_t> ints;                         // otherwise

  int64_t size() const;
  // Element i as double, whichever the type.
  double at(int64_t i) const;
  // Element i as an integer: exact for integer tensors (a slice's INT64_MAX
  // end survives), truncated and saturated for float ones.
  int64_t int_at(int64_t i) const;
  // Every element as int_at gives it.
  std::vector<int64_t> Ints() const;
  bool is_scalar() const { return size() == 1; }

  static ConstTensor Float(std::vector<int64_t> shape, std::vector<float> values);
  static ConstTensor Int(std::vector<int64_t> shape, std::vector<int64_t> values);
};

// ONNX TensorProto.DataType codes the importer reads.
bool IsFloatType(int onnx_dtype);
bool IsIntType(int onnx_dtype);  // includes BOOL

// Evaluates `op_type` on constant inputs with the node's attributes given as
// accessors. Returns Unimplemented for an op it cannot fold (the caller then
// treats the node as a graph op) and InvalidArgument for malformed inputs.
struct ConstAttrs {
  virtual ~ConstAttrs() = default;
  virtual bool Has(const std::string& name) const = 0;
  virtual int64_t Int(const std::string& name, int64_t fallback) const = 0;
  virtual std::vector<int64_t> Ints(const std::string& name) const = 0;
  virtual float Float(const std::string& name, float fallback) const = 0;
  // A tensor-valued attribute (Constant's value, ConstantOfShape's value).
  virtual absl::StatusOr<ConstTensor> Tensor(const std::string& name) const = 0;
};

// `inputs[i]` is null for an omitted optional input.
absl::StatusOr<std::vector<ConstTensor>> FoldConstant(
    const std::string& op_type, int opset, const std::vector<const ConstTensor*>& inputs,
    const ConstAttrs& attrs);

// True for op types FoldConstant knows.
bool IsFoldable(const std::string& op_type);

// Row-major transpose of a 2-D float tensor ([R, C] -> [C, R]).
std::vector<float> Transpose2d(const std::vector<float>& v, int64_t rows, int64_t cols);

}  // namespace pruner::onnx_import

#endif  // PRUNER_COMMON_GRAPH_ONNX_CONST_H_
