// A dense, row-major host tensor: the inputs and outputs of the reference
// executor and of measured programs, and the currency of correctness checks.
// Every dtype is held as float, which is exact for the int32 values and
// float16 values that tests use.
#ifndef PRUNER_COMMON_IR_TENSOR_H_
#define PRUNER_COMMON_IR_TENSOR_H_

#include <cstdint>
#include <string>
#include <vector>

#include "absl/status/status.h"
#include "common/ir/dtype.h"

namespace pruner {

struct Tensor {
  DType dtype = DType::kFloat32;
  std::vector<int64_t> shape;
  std::vector<float> data;

  // A tensor of zeros with this shape.
  static Tensor Zeros(std::vector<int64_t> shape, DType dtype = DType::kFloat32);

  int64_t num_elements() const;
  // Row-major strides in elements; the last dimension has stride 1.
  std::vector<int64_t> strides() const;
  // Element at a full multi-index (no bounds check beyond debug asserts).
  float at(const std::vector<int64_t>& index) const;
  float& at(const std::vector<int64_t>& index);
};

int64_t NumElements(const std::vector<int64_t>& shape);
// Products of the extents before and after `axis`: a row-major tensor seen
// as [before, shape[axis], after] (concats, slices, gathers along an axis).
int64_t ExtentBefore(const std::vector<int64_t>& shape, int axis);
int64_t ExtentAfter(const std::vector<int64_t>& shape, int axis);
std::vector<int64_t> RowMajorStrides(const std::vector<int64_t>& shape);
// "[2, 3, 4]".
std::string ShapeToString(const std::vector<int64_t>& shape);
// Multi-index of flat position `flat` in a row-major tensor of this shape.
std::vector<int64_t> UnflattenIndex(int64_t flat, const std::vector<int64_t>& shape);

// Fills t->data (resized to the shape) with values whose magnitude lies in
// [0.1, 1] and whose sign is random, so that no element is zero (a zero input
// could hide a wrong index). Integer tensors get non-zero integers in
// [-10, 10], bool tensors 0 or 1. The generator is SplitMix64, so the values
// depend only on the seed, on every platform and compiler.
void FillRandom(Tensor* t, uint64_t seed);
Tensor RandomTensor(std::vector<int64_t> shape, uint64_t seed, DType dtype = DType::kFloat32);

// OK when shapes and dtypes match and every element satisfies
// |got - want| <= atol + rtol * |want| (NaN matches only NaN). A shape or
// dtype mismatch is InvalidArgument; differing values are Internal, with a
// message naming the first mismatching index, both values and the count of
// mismatches.
absl::Status CheckAllClose(const Tensor& got, const Tensor& want, double rtol, double atol);

}  // namespace pruner

#endif  // PRUNER_COMMON_IR_TENSOR_H_
