#include "common/graph/onnx_const.h"

#include <algorithm>
#include <cmath>
#include <set>

#include "absl/strings/str_cat.h"
#include "common/base/status_macros.h"
#include "common/graph/shape_inference.h"
#include "common/ir/tensor.h"

namespace pruner::onnx_import {
namespace {

using Shape = std::vector<int64_t>;

absl::Status Bad(const std::string& op, const std::string& what) {
  return absl::InvalidArgumentError(absl::StrCat(op, ": ", what));
}

// Folded constants are shapes, masks and index tables: small. A model whose
// constant sub-expression would make more elements than this (a
// ConstantOfShape of [1e9], an outer broadcast of two long vectors) is
// refused, as is one whose dimensions overflow, instead of allocating
// gigabytes (found by tests/fuzz/onnx_import_fuzz.cc).
constexpr int64_t kMaxFoldedElements = int64_t{1} << 24;

absl::StatusOr<int64_t> FoldedElements(const Shape& shape) {
  int64_t n = 1;
  for (int64_t d : shape) {
    if (d < 0) return absl::InvalidArgumentError(absl::StrCat("negative dimension in ", ShapeToString(shape)));
    if (d != 0 && n > kMaxFoldedElements / d) {
      return absl::InvalidArgumentError(absl::StrCat(
          "a constant of shape ", ShapeToString(shape), " would have more than ",
          kMaxFoldedElements, " elements: not a constant this importer folds"));
    }
    n *= d;
  }
  return n;
}

// Flat offset into a tensor of shape `in` (broadcast into `out`) of the
// element at out-position `index`.
int64_t BroadcastOffset(const Shape& in, const Shape& out, const Shape& index) {
  const size_t lead = out.size() - in.size();
  int64_t offset = 0;
  for (size_t d = 0; d < in.size(); ++d) {
    offset = offset * in[d] + (in[d] == 1 ? 0 : index[lead + d]);
  }
  return offset;
}

// Builds a tensor of `shape` whose element i is value(i), float or int.
template <typename Fn>
absl::StatusOr<ConstTensor> Generate(bool is_float, const Shape& shape, Fn value) {
  PRUNER_ASSIGN_OR_RETURN(const int64_t n, FoldedElements(shape));
  if (is_float) {
    std::vector<float> v(n);
    for (int64_t i = 0; i < n; ++i) v[i] = static_cast<float>(value(i));
    return ConstTensor::Float(shape, std::move(v));
  }
  std::vector<int64_t> v(n);
  for (int64_t i = 0; i < n; ++i) v[i] = SaturatingInt64(value(i));
  return ConstTensor::Int(shape, std::move(v));
}

// Element `i` of `t` gathered by flat offsets: a copy that keeps the type.
absl::StatusOr<ConstTensor> Gather(const ConstTensor& t, const Shape& shape,
                                   const std::vector<int64_t>& offsets) {
  return Generate(t.is_float, shape, [&](int64_t i) { return t.at(offsets[i]); });
}

absl::StatusOr<int64_t> NormalizeAxis(const std::string& op, int64_t axis, int64_t rank) {
  if (axis < -rank || axis >= rank) {
    return Bad(op, absl::StrCat("axis ", axis, " is out of range for rank ", rank));
  }
  return axis < 0 ? axis + rank : axis;
}

absl::StatusOr<ConstTensor> Binary(const std::string& op, const ConstTensor& a,
                                   const ConstTensor& b) {
  PRUNER_ASSIGN_OR_RETURN(const Shape out, BroadcastShapes(a.shape, b.shape));
  const bool compare = op == "Equal" || op == "Less" || op == "Greater";
  const bool is_float = !compare && (a.is_float || b.is_float);
  return Generate(is_float, out, [&](int64_t i) -> double {
    const Shape index = UnflattenIndex(i, out);
    const double x = a.at(BroadcastOffset(a.shape, out, index));
    const double y = b.at(BroadcastOffset(b.shape, out, index));
    if (op == "Add") return x + y;
    if (op == "Sub") return x - y;
    if (op == "Mul") return x * y;
    if (op == "Div") {
      if (is_float) return x / y;
      return y == 0 ? 0 : std::trunc(x / y);
    }
    if (op == "Pow") return std::pow(x, y);
    if (op == "Min") return std::min(x, y);
    if (op == "Max") return std::max(x, y);
    if (op == "Equal") return x == y;
    if (op == "Less") return x < y;
    return x > y;  // Greater
  });
}

// Axes from the attribute (opsets before 13) or the second input.
std::vector<int64_t> AxesOf(const std::vector<const ConstTensor*>& in, const ConstAttrs& attrs) {
  if (in.size() > 1 && in[1] != nullptr) {
    return in[1]->Ints();
  }
  return attrs.Ints("axes");
}

absl::StatusOr<ConstTensor> Slice(const std::vector<const ConstTensor*>& in,
                                  const ConstAttrs& attrs, int opset) {
  const ConstTensor& x = *in[0];
  const int64_t rank = static_cast<int64_t>(x.shape.size());
  std::vector<int64_t> starts, ends, axes, steps;
  auto read = [&](size_t i) {
    return i < in.size() && in[i] != nullptr ? in[i]->Ints() : std::vector<int64_t>();
  };
  if (opset < 10) {
    starts = attrs.Ints("starts");
    ends = attrs.Ints("ends");
    axes = attrs.Ints("axes");
  } else {
    starts = read(1);
    ends = read(2);
    axes = read(3);
    steps = read(4);
  }
  if (axes.empty()) {
    for (size_t i = 0; i < starts.size(); ++i) axes.push_back(static_cast<int64_t>(i));
  }
  if (steps.empty()) steps.assign(starts.size(), 1);
  if (starts.size() != ends.size() || axes.size() != starts.size() ||
      steps.size() != starts.size()) {
    return Bad("Slice", "starts, ends, axes and steps differ in length");
  }
  Shape begin(rank, 0), step(rank, 1), out = x.shape;
  for (size_t i = 0; i < axes.size(); ++i) {
    PRUNER_ASSIGN_OR_RETURN(const int64_t a, NormalizeAxis("Slice", axes[i], rank));
    const int64_t dim = x.shape[a];
    if (steps[i] == 0) return Bad("Slice", "a step is 0");
    auto clamp = [&](int64_t v, int64_t lo, int64_t hi) {
      if (v < 0) v = v < -dim ? -1 : v + dim;
      return std::clamp(v, lo, hi);
    };
    const bool forward = steps[i] > 0;
    const int64_t s = clamp(starts[i], forward ? 0 : -1, forward ? dim : dim - 1);
    const int64_t e = clamp(ends[i], forward ? 0 : -1, forward ? dim : dim - 1);
    const int64_t count = forward ? std::max<int64_t>(0, (e - s + steps[i] - 1) / steps[i])
                                  : std::max<int64_t>(0, (s - e - steps[i] - 1) / -steps[i]);
    begin[a] = s;
    step[a] = steps[i];
    out[a] = count;
  }
  const Shape strides = RowMajorStrides(x.shape);
  PRUNER_ASSIGN_OR_RETURN(const int64_t out_elements, FoldedElements(out));
  std::vector<int64_t> offsets(out_elements);
  for (int64_t i = 0; i < static_cast<int64_t>(offsets.size()); ++i) {
    const Shape index = UnflattenIndex(i, out);
    int64_t o = 0;
    for (int64_t d = 0; d < rank; ++d) o += (begin[d] + index[d] * step[d]) * strides[d];
    offsets[i] = o;
  }
  return Gather(x, out, offsets);
}

absl::StatusOr<ConstTensor> GatherOp(const ConstTensor& data, const ConstTensor& indices,
                                     int64_t axis_attr) {
  const int64_t rank = static_cast<int64_t>(data.shape.size());
  PRUNER_ASSIGN_OR_RETURN(const int64_t axis, NormalizeAxis("Gather", axis_attr, rank));
  Shape out(data.shape.begin(), data.shape.begin() + axis);
  out.insert(out.end(), indices.shape.begin(), indices.shape.end());
  out.insert(out.end(), data.shape.begin() + axis + 1, data.shape.end());
  const Shape strides = RowMajorStrides(data.shape);
  const int64_t dim = data.shape[axis];
  const size_t irank = indices.shape.size();
  PRUNER_ASSIGN_OR_RETURN(const int64_t out_elements, FoldedElements(out));
  std::vector<int64_t> offsets(out_elements);
  for (int64_t i = 0; i < static_cast<int64_t>(offsets.size()); ++i) {
    const Shape index = UnflattenIndex(i, out);
    int64_t flat_index = 0;
    for (size_t d = 0; d < irank; ++d) flat_index = flat_index * indices.shape[d] + index[axis + d];
    int64_t k = SaturatingInt64(indices.at(flat_index));
    if (k < 0) k += dim;
    if (k < 0 || k >= dim) return Bad("Gather", absl::StrCat("index ", k, " is out of range"));
    int64_t o = k * strides[axis];
    for (int64_t d = 0; d < axis; ++d) o += index[d] * strides[d];
    for (int64_t d = axis + 1; d < rank; ++d) o += index[d - 1 + irank] * strides[d];
    offsets[i] = o;
  }
  return Gather(data, out, offsets);
}

absl::StatusOr<ConstTensor> TransposeOp(const ConstTensor& x, std::vector<int64_t> perm) {
  const size_t rank = x.shape.size();
  if (perm.empty()) {
    for (size_t d = 0; d < rank; ++d) perm.push_back(static_cast<int64_t>(rank - 1 - d));
  }
  if (perm.size() != rank) return Bad("Transpose", "perm does not match the rank");
  Shape out;
  for (int64_t p : perm) out.push_back(x.shape[p]);
  const Shape strides = RowMajorStrides(x.shape);
  PRUNER_ASSIGN_OR_RETURN(const int64_t out_elements, FoldedElements(out));
  std::vector<int64_t> offsets(out_elements);
  for (int64_t i = 0; i < static_cast<int64_t>(offsets.size()); ++i) {
    const Shape index = UnflattenIndex(i, out);
    int64_t o = 0;
    for (size_t d = 0; d < rank; ++d) o += index[d] * strides[perm[d]];
    offsets[i] = o;
  }
  return Gather(x, out, offsets);
}

ConstTensor WithShape(const ConstTensor& x, Shape shape) {
  ConstTensor out = x;
  out.shape = std::move(shape);
  return out;
}

// ONNX Reshape: 0 copies the input dimension (unless allowzero), -1 is inferred.
absl::StatusOr<Shape> ReshapeTarget(const Shape& in, const ConstTensor& spec, bool allowzero) {
  Shape out;
  int infer = -1;
  int64_t known = 1;
  for (int64_t i = 0; i < spec.size(); ++i) {
    int64_t d = SaturatingInt64(spec.at(i));
    if (d == 0 && !allowzero) {
      if (i >= static_cast<int64_t>(in.size())) return Bad("Reshape", "0 past the input rank");
      d = in[i];
    }
    if (d == -1) {
      if (infer >= 0) return Bad("Reshape", "more than one -1");
      infer = static_cast<int>(i);
      out.push_back(1);
      continue;
    }
    if (d < 0) return Bad("Reshape", absl::StrCat("dimension ", d));
    known *= d;
    out.push_back(d);
  }
  const int64_t total = NumElements(in);
  if (infer >= 0) {
    if (known == 0 || total % known != 0) {
      return Bad("Reshape", absl::StrCat("cannot reshape ", ShapeToString(in)));
    }
    out[infer] = total / known;
  }
  if (NumElements(out) != total) {
    return Bad("Reshape", absl::StrCat(ShapeToString(in), " to ", ShapeToString(out),
                                       " changes the element count"));
  }
  return out;
}

}  // namespace

int64_t ConstTensor::size() const {
  return is_float ? static_cast<int64_t>(floats->size()) : static_cast<int64_t>(ints.size());
}

double ConstTensor::at(int64_t i) const {
  return is_float ? static_cast<double>((*floats)[i]) : static_cast<double>(ints[i]);
}

int64_t SaturatingInt64(double d) {
  if (std::isnan(d)) return 0;
  return d >= 9.2e18 ? INT64_MAX : d <= -9.2e18 ? INT64_MIN : static_cast<int64_t>(d);
}

int64_t ConstTensor::int_at(int64_t i) const {
  if (!is_float) return ints[i];
  return SaturatingInt64((*floats)[i]);
}

std::vector<int64_t> ConstTensor::Ints() const {
  std::vector<int64_t> v;
  for (int64_t i = 0; i < size(); ++i) v.push_back(int_at(i));
  return v;
}

ConstTensor ConstTensor::Float(std::vector<int64_t> shape, std::vector<float> values) {
  ConstTensor t;
  t.is_float = true;
  t.shape = std::move(shape);
  t.floats = std::make_shared<const std::vector<float>>(std::move(values));
  return t;
}

ConstTensor ConstTensor::Int(std::vector<int64_t> shape, std::vector<int64_t> values) {
  ConstTensor t;
  t.is_float = false;
  t.shape = std::move(shape);
  t.ints = std::move(values);
  return t;
}

bool IsFloatType(int t) { return t == 1 || t == 10 || t == 11 || t == 16; }
bool IsIntType(int t) { return (t >= 2 && t <= 7) || t == 9 || t == 12 || t == 13; }

std::vector<float> Transpose2d(const std::vector<float>& v, int64_t rows, int64_t cols) {
  std::vector<float> out(v.size());
  for (int64_t r = 0; r < rows; ++r) {
    for (int64_t c = 0; c < cols; ++c) out[c * rows + r] = v[r * cols + c];
  }
  return out;
}

bool IsFoldable(const std::string& op) {
  static const std::set<std::string> kOps = {
      "Identity", "Constant", "Shape",   "Gather",    "Unsqueeze",       "Squeeze",
      "Concat",   "Slice",    "Cast",    "Reshape",   "ConstantOfShape", "Equal",
      "Less",     "Greater",  "Where",   "Expand",    "Add",             "Sub",
      "Mul",      "Div",      "Pow",     "Min",       "Max",             "Sqrt",
      "Neg",      "Transpose", "Flatten", "Range",    "Not",             "Size"};
  return kOps.count(op) > 0;
}

absl::StatusOr<std::vector<ConstTensor>> FoldConstant(const std::string& op, int opset,
                                                      const std::vector<const ConstTensor*>& in,
                                                      const ConstAttrs& attrs) {
  auto need = [&](size_t n) -> absl::Status {
    if (in.size() < n) return Bad(op, absl::StrCat("expects ", n, " inputs"));
    for (size_t i = 0; i < n; ++i) {
      if (in[i] == nullptr) return Bad(op, absl::StrCat("input ", i, " is missing"));
    }
    return absl::OkStatus();
  };
  auto one = [](absl::StatusOr<ConstTensor> t) -> absl::StatusOr<std::vector<ConstTensor>> {
    if (!t.ok()) return t.status();
    return std::vector<ConstTensor>{*std::move(t)};
  };
  if (op == "Constant") {
    if (attrs.Has("value")) {
      PRUNER_ASSIGN_OR_RETURN(ConstTensor t, attrs.Tensor("value"));
      return one(std::move(t));
    }
    if (attrs.Has("value_float")) return one(ConstTensor::Float({}, {attrs.Float("value_float", 0)}));
    if (attrs.Has("value_int")) return one(ConstTensor::Int({}, {attrs.Int("value_int", 0)}));
    if (attrs.Has("value_ints")) {
      std::vector<int64_t> v = attrs.Ints("value_ints");
      const int64_t n = static_cast<int64_t>(v.size());
      return one(ConstTensor::Int({n}, std::move(v)));
    }
    return absl::UnimplementedError("Constant without a tensor, float or int value");
  }
  if (op == "Identity") {
    PRUNER_RETURN_IF_ERROR(need(1));
    return one(*in[0]);
  }
  if (op == "Shape" || op == "Size") {
    PRUNER_RETURN_IF_ERROR(need(1));
    if (op == "Size") return one(ConstTensor::Int({}, {NumElements(in[0]->shape)}));
    const int64_t rank = static_cast<int64_t>(in[0]->shape.size());
    int64_t start = attrs.Int("start", 0), end = attrs.Int("end", rank);
    if (start < 0) start += rank;
    if (end < 0) end += rank;
    start = std::clamp<int64_t>(start, 0, rank);
    end = std::clamp<int64_t>(end, start, rank);
    Shape dims(in[0]->shape.begin() + start, in[0]->shape.begin() + end);
    const int64_t n = static_cast<int64_t>(dims.size());
    return one(ConstTensor::Int({n}, std::move(dims)));
  }
  if (op == "Gather") {
    PRUNER_RETURN_IF_ERROR(need(2));
    PRUNER_ASSIGN_OR_RETURN(ConstTensor t, GatherOp(*in[0], *in[1], attrs.Int("axis", 0)));
    return one(std::move(t));
  }
  if (op == "Unsqueeze" || op == "Squeeze") {
    PRUNER_RETURN_IF_ERROR(need(1));
    const Shape& s = in[0]->shape;
    std::vector<int64_t> axes = AxesOf(in, attrs);
    Shape out;
    if (op == "Squeeze") {
      const int64_t rank = static_cast<int64_t>(s.size());
      std::set<int64_t> drop;
      for (int64_t a : axes) {
        PRUNER_ASSIGN_OR_RETURN(const int64_t n, NormalizeAxis(op, a, rank));
        drop.insert(n);
      }
      for (int64_t d = 0; d < rank; ++d) {
        if (axes.empty() ? s[d] == 1 : drop.count(d) > 0) {
          if (s[d] != 1) return Bad(op, "squeezes a dimension that is not 1");
          continue;
        }
        out.push_back(s[d]);
      }
    } else {
      const int64_t rank = static_cast<int64_t>(s.size() + axes.size());
      std::set<int64_t> add;
      for (int64_t a : axes) {
        PRUNER_ASSIGN_OR_RETURN(const int64_t n, NormalizeAxis(op, a, rank));
        add.insert(n);
      }
      size_t next = 0;
      for (int64_t d = 0; d < rank; ++d) out.push_back(add.count(d) ? 1 : s[next++]);
    }
    return one(WithShape(*in[0], out));
  }
  if (op == "Flatten") {
    PRUNER_RETURN_IF_ERROR(need(1));
    const Shape& s = in[0]->shape;
    PRUNER_ASSIGN_OR_RETURN(const int64_t axis,
                            NormalizeAxis(op, attrs.Int("axis", 1), static_cast<int64_t>(s.size()) + 1));
    const Shape head(s.begin(), s.begin() + axis), tail(s.begin() + axis, s.end());
    return one(WithShape(*in[0], {NumElements(head), NumElements(tail)}));
  }
  if (op == "Reshape") {
    PRUNER_RETURN_IF_ERROR(need(2));
    PRUNER_ASSIGN_OR_RETURN(Shape out,
                            ReshapeTarget(in[0]->shape, *in[1], attrs.Int("allowzero", 0) != 0));
    return one(WithShape(*in[0], std::move(out)));
  }
  if (op == "Concat") {
    if (in.empty()) return Bad(op, "no inputs");
    PRUNER_RETURN_IF_ERROR(need(in.size()));
    const int64_t rank = static_cast<int64_t>(in[0]->shape.size());
    PRUNER_ASSIGN_OR_RETURN(const int64_t axis, NormalizeAxis(op, attrs.Int("axis", 0), rank));
    Shape out = in[0]->shape;
    out[axis] = 0;
    bool is_float = false;
    for (const ConstTensor* t : in) {
      if (static_cast<int64_t>(t->shape.size()) != rank) return Bad(op, "ranks differ");
      out[axis] += t->shape[axis];
      is_float = is_float || t->is_float;
    }
    // Element i: find the input holding its position along the axis.
    return one(Generate(is_float, out, [&](int64_t i) {
      Shape index = UnflattenIndex(i, out);
      for (const ConstTensor* t : in) {
        if (index[axis] < t->shape[axis]) {
          int64_t o = 0;
          for (int64_t d = 0; d < rank; ++d) o = o * t->shape[d] + index[d];
          return t->at(o);
        }
        index[axis] -= t->shape[axis];
      }
      return 0.0;
    }));
  }
  if (op == "Slice") {
    PRUNER_RETURN_IF_ERROR(need(1));
    PRUNER_ASSIGN_OR_RETURN(ConstTensor t, Slice(in, attrs, opset));
    return one(std::move(t));
  }
  if (op == "Cast") {
    PRUNER_RETURN_IF_ERROR(need(1));
    const int to = static_cast<int>(attrs.Int("to", 1));
    if (!IsFloatType(to) && !IsIntType(to)) return Bad(op, absl::StrCat("to type ", to));
    const ConstTensor& x = *in[0];
    return one(Generate(IsFloatType(to), x.shape, [&](int64_t i) {
      const double v = x.at(i);
      return to == 9 ? (v != 0 ? 1.0 : 0.0) : IsIntType(to) ? std::trunc(v) : v;
    }));
  }
  if (op == "ConstantOfShape") {
    PRUNER_RETURN_IF_ERROR(need(1));
    Shape out;
    for (int64_t i = 0; i < in[0]->size(); ++i) out.push_back(SaturatingInt64(in[0]->at(i)));
    ConstTensor value = ConstTensor::Float({1}, {0.0f});
    if (attrs.Has("value")) {
      PRUNER_ASSIGN_OR_RETURN(value, attrs.Tensor("value"));
    }
    const double v = value.at(0);
    return one(Generate(value.is_float, out, [&](int64_t) { return v; }));
  }
  if (op == "Expand") {
    PRUNER_RETURN_IF_ERROR(need(2));
    Shape target;
    for (int64_t i = 0; i < in[1]->size(); ++i) target.push_back(SaturatingInt64(in[1]->at(i)));
    PRUNER_ASSIGN_OR_RETURN(const Shape out, BroadcastShapes(in[0]->shape, target));
    const ConstTensor& x = *in[0];
    return one(Generate(x.is_float, out, [&](int64_t i) {
      return x.at(BroadcastOffset(x.shape, out, UnflattenIndex(i, out)));
    }));
  }
  if (op == "Where") {
    PRUNER_RETURN_IF_ERROR(need(3));
    PRUNER_ASSIGN_OR_RETURN(Shape out, BroadcastShapes(in[0]->shape, in[1]->shape));
    PRUNER_ASSIGN_OR_RETURN(out, BroadcastShapes(out, in[2]->shape));
    const bool is_float = in[1]->is_float || in[2]->is_float;
    return one(Generate(is_float, out, [&](int64_t i) {
      const Shape index = UnflattenIndex(i, out);
      const bool c = in[0]->at(BroadcastOffset(in[0]->shape, out, index)) != 0;
      const ConstTensor* pick = c ? in[1] : in[2];
      return pick->at(BroadcastOffset(pick->shape, out, index));
    }));
  }
  if (op == "Transpose") {
    PRUNER_RETURN_IF_ERROR(need(1));
    PRUNER_ASSIGN_OR_RETURN(ConstTensor t, TransposeOp(*in[0], attrs.Ints("perm")));
    return one(std::move(t));
  }
  if (op == "Sqrt" || op == "Neg" || op == "Not") {
    PRUNER_RETURN_IF_ERROR(need(1));
    const ConstTensor& x = *in[0];
    return one(Generate(op == "Sqrt" || x.is_float, x.shape, [&](int64_t i) {
      const double v = x.at(i);
      return op == "Sqrt" ? std::sqrt(v) : op == "Neg" ? -v : (v == 0 ? 1.0 : 0.0);
    }));
  }
  if (op == "Range") {
    PRUNER_RETURN_IF_ERROR(need(3));
    const double start = in[0]->at(0), limit = in[1]->at(0), delta = in[2]->at(0);
    if (delta == 0) return Bad(op, "delta is 0");
    const int64_t n = std::max<int64_t>(0, SaturatingInt64(std::ceil((limit - start) / delta)));
    return one(Generate(in[0]->is_float, {n}, [&](int64_t i) { return start + i * delta; }));
  }
  static const std::set<std::string> kBinary = {"Add", "Sub", "Mul", "Div", "Pow", "Min",
                                                "Max", "Equal", "Less", "Greater"};
  if (kBinary.count(op) > 0) {
    PRUNER_RETURN_IF_ERROR(need(2));
    PRUNER_ASSIGN_OR_RETURN(ConstTensor t, Binary(op, *in[0], *in[1]));
    return one(std::move(t));
  }
  return absl::UnimplementedError(absl::StrCat(op, " is not folded"));
}

}  // namespace pruner::onnx_import
