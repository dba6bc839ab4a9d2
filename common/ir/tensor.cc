#include "common/ir/tensor.h"

#include <cassert>
#include <cmath>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_format.h"
#include "absl/strings/str_join.h"
#include "common/base/absl_compat.h"

namespace pruner {
namespace {

// SplitMix64 (Steele, Lea, Flood 2014): tiny, fast and fully specified, unlike
// the distributions of <random>, whose output differs between libraries.
uint64_t SplitMix64(uint64_t* state) {
  uint64_t z = (*state += 0x9e3779b97f4a7c15ULL);
  z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ULL;
  z = (z ^ (z >> 27)) * 0x94d049bb133111ebULL;
  return z ^ (z >> 31);
}

int64_t FlatIndex(const std::vector<int64_t>& index, const std::vector<int64_t>& shape) {
  assert(index.size() == shape.size());
  int64_t flat = 0;
  for (size_t d = 0; d < shape.size(); ++d) {
    assert(index[d] >= 0 && index[d] < shape[d]);
    flat = flat * shape[d] + index[d];
  }
  return flat;
}

}  // namespace

Tensor Tensor::Zeros(std::vector<int64_t> shape, DType dtype) {
  Tensor t;
  t.dtype = dtype;
  t.data.assign(NumElements(shape), 0.0f);
  t.shape = std::move(shape);
  return t;
}

int64_t Tensor::num_elements() const { return NumElements(shape); }

std::vector<int64_t> Tensor::strides() const { return RowMajorStrides(shape); }

float Tensor::at(const std::vector<int64_t>& index) const { return data[FlatIndex(index, shape)]; }

float& Tensor::at(const std::vector<int64_t>& index) { return data[FlatIndex(index, shape)]; }

int64_t NumElements(const std::vector<int64_t>& shape) {
  int64_t n = 1;
  for (int64_t d : shape) {
    // Saturates: shapes read from a user's file can claim anything, and the
    // callers compare the count with limits before they allocate by it.
    if (__builtin_mul_overflow(n, d, &n)) return INT64_MAX;
  }
  return n;
}

int64_t ExtentBefore(const std::vector<int64_t>& shape, int axis) {
  int64_t n = 1;
  for (int d = 0; d < axis; ++d) n *= shape[d];
  return n;
}

int64_t ExtentAfter(const std::vector<int64_t>& shape, int axis) {
  int64_t n = 1;
  for (size_t d = static_cast<size_t>(axis) + 1; d < shape.size(); ++d) n *= shape[d];
  return n;
}

std::vector<int64_t> RowMajorStrides(const std::vector<int64_t>& shape) {
  std::vector<int64_t> strides(shape.size(), 1);
  for (int d = static_cast<int>(shape.size()) - 2; d >= 0; --d) {
    strides[d] = strides[d + 1] * shape[d + 1];
  }
  return strides;
}

std::string ShapeToString(const std::vector<int64_t>& shape) {
  return absl::StrCat("[", absl::StrJoin(shape, ", "), "]");
}

std::vector<int64_t> UnflattenIndex(int64_t flat, const std::vector<int64_t>& shape) {
  std::vector<int64_t> index(shape.size());
  for (int d = static_cast<int>(shape.size()) - 1; d >= 0; --d) {
    index[d] = flat % shape[d];
    flat /= shape[d];
  }
  return index;
}

void FillRandom(Tensor* t, uint64_t seed) {
  t->data.resize(NumElements(t->shape));
  uint64_t state = seed;
  for (float& v : t->data) {
    const uint64_t bits = SplitMix64(&state);
    // 24 random bits give a uniform value in [0, 1) that a float holds exactly.
    const float unit = static_cast<float>(bits >> 40) * (1.0f / 16777216.0f);
    const float magnitude = 0.1f + 0.9f * unit;
    v = (bits & 1) ? -magnitude : magnitude;
    if (IsInt(t->dtype)) v = std::round(v * 10.0f);  // non-zero integers in [-10, 10]
    if (t->dtype == DType::kBool) v = static_cast<float>((bits >> 1) & 1);
  }
}

Tensor RandomTensor(std::vector<int64_t> shape, uint64_t seed, DType dtype) {
  Tensor t;
  t.dtype = dtype;
  t.shape = std::move(shape);
  FillRandom(&t, seed);
  return t;
}

absl::Status CheckAllClose(const Tensor& got, const Tensor& want, double rtol, double atol) {
  if (got.shape != want.shape) {
    return absl::InvalidArgumentError(absl::StrCat("shape mismatch: got ", ShapeToString(got.shape),
                                                   ", want ", ShapeToString(want.shape)));
  }
  if (got.dtype != want.dtype) {
    return absl::InvalidArgumentError(absl::StrCat("dtype mismatch: got ", ToAbsl(DTypeName(got.dtype)),
                                                   ", want ", ToAbsl(DTypeName(want.dtype))));
  }
  const int64_t n = NumElements(want.shape);
  if (static_cast<int64_t>(got.data.size()) != n || static_cast<int64_t>(want.data.size()) != n) {
    return absl::InvalidArgumentError(absl::StrCat("data size mismatch: got ", got.data.size(),
                                                   ", want ", want.data.size(), ", shape has ", n,
                                                   " elements"));
  }
  int64_t mismatches = 0;
  int64_t first = -1;
  for (int64_t i = 0; i < n; ++i) {
    const double g = got.data[i];
    const double w = want.data[i];
    bool close;
    if (std::isnan(w) || std::isnan(g)) {
      close = std::isnan(w) && std::isnan(g);
    } else if (std::isinf(w) || std::isinf(g)) {
      close = g == w;
    } else {
      close = std::fabs(g - w) <= atol + rtol * std::fabs(w);
    }
    if (!close) {
      if (first < 0) first = i;
      ++mismatches;
    }
  }
  if (mismatches == 0) return absl::OkStatus();
  const double g = got.data[first];
  const double w = want.data[first];
  return absl::InternalError(absl::StrFormat(
      "%d of %d elements differ (rtol=%g, atol=%g); first at index %s: got %.9g, want %.9g "
      "(|diff| %.3g > tolerance %.3g)",
      mismatches, n, rtol, atol, ShapeToString(UnflattenIndex(first, want.shape)), g, w,
      std::fabs(g - w), atol + rtol * std::fabs(w)));
}

}  // namespace pruner
