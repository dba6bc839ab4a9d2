#include "common/graph/shape_inference.h"

#include <algorithm>
#include <string>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "common/base/status_macros.h"
#include "common/base/absl_compat.h"
#include "common/ir/ops.h"
#include "common/ir/tensor.h"
#include "common/ir/winograd.h"

namespace pruner {
namespace {

using Shape = std::vector<int64_t>;

// Builds errors with the "<kind> '<name>': " prefix.
class Checker {
 public:
  Checker(NodeKind kind, std::string_view name)
      : prefix_(absl::StrCat(ToAbsl(NodeKindName(kind)), " '", ToAbsl(name), "': ")) {}

  template <typename... Args>
  absl::Status Error(const Args&... args) const {
    return absl::InvalidArgumentError(absl::StrCat(prefix_, args...));
  }

  absl::Status Arity(const std::vector<Shape>& inputs, size_t want) const {
    if (inputs.size() != want) return Error("expects ", want, " inputs, got ", inputs.size());
    return absl::OkStatus();
  }

  absl::Status Rank(const char* what, const Shape& s, size_t want) const {
    if (s.size() != want) {
      return Error(what, " must have rank ", want, ", got ", ShapeToString(s));
    }
    return absl::OkStatus();
  }

  absl::Status Positive(const char* what, int64_t v) const {
    if (v <= 0) return Error(what, " must be positive, got ", v);
    return absl::OkStatus();
  }

  // The (dilated) window must fit in the padded input along one dimension.
  absl::Status WindowFits(const char* dim, int64_t in, int64_t kernel, int64_t pad,
                          int64_t dilation) const {
    if (pad < 0) return Error(dim, " padding must be non-negative, got ", pad);
    const int64_t window = dilation * (kernel - 1) + 1;
    if (window > in + 2 * pad) {
      return Error("the ", dim, " window spans ", window, " but the padded input ", dim,
                   " is only ", in + 2 * pad);
    }
    return absl::OkStatus();
  }

 private:
  std::string prefix_;
};

// NHWC x [N,H,W,C] and the packed weight [4,4,C,K] (winograd.h).
absl::StatusOr<Shape> WinogradConv2dShape(const Checker& c, const NodeAttrs& a, const Shape& x,
                                          const Shape& w) {
  if (!a.channels_last) return c.Error("a Winograd convolution needs channels_last (NHWC)");
  if (!IsWinogradTile(w[0] - 2) || w[1] != w[0] || w[2] != x[3]) {
    return c.Error("Winograd weight ", ShapeToString(w), " must be [4, 4, ", x[3], ", K] or [6, 6, ",
                   x[3], ", K] for input ", ShapeToString(x));
  }
  const absl::Status eligible =
      CheckWinogradEligible(3, 3, a.stride_h, a.stride_w, a.dilation_h, a.dilation_w, a.groups,
                            a.pad_h, a.pad_w, x[1], x[2]);
  if (!eligible.ok()) return c.Error(eligible.message());
  const WinogradShape s{
      .height = x[1], .width = x[2], .pad_h = a.pad_h, .pad_w = a.pad_w, .tile = w[0] - 2};
  return Shape{x[0], s.out_h(), s.out_w(), w[3]};
}

absl::StatusOr<Shape> Conv2dShape(const Checker& c, const NodeAttrs& a,
                                  const std::vector<Shape>& in) {
  PRUNER_RETURN_IF_ERROR(c.Arity(in, 2));
  const Shape& x = in[0];
  const Shape& w = in[1];
  PRUNER_RETURN_IF_ERROR(c.Rank("input", x, 4));
  PRUNER_RETURN_IF_ERROR(c.Rank("weight", w, 4));
  if (a.winograd) return WinogradConv2dShape(c, a, x, w);
  PRUNER_RETURN_IF_ERROR(c.Positive("groups", a.groups));
  PRUNER_RETURN_IF_ERROR(c.Positive("stride_h", a.stride_h));
  PRUNER_RETURN_IF_ERROR(c.Positive("stride_w", a.stride_w));
  PRUNER_RETURN_IF_ERROR(c.Positive("dilation_h", a.dilation_h));
  PRUNER_RETURN_IF_ERROR(c.Positive("dilation_w", a.dilation_w));
  // Axes of the input: NCHW, or NHWC with channels_last.
  const int c_axis = a.channels_last ? 3 : 1, h_axis = a.channels_last ? 1 : 2,
            w_axis = a.channels_last ? 2 : 3;
  const int64_t channels = x[c_axis];
  if (channels % a.groups != 0 || w[0] % a.groups != 0) {
    return c.Error("input channels ", channels, " and output channels ", w[0],
                   " must both be divisible by groups=", a.groups);
  }
  if (w[1] * a.groups != channels) {
    return c.Error("input ", ShapeToString(x), " has ", channels, " channels but weight ",
                   ShapeToString(w), " expects ", w[1] * a.groups, " (", w[1], " per group x ",
                   a.groups, " groups)");
  }
  PRUNER_RETURN_IF_ERROR(c.WindowFits("height", x[h_axis], w[2], a.pad_h, a.dilation_h));
  PRUNER_RETURN_IF_ERROR(c.WindowFits("width", x[w_axis], w[3], a.pad_w, a.dilation_w));
  const int64_t out_h = ConvOutputSize(x[h_axis], w[2], a.stride_h, a.pad_h, a.dilation_h);
  const int64_t out_w = ConvOutputSize(x[w_axis], w[3], a.stride_w, a.pad_w, a.dilation_w);
  if (a.channels_last) return Shape{x[0], out_h, out_w, w[0]};
  return Shape{x[0], w[0], out_h, out_w};
}

absl::StatusOr<Shape> PoolShape(const Checker& c, const NodeAttrs& a,
                                const std::vector<Shape>& in) {
  PRUNER_RETURN_IF_ERROR(c.Arity(in, 1));
  const Shape& x = in[0];
  PRUNER_RETURN_IF_ERROR(c.Rank("input", x, 4));
  PRUNER_RETURN_IF_ERROR(c.Positive("kernel_h", a.kernel_h));
  PRUNER_RETURN_IF_ERROR(c.Positive("kernel_w", a.kernel_w));
  PRUNER_RETURN_IF_ERROR(c.Positive("stride_h", a.stride_h));
  PRUNER_RETURN_IF_ERROR(c.Positive("stride_w", a.stride_w));
  // As in PyTorch (and ops.h Pool2d): every window overlaps the input.
  if (2 * a.pad_h > a.kernel_h || 2 * a.pad_w > a.kernel_w) {
    return c.Error("padding (", a.pad_h, ", ", a.pad_w, ") must be at most half the kernel (",
                   a.kernel_h, ", ", a.kernel_w, ")");
  }
  const int h_axis = a.channels_last ? 1 : 2, w_axis = a.channels_last ? 2 : 3;
  PRUNER_RETURN_IF_ERROR(c.WindowFits("height", x[h_axis], a.kernel_h, a.pad_h, 1));
  PRUNER_RETURN_IF_ERROR(c.WindowFits("width", x[w_axis], a.kernel_w, a.pad_w, 1));
  const int64_t out_h = ConvOutputSize(x[h_axis], a.kernel_h, a.stride_h, a.pad_h, 1);
  const int64_t out_w = ConvOutputSize(x[w_axis], a.kernel_w, a.stride_w, a.pad_w, 1);
  if (a.channels_last) return Shape{x[0], out_h, out_w, x[3]};
  return Shape{x[0], x[1], out_h, out_w};
}

absl::StatusOr<Shape> DenseShape(const Checker& c, const std::vector<Shape>& in) {
  PRUNER_RETURN_IF_ERROR(c.Arity(in, 2));
  PRUNER_RETURN_IF_ERROR(c.Rank("input", in[0], 2));
  PRUNER_RETURN_IF_ERROR(c.Rank("weight", in[1], 2));
  if (in[0][1] != in[1][1]) {
    return c.Error("input ", ShapeToString(in[0]), " has ", in[0][1], " features but weight ",
                   ShapeToString(in[1]), " expects ", in[1][1]);
  }
  return Shape{in[0][0], in[1][0]};
}

absl::StatusOr<Shape> BatchMatmulShape(const Checker& c, const NodeAttrs& a,
                                       const std::vector<Shape>& in) {
  PRUNER_RETURN_IF_ERROR(c.Arity(in, 2));
  PRUNER_RETURN_IF_ERROR(c.Rank("a", in[0], 3));
  PRUNER_RETURN_IF_ERROR(c.Rank("b", in[1], 3));
  const Shape& lhs = in[0];
  const Shape& rhs = in[1];
  const int64_t k = a.transpose_b ? rhs[2] : rhs[1];
  const int64_t n = a.transpose_b ? rhs[1] : rhs[2];
  if (lhs[0] != rhs[0]) {
    return c.Error("batch sizes differ: a ", ShapeToString(lhs), ", b ", ShapeToString(rhs));
  }
  if (lhs[2] != k) {
    return c.Error("a ", ShapeToString(lhs), " has K=", lhs[2], " but b ", ShapeToString(rhs),
                   a.transpose_b ? " (transposed)" : "", " has K=", k);
  }
  return Shape{lhs[0], lhs[1], n};
}

absl::StatusOr<Shape> BiasAddShape(const Checker& c, const NodeAttrs& a,
                                   const std::vector<Shape>& in) {
  PRUNER_RETURN_IF_ERROR(c.Arity(in, 2));
  const Shape& x = in[0];
  if (a.axis < 0 || a.axis >= static_cast<int>(x.size())) {
    return c.Error("axis ", a.axis, " is out of range for input ", ShapeToString(x));
  }
  if (in[1].size() != 1 || in[1][0] != x[a.axis]) {
    return c.Error("bias ", ShapeToString(in[1]), " must be [", x[a.axis], "] to match axis ",
                   a.axis, " of input ", ShapeToString(x));
  }
  return x;
}

absl::StatusOr<Shape> BroadcastBinary(const Checker& c, const std::vector<Shape>& in) {
  PRUNER_RETURN_IF_ERROR(c.Arity(in, 2));
  absl::StatusOr<Shape> out = BroadcastShapes(in[0], in[1]);
  if (!out.ok()) {
    return c.Error("input shapes ", ShapeToString(in[0]), " and ", ShapeToString(in[1]),
                   " do not broadcast");
  }
  return out;
}

absl::StatusOr<Shape> LayerNormShape(const Checker& c, const std::vector<Shape>& in) {
  if (in.size() != 1 && in.size() != 3) {
    return c.Error("expects 1 input or 3 (x, gamma, beta), got ", in.size());
  }
  const Shape& x = in[0];
  if (x.size() < 2) return c.Error("input must have rank >= 2 (rows, then the normalized axis)");
  for (size_t i = 1; i < in.size(); ++i) {
    if (in[i].size() != 1 || in[i][0] != x.back()) {
      return c.Error(i == 1 ? "gamma " : "beta ", ShapeToString(in[i]), " must be [", x.back(),
                     "] to match the last axis of input ", ShapeToString(x));
    }
  }
  return x;
}

absl::StatusOr<Shape> ReshapeShape(const Checker& c, const NodeAttrs& a,
                                   const std::vector<Shape>& in) {
  PRUNER_RETURN_IF_ERROR(c.Arity(in, 1));
  const int64_t total = NumElements(in[0]);
  int64_t known = 1;
  int inferred = -1;
  for (size_t i = 0; i < a.shape.size(); ++i) {
    if (a.shape[i] == -1 && inferred < 0) {
      inferred = static_cast<int>(i);
    } else if (a.shape[i] <= 0) {
      return c.Error("bad target shape ", ShapeToString(a.shape),
                     ": entries must be positive, with at most one -1");
    } else {
      known *= a.shape[i];
    }
  }
  Shape out = a.shape;
  if (a.shape.empty()) return c.Error("the target shape is empty");
  if (inferred >= 0) {
    if (total % known != 0) {
      return c.Error("cannot reshape ", ShapeToString(in[0]), " into ", ShapeToString(a.shape));
    }
    out[inferred] = total / known;
  }
  if (NumElements(out) != total) {
    return c.Error("cannot reshape ", ShapeToString(in[0]), " (", total, " elements) into ",
                   ShapeToString(out), " (", NumElements(out), " elements)");
  }
  return out;
}

absl::StatusOr<Shape> TransposeShape(const Checker& c, const NodeAttrs& a,
                                     const std::vector<Shape>& in) {
  PRUNER_RETURN_IF_ERROR(c.Arity(in, 1));
  const Shape& x = in[0];
  std::vector<bool> seen(x.size(), false);
  bool ok = a.perm.size() == x.size();
  Shape out;
  for (size_t i = 0; ok && i < a.perm.size(); ++i) {
    const int p = a.perm[i];
    ok = p >= 0 && p < static_cast<int>(x.size()) && !seen[p];
    if (ok) {
      seen[p] = true;
      out.push_back(x[p]);
    }
  }
  if (!ok) {
    return c.Error("perm [", absl::StrJoin(a.perm, ", "), "] is not a permutation of the ",
                   x.size(), " axes of input ", ShapeToString(x));
  }
  return out;
}

absl::StatusOr<Shape> GatherShape(const Checker& c, const NodeAttrs& a,
                                  const std::vector<Shape>& in) {
  PRUNER_RETURN_IF_ERROR(c.Arity(in, 2));
  const Shape& table = in[0];
  if (a.axis < 0 || a.axis >= static_cast<int>(table.size())) {
    return c.Error("axis ", a.axis, " is outside the ", table.size(), " axes of the table ",
                   ShapeToString(table));
  }
  Shape out(table.begin(), table.begin() + a.axis);
  out.insert(out.end(), in[1].begin(), in[1].end());
  out.insert(out.end(), table.begin() + a.axis + 1, table.end());
  return out;
}

absl::StatusOr<Shape> ConcatShape(const Checker& c, const NodeAttrs& a,
                                  const std::vector<Shape>& in) {
  if (in.empty()) return c.Error("needs at least one input");
  Shape out = in[0];
  if (a.axis < 0 || a.axis >= static_cast<int>(out.size())) {
    return c.Error("axis ", a.axis, " is outside the ", out.size(), " axes of input ",
                   ShapeToString(out));
  }
  for (size_t i = 1; i < in.size(); ++i) {
    bool ok = in[i].size() == out.size();
    for (size_t d = 0; ok && d < out.size(); ++d) {
      ok = static_cast<int>(d) == a.axis || in[i][d] == out[d];
    }
    if (!ok) {
      return c.Error("input ", i, " ", ShapeToString(in[i]), " does not match input 0 ",
                     ShapeToString(in[0]), " outside axis ", a.axis);
    }
    out[a.axis] += in[i][a.axis];
  }
  return out;
}

absl::StatusOr<Shape> SliceShape(const Checker& c, const NodeAttrs& a,
                                 const std::vector<Shape>& in) {
  PRUNER_RETURN_IF_ERROR(c.Arity(in, 1));
  const Shape& x = in[0];
  if (a.axis < 0 || a.axis >= static_cast<int>(x.size())) {
    return c.Error("axis ", a.axis, " is outside the ", x.size(), " axes of input ",
                   ShapeToString(x));
  }
  if (a.begin < 0 || a.begin >= a.end || a.end > x[a.axis]) {
    return c.Error("range [", a.begin, ", ", a.end, ") is empty or outside axis ", a.axis,
                   " of input ", ShapeToString(x));
  }
  Shape out = x;
  out[a.axis] = a.end - a.begin;
  return out;
}

}  // namespace

absl::StatusOr<std::vector<int64_t>> InferShape(NodeKind kind, std::string_view node_name,
                                                const NodeAttrs& attrs,
                                                const std::vector<Shape>& inputs) {
  const Checker c(kind, node_name);
  for (size_t i = 0; i < inputs.size(); ++i) {
    if (inputs[i].empty()) return c.Error("input ", i, " has rank 0");
    for (int64_t d : inputs[i]) {
      if (d <= 0)
        return c.Error("input ", i, " has a non-positive extent: ", ShapeToString(inputs[i]));
    }
  }
  switch (kind) {
    case NodeKind::kConv2d: return Conv2dShape(c, attrs, inputs);
    case NodeKind::kDense: return DenseShape(c, inputs);
    case NodeKind::kBatchMatmul: return BatchMatmulShape(c, attrs, inputs);
    case NodeKind::kMaxPool2d:
    case NodeKind::kAvgPool2d: return PoolShape(c, attrs, inputs);
    case NodeKind::kGlobalAvgPool2d:
      PRUNER_RETURN_IF_ERROR(c.Arity(inputs, 1));
      PRUNER_RETURN_IF_ERROR(c.Rank("input", inputs[0], 4));
      if (attrs.channels_last) return Shape{inputs[0][0], 1, 1, inputs[0][3]};
      return Shape{inputs[0][0], inputs[0][1], 1, 1};
    case NodeKind::kSoftmax:
      PRUNER_RETURN_IF_ERROR(c.Arity(inputs, 1));
      if (inputs[0].size() < 2) return c.Error("input must have rank >= 2 (rows, then the axis)");
      if (attrs.axis != -1 && attrs.axis != static_cast<int>(inputs[0].size()) - 1) {
        return c.Error("only the last axis is supported, got axis ", attrs.axis);
      }
      return inputs[0];
    case NodeKind::kLayerNorm: return LayerNormShape(c, inputs);
    case NodeKind::kBiasAdd: return BiasAddShape(c, attrs, inputs);
    case NodeKind::kRelu:
    case NodeKind::kRelu6:
    case NodeKind::kGelu:
    case NodeKind::kScale:
    case NodeKind::kErf:
    case NodeKind::kTanh:
    case NodeKind::kSqrt:
    case NodeKind::kSigmoid: PRUNER_RETURN_IF_ERROR(c.Arity(inputs, 1)); return inputs[0];
    case NodeKind::kPow:
      PRUNER_RETURN_IF_ERROR(c.Arity(inputs, 1));
      if (attrs.scalar != 0.5 && attrs.scalar != 1 && attrs.scalar != 2 && attrs.scalar != 3) {
        return c.Error("exponent ", attrs.scalar, " is not one of 0.5, 1, 2, 3");
      }
      return inputs[0];
    case NodeKind::kAdd:
    case NodeKind::kMultiply:
    case NodeKind::kSubtract:
    case NodeKind::kDivide: return BroadcastBinary(c, inputs);
    case NodeKind::kReshape: return ReshapeShape(c, attrs, inputs);
    case NodeKind::kTranspose: return TransposeShape(c, attrs, inputs);
    case NodeKind::kGather: return GatherShape(c, attrs, inputs);
    case NodeKind::kConcat: return ConcatShape(c, attrs, inputs);
    case NodeKind::kSlice: return SliceShape(c, attrs, inputs);
  }
  return c.Error("unknown node kind");
}

absl::StatusOr<std::vector<int64_t>> BroadcastShapes(const std::vector<int64_t>& a,
                                                     const std::vector<int64_t>& b) {
  const size_t rank = std::max(a.size(), b.size());
  std::vector<int64_t> out(rank);
  for (size_t i = 0; i < rank; ++i) {
    // Aligned from the right; a missing leading dimension acts as 1.
    const int64_t da = i < rank - a.size() ? 1 : a[i - (rank - a.size())];
    const int64_t db = i < rank - b.size() ? 1 : b[i - (rank - b.size())];
    if (da != db && da != 1 && db != 1) {
      return absl::InvalidArgumentError(absl::StrCat("shapes ", ShapeToString(a), " and ",
                                                     ShapeToString(b), " do not broadcast"));
    }
    out[i] = da == 1 ? db : da;
  }
  return out;
}

}  // namespace pruner
