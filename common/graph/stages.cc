#include "common/graph/stages.h"

#include <limits>
#include <utility>

#include "absl/strings/str_cat.h"
#include "common/base/absl_compat.h"
#include "common/graph/shape_inference.h"
#include "common/ir/winograd.h"

namespace pruner {
namespace {

constexpr double kSqrtHalf = 0.70710678118654752440;  // 1 / sqrt(2), for GELU

std::vector<Expr> Prefix(const std::vector<Expr>& v, size_t n) {
  return std::vector<Expr>(v.begin(), v.begin() + static_cast<std::ptrdiff_t>(n));
}

std::vector<int64_t> AllButLast(const std::vector<int64_t>& shape) {
  return std::vector<int64_t>(shape.begin(), shape.end() - 1);
}

// A pad stage over the spatial axes h_axis, w_axis of a 4-D input (2, 3 for
// NCHW; 1, 2 for NHWC): X[..., y - pad_h, ..., x - pad_w, ...] inside the
// input, `value` in the border; `input` itself without padding. Same stage
// as ops.cc.
int PadSpatial(StageBuilder& b, int input, int64_t pad_h, int64_t pad_w, double value,
               int h_axis = 2, int w_axis = 3) {
  if (pad_h == 0 && pad_w == 0) return input;
  const std::vector<int64_t> s = b.Shape(input);
  std::vector<int64_t> padded = s;
  padded[h_axis] += 2 * pad_h;
  padded[w_axis] += 2 * pad_w;
  return b.Compute("pad", StageBuilder::AxesLike(padded), {}, ReduceKind::kNone, "pad",
                   [&](const std::vector<Expr>& v) {
                     Expr in_bounds = IntImm(1, DType::kBool);
                     for (int d : {h_axis, w_axis}) {
                       const int64_t pad = d == h_axis ? pad_h : pad_w;
                       if (pad == 0) continue;
                       in_bounds =
                           And(in_bounds, And(Compare(CompareOp::kGE, v[d], IntImm(pad)),
                                              Compare(CompareOp::kLT, v[d], IntImm(s[d] + pad))));
                     }
                     std::vector<Expr> index = v;
                     index[h_axis] = Sub(v[h_axis], IntImm(pad_h));
                     index[w_axis] = Sub(v[w_axis], IntImm(pad_w));
                     return Select(in_bounds, b.Read(input, std::move(index)), FloatImm(value));
                   });
}

// NCHW, or NHWC with a.channels_last (ops.h Conv2d; the weights are OIHW
// either way).
int Conv2dStages(StageBuilder& b, const NodeAttrs& a, int x, int w) {
  const bool nhwc = a.channels_last;
  const std::vector<int64_t> xs = b.Shape(x);
  const std::vector<int64_t> ws = b.Shape(w);
  if (a.winograd) {  // x NHWC, w packed [m+2, m+2, C, K]; shape inference checked the rest
    return WinogradConv2dStages(b, x, w,
                                {.batch = xs[0],
                                 .height = xs[1],
                                 .width = xs[2],
                                 .in_channels = xs[3],
                                 .out_channels = ws[3],
                                 .pad_h = a.pad_h,
                                 .pad_w = a.pad_w,
                                 .tile = ws[0] - 2});
  }
  const int64_t kernel_h = ws[2], kernel_w = ws[3];
  const int64_t in_h = xs[nhwc ? 1 : 2], in_w = xs[nhwc ? 2 : 3];
  const int64_t out_h = (in_h + 2 * a.pad_h - a.dilation_h * (kernel_h - 1) - 1) / a.stride_h + 1;
  const int64_t out_w = (in_w + 2 * a.pad_w - a.dilation_w * (kernel_w - 1) - 1) / a.stride_w + 1;
  const int64_t in_per_group = ws[1];
  const int64_t out_per_group = ws[0] / a.groups;
  // One input channel per group: the rc axis (extent 1) is left out.
  const bool single_channel = in_per_group == 1;
  std::string tag = single_channel && a.groups > 1 ? "depthwise_conv2d"
                    : a.groups > 1                 ? "group_conv2d"
                                                   : "conv2d";
  if (nhwc) tag += "_nhwc";
  const int padded = PadSpatial(b, x, a.pad_h, a.pad_w, 0.0, nhwc ? 1 : 2, nhwc ? 2 : 3);
  std::vector<Axis> reduce_axes;
  if (!single_channel) reduce_axes.push_back({"rc", in_per_group});
  reduce_axes.push_back({"ry", kernel_h});
  reduce_axes.push_back({"rx", kernel_w});
  const std::vector<Axis> axes =
      nhwc ? std::vector<Axis>{{"nn", xs[0]}, {"yy", out_h}, {"xx", out_w}, {"ff", ws[0]}}
           : std::vector<Axis>{{"nn", xs[0]}, {"ff", ws[0]}, {"yy", out_h}, {"xx", out_w}};
  const int ff_axis = nhwc ? 3 : 1, yy_axis = nhwc ? 1 : 2, xx_axis = nhwc ? 2 : 3;
  return b.Compute(
      tag, axes, reduce_axes, ReduceKind::kSum, tag, [&](const std::vector<Expr>& v) {
        const Expr& ff = v[ff_axis];
        const Expr rc = single_channel ? IntImm(0) : v[4];
        const Expr& ry = v[single_channel ? 4 : 5];
        const Expr& rx = v[single_channel ? 5 : 6];
        // The input channel read by output channel ff: its group's first
        // channel plus rc.
        Expr channel =
            a.groups == 1 ? rc
                          : Add(Mul(FloorDiv(ff, IntImm(out_per_group)), IntImm(in_per_group)), rc);
        Expr y = Add(Mul(v[yy_axis], IntImm(a.stride_h)), Mul(ry, IntImm(a.dilation_h)));
        Expr xx = Add(Mul(v[xx_axis], IntImm(a.stride_w)), Mul(rx, IntImm(a.dilation_w)));
        Expr input = nhwc ? b.Read(padded, {v[0], y, xx, channel})
                          : b.Read(padded, {v[0], channel, y, xx});
        return Mul(input, b.Read(w, {ff, rc, ry, rx}));
      });
}

int DenseStage(StageBuilder& b, int x, int w) {
  const int64_t m = b.Shape(x)[0], k = b.Shape(x)[1], n = b.Shape(w)[0];
  return b.Compute("dense", {{"i", m}, {"j", n}}, {{"k", k}}, ReduceKind::kSum, "dense",
                   [&](const std::vector<Expr>& v) {
                     return Mul(b.Read(x, {v[0], v[2]}), b.Read(w, {v[1], v[2]}));
                   });
}

int BatchMatmulStage(StageBuilder& b, bool transpose_b, int lhs, int rhs) {
  const std::vector<int64_t> ls = b.Shape(lhs);
  const int64_t n = transpose_b ? b.Shape(rhs)[1] : b.Shape(rhs)[2];
  return b.Compute(
      "batch_matmul", {{"b", ls[0]}, {"i", ls[1]}, {"j", n}}, {{"k", ls[2]}}, ReduceKind::kSum,
      "batch_matmul", [&](const std::vector<Expr>& v) {
        Expr r = transpose_b ? b.Read(rhs, {v[0], v[2], v[3]}) : b.Read(rhs, {v[0], v[3], v[2]});
        return Mul(b.Read(lhs, {v[0], v[1], v[3]}), r);
      });
}

// NCHW, or NHWC with a.channels_last: the pooling window runs over the
// spatial axes either way; the reduce stage's tag gains "_nhwc".
int Pool2dStages(StageBuilder& b, const NodeAttrs& a, bool is_max, int x) {
  const bool nhwc = a.channels_last;
  const int h_axis = nhwc ? 1 : 2, w_axis = nhwc ? 2 : 3;
  const std::vector<int64_t> s = b.Shape(x);
  const int64_t out_h = (s[h_axis] + 2 * a.pad_h - a.kernel_h) / a.stride_h + 1;
  const int64_t out_w = (s[w_axis] + 2 * a.pad_w - a.kernel_w) / a.stride_w + 1;
  // Max pooling pads with the lowest finite float, as ops.h documents.
  const double pad_value = is_max ? std::numeric_limits<float>::lowest() : 0.0;
  const int padded = PadSpatial(b, x, a.pad_h, a.pad_w, pad_value, h_axis, w_axis);
  const std::vector<Axis> axes =
      nhwc ? std::vector<Axis>{{"nn", s[0]}, {"yy", out_h}, {"xx", out_w}, {"cc", s[3]}}
           : std::vector<Axis>{{"nn", s[0]}, {"cc", s[1]}, {"yy", out_h}, {"xx", out_w}};
  std::string tag = is_max ? "max_pool2d" : "avg_pool2d_sum";
  if (nhwc) tag += "_nhwc";
  const int pooled = b.Compute(
      is_max ? "pool_max" : "pool_sum", axes, {{"rv", a.kernel_h}, {"rw", a.kernel_w}},
      is_max ? ReduceKind::kMax : ReduceKind::kSum, tag, [&](const std::vector<Expr>& v) {
        std::vector<Expr> index = {v[0], v[1], v[2], v[3]};
        index[h_axis] = Add(Mul(v[h_axis], IntImm(a.stride_h)), v[4]);
        index[w_axis] = Add(Mul(v[w_axis], IntImm(a.stride_w)), v[5]);
        return b.Read(padded, std::move(index));
      });
  if (is_max) return pooled;
  const double window = static_cast<double>(a.kernel_h * a.kernel_w);
  return b.Pointwise("pool_avg", pooled, "avg_pool2d", [&](Expr sum, const std::vector<Expr>&) {
    return Div(sum, FloatImm(window));
  });
}

// Sum over H and W into [N, C, 1, 1] ([N, 1, 1, C] with channels_last),
// then divide by H * W.
int GlobalAvgPoolStages(StageBuilder& b, const NodeAttrs& a, int x) {
  const bool nhwc = a.channels_last;
  const std::vector<int64_t> s = b.Shape(x);
  const int64_t h = s[nhwc ? 1 : 2], w = s[nhwc ? 2 : 3];
  const std::vector<Axis> axes =
      nhwc ? std::vector<Axis>{{"nn", s[0]}, {"yy", 1}, {"xx", 1}, {"cc", s[3]}}
           : std::vector<Axis>{{"nn", s[0]}, {"cc", s[1]}, {"yy", 1}, {"xx", 1}};
  const int sum = b.Compute("global_pool_sum", axes, {{"rv", h}, {"rw", w}}, ReduceKind::kSum,
                            nhwc ? "global_avg_pool2d_sum_nhwc" : "global_avg_pool2d_sum",
                            [&](const std::vector<Expr>& v) {
                              return nhwc ? b.Read(x, {v[0], v[4], v[5], v[3]})
                                          : b.Read(x, {v[0], v[1], v[4], v[5]});
                            });
  const double window = static_cast<double>(h * w);
  return b.Pointwise(
      "global_pool_avg", sum, "global_avg_pool2d",
      [&](Expr total, const std::vector<Expr>&) { return Div(total, FloatImm(window)); });
}

// Over the last axis; the leading axes are rows. For rank 2 these are the
// four stages of ops.h Softmax.
int SoftmaxStages(StageBuilder& b, int x) {
  const std::vector<int64_t> s = b.Shape(x);
  const size_t rows = s.size() - 1;
  const std::vector<Axis> row_axes = StageBuilder::AxesLike(AllButLast(s));
  const std::vector<Axis> all_axes = StageBuilder::AxesLike(s);
  const int max_elem =
      b.Compute("max_elem", row_axes, {{"k", s.back()}}, ReduceKind::kMax, "softmax_max",
                [&](const std::vector<Expr>& v) { return b.Read(x, v); });
  const int exp = b.Compute(
      "exp", all_axes, {}, ReduceKind::kNone, "softmax_exp", [&](const std::vector<Expr>& v) {
        return Call(CallFn::kExp, {Sub(b.Read(x, v), b.Read(max_elem, Prefix(v, rows)))});
      });
  const int exp_sum =
      b.Compute("exp_sum", row_axes, {{"k", s.back()}}, ReduceKind::kSum, "softmax_sum",
                [&](const std::vector<Expr>& v) { return b.Read(exp, v); });
  return b.Compute("softmax", all_axes, {}, ReduceKind::kNone, "softmax_norm",
                   [&](const std::vector<Expr>& v) {
                     return Div(b.Read(exp, v), b.Read(exp_sum, Prefix(v, rows)));
                   });
}

// Over the last axis; for rank 2 these are the stages of ops.h LayerNorm.
int LayerNormStages(StageBuilder& b, double eps, int x, int gamma, int beta) {
  const std::vector<int64_t> s = b.Shape(x);
  const size_t rows = s.size() - 1;
  const std::vector<Axis> row_axes = StageBuilder::AxesLike(AllButLast(s));
  const std::vector<Axis> all_axes = StageBuilder::AxesLike(s);
  const Expr inv_cols = FloatImm(1.0 / static_cast<double>(s.back()));
  const int sum = b.Compute("sum", row_axes, {{"k", s.back()}}, ReduceKind::kSum, "layer_norm_sum",
                            [&](const std::vector<Expr>& v) { return b.Read(x, v); });
  const int mean =
      b.Compute("mean", row_axes, {}, ReduceKind::kNone, "layer_norm_mean",
                [&](const std::vector<Expr>& v) { return Mul(b.Read(sum, v), inv_cols); });
  const int var_sum = b.Compute("var_sum", row_axes, {{"k", s.back()}}, ReduceKind::kSum,
                                "layer_norm_var_sum", [&](const std::vector<Expr>& v) {
                                  Expr d = Sub(b.Read(x, v), b.Read(mean, Prefix(v, rows)));
                                  return Mul(d, d);
                                });
  const int rstd = b.Compute("rstd", row_axes, {}, ReduceKind::kNone, "layer_norm_rstd",
                             [&](const std::vector<Expr>& v) {
                               Expr var = Add(Mul(b.Read(var_sum, v), inv_cols), FloatImm(eps));
                               return Div(FloatImm(1.0), Call(CallFn::kSqrt, {var}));
                             });
  return b.Compute("layer_norm", all_axes, {}, ReduceKind::kNone, "layer_norm",
                   [&](const std::vector<Expr>& v) {
                     const std::vector<Expr> row = Prefix(v, rows);
                     Expr normalized = Mul(Sub(b.Read(x, v), b.Read(mean, row)), b.Read(rstd, row));
                     if (gamma < 0) return normalized;
                     return Add(Mul(normalized, b.Read(gamma, {v[rows]})), b.Read(beta, {v[rows]}));
                   });
}

// Reads `tensor` at the output position `v` under numpy broadcasting: its
// dimensions align with the last ones of `v`, and a dimension of 1 that the
// output stretches reads index 0. Equal shapes read plainly at `v`.
Expr ReadBroadcast(const StageBuilder& b, int tensor, const std::vector<int64_t>& out_shape,
                   const std::vector<Expr>& v) {
  const std::vector<int64_t>& s = b.Shape(tensor);
  const size_t offset = out_shape.size() - s.size();
  std::vector<Expr> index;
  for (size_t d = 0; d < s.size(); ++d) {
    index.push_back(s[d] == 1 && out_shape[offset + d] != 1 ? IntImm(0) : v[offset + d]);
  }
  return b.Read(tensor, std::move(index));
}

int BinaryStage(StageBuilder& b, const char* name, BinaryOp op, int lhs, int rhs) {
  const absl::StatusOr<std::vector<int64_t>> shape = BroadcastShapes(b.Shape(lhs), b.Shape(rhs));
  const std::vector<int64_t> out = shape.ok() ? *shape : b.Shape(lhs);  // checked by the builder
  return b.Compute(name, StageBuilder::AxesLike(out), {}, ReduceKind::kNone, name,
                   [&](const std::vector<Expr>& v) {
                     return Binary(op, ReadBroadcast(b, lhs, out, v), ReadBroadcast(b, rhs, out, v));
                   });
}

// x ** exponent for the exponents shape inference admits (0.5, 1, 2, 3).
Expr PowExpr(Expr x, double exponent) {
  if (exponent == 0.5) return Call(CallFn::kSqrt, {x});
  if (exponent == 2) return Mul(x, x);
  if (exponent == 3) return Mul(Mul(x, x), x);
  return x;
}

}  // namespace

int StageBuilder::Placeholder(std::string name, std::vector<int64_t> shape, bool layout_free) {
  auto op = std::make_shared<Op>();
  op->id = static_cast<int>(ops_.size());
  op->name = std::move(name);
  op->kind = OpKind::kPlaceholder;
  op->dtype = DType::kFloat32;
  op->shape = std::move(shape);
  if (layout_free) op->attrs[kLayoutFreeAttr] = "1";
  ops_.push_back(std::move(op));
  return static_cast<int>(ops_.size()) - 1;
}

int StageBuilder::Compute(std::string name, std::vector<Axis> axes, std::vector<Axis> reduce_axes,
                          ReduceKind reduce, std::string tag, const BodyFn& body) {
  auto op = std::make_shared<Op>();
  op->id = static_cast<int>(ops_.size());
  op->name = std::move(name);
  op->kind = OpKind::kCompute;
  op->dtype = DType::kFloat32;
  for (const Axis& axis : axes) op->shape.push_back(axis.extent);
  op->axes = std::move(axes);
  op->reduce_axes = std::move(reduce_axes);
  op->reduce = reduce;
  op->attrs["op"] = std::move(tag);
  std::vector<Expr> vars;
  for (int i = 0; i < op->num_axes(); ++i) vars.push_back(op->axis_var(i));
  op->body = body(vars);
  ops_.push_back(std::move(op));
  return static_cast<int>(ops_.size()) - 1;
}

int StageBuilder::Pointwise(std::string name, int input, std::string tag,
                            const std::function<Expr(Expr, const std::vector<Expr>&)>& fn) {
  return Compute(std::move(name), AxesLike(Shape(input)), {}, ReduceKind::kNone, std::move(tag),
                 [&](const std::vector<Expr>& v) { return fn(Read(input, v), v); });
}

Expr StageBuilder::Read(int tensor, std::vector<Expr> indices) const {
  const Op& op = *ops_[tensor];
  return pruner::Read(tensor, op.name, op.dtype, std::move(indices));
}

absl::StatusOr<ComputeDag> StageBuilder::Build() && { return ComputeDag::Create(std::move(ops_)); }

std::vector<Axis> StageBuilder::AxesLike(const std::vector<int64_t>& shape) {
  static constexpr const char* kNames[] = {"i", "j", "k", "l"};
  std::vector<Axis> axes;
  for (size_t d = 0; d < shape.size(); ++d) {
    axes.push_back({d < 4 ? kNames[d] : absl::StrCat("ax", d), shape[d]});
  }
  return axes;
}

absl::StatusOr<int> EmitNodeStages(StageBuilder& b, const GraphNode& node,
                                   const std::vector<int>& in) {
  const NodeAttrs& a = node.attrs;
  using V = const std::vector<Expr>&;
  switch (node.kind) {
    case NodeKind::kConv2d: return Conv2dStages(b, a, in[0], in[1]);
    case NodeKind::kDense: return DenseStage(b, in[0], in[1]);
    case NodeKind::kBatchMatmul: return BatchMatmulStage(b, a.transpose_b, in[0], in[1]);
    case NodeKind::kMaxPool2d:
    case NodeKind::kAvgPool2d: return Pool2dStages(b, a, node.kind == NodeKind::kMaxPool2d, in[0]);
    case NodeKind::kGlobalAvgPool2d: return GlobalAvgPoolStages(b, a, in[0]);
    case NodeKind::kSoftmax: return SoftmaxStages(b, in[0]);
    case NodeKind::kLayerNorm:
      return LayerNormStages(b, a.eps, in[0], in.size() == 3 ? in[1] : -1,
                             in.size() == 3 ? in[2] : -1);
    case NodeKind::kBiasAdd:
      return b.Pointwise("bias_add", in[0], "bias_add",
                         [&](Expr x, V v) { return Add(x, b.Read(in[1], {v[a.axis]})); });
    case NodeKind::kRelu:
      return b.Pointwise("relu", in[0], "relu", [](Expr x, V) { return Max(x, FloatImm(0.0)); });
    case NodeKind::kRelu6:
      return b.Pointwise("relu6", in[0], "relu6",
                         [](Expr x, V) { return Min(Max(x, FloatImm(0.0)), FloatImm(6.0)); });
    case NodeKind::kGelu:
      return b.Pointwise("gelu", in[0], "gelu", [](Expr x, V) {
        Expr cdf = Add(FloatImm(1.0), Call(CallFn::kErf, {Mul(x, FloatImm(kSqrtHalf))}));
        return Mul(Mul(x, FloatImm(0.5)), cdf);
      });
    case NodeKind::kAdd: return BinaryStage(b, "add", BinaryOp::kAdd, in[0], in[1]);
    case NodeKind::kMultiply: return BinaryStage(b, "mul", BinaryOp::kMul, in[0], in[1]);
    case NodeKind::kSubtract: return BinaryStage(b, "sub", BinaryOp::kSub, in[0], in[1]);
    case NodeKind::kDivide: return BinaryStage(b, "div", BinaryOp::kDiv, in[0], in[1]);
    case NodeKind::kScale:
      return b.Pointwise("scale", in[0], "scale",
                         [&](Expr x, V) { return Mul(x, FloatImm(a.scalar)); });
    case NodeKind::kErf:
      return b.Pointwise("erf", in[0], "erf", [](Expr x, V) { return Call(CallFn::kErf, {x}); });
    case NodeKind::kTanh:
      return b.Pointwise("tanh", in[0], "tanh", [](Expr x, V) { return Call(CallFn::kTanh, {x}); });
    case NodeKind::kSqrt:
      return b.Pointwise("sqrt", in[0], "sqrt", [](Expr x, V) { return Call(CallFn::kSqrt, {x}); });
    case NodeKind::kSigmoid:
      return b.Pointwise("sigmoid", in[0], "sigmoid",
                         [](Expr x, V) { return Call(CallFn::kSigmoid, {x}); });
    case NodeKind::kPow:
      return b.Pointwise("pow", in[0], "pow", [&](Expr x, V) { return PowExpr(x, a.scalar); });
    case NodeKind::kReshape:
    case NodeKind::kTranspose:
    case NodeKind::kGather:
    case NodeKind::kConcat:
    case NodeKind::kSlice: break;
  }
  return absl::InvalidArgumentError(absl::StrCat(ToAbsl(NodeKindName(node.kind)), " '", node.name,
                                                 "' is a layout view and has no compute stages"));
}

}  // namespace pruner
