#include "common/ir/ops.h"

#include <cmath>
#include <functional>
#include <limits>
#include <map>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "common/base/absl_compat.h"
#include "common/base/status_macros.h"
#include "common/ir/tensor.h"
#include "common/ir/winograd.h"

namespace pruner {
namespace {

using Attrs = std::map<std::string, std::string>;
using BodyFn = std::function<Expr(const std::vector<Expr>& vars)>;

// No tensor may hold more elements than this, so that element counts and
// flat offsets stay far from int64 overflow.
constexpr int64_t kMaxElements = int64_t{1} << 48;

constexpr double kSqrtHalf = 0.70710678118654752440;  // 1 / sqrt(2), for GELU

// Appends ops in order, giving each the next tensor id; the first problem
// found is kept and returned by Build().
class DagBuilder {
 public:
  explicit DagBuilder(absl::string_view op_name) : op_name_(op_name) {}

  // layout_free: a parameter of the layer (weights, bias, affine scales),
  // constant once the model is deployed, so the tuner may store it in
  // whatever layout the schedule reads best (Op::is_layout_free).
  int Placeholder(std::string name, std::vector<int64_t> shape, bool layout_free = false) {
    auto op = NewOp(std::move(name), std::move(shape));
    op->kind = OpKind::kPlaceholder;
    if (layout_free) op->attrs[kLayoutFreeAttr] = "1";
    return Append(std::move(op));
  }
  int Weight(std::string name, std::vector<int64_t> shape) {
    return Placeholder(std::move(name), std::move(shape), /*layout_free=*/true);
  }

  // A stage over `axes` (and `reduce_axes` when reduce != kNone). body gets
  // the axis variables, spatial then reduce.
  int Compute(std::string name, std::vector<Axis> axes, std::vector<Axis> reduce_axes,
              ReduceKind reduce, std::string tag, const BodyFn& body) {
    std::vector<int64_t> shape;
    for (const Axis& axis : axes) shape.push_back(axis.extent);
    auto op = NewOp(std::move(name), std::move(shape));
    op->kind = OpKind::kCompute;
    op->axes = std::move(axes);
    op->reduce_axes = std::move(reduce_axes);
    op->reduce = reduce;
    op->attrs["op"] = std::move(tag);
    std::vector<Expr> vars;
    for (int i = 0; i < op->num_axes(); ++i) vars.push_back(op->axis_var(i));
    op->body = body(vars);
    return Append(std::move(op));
  }

  int Compute(std::string name, std::vector<Axis> axes, std::string tag, const BodyFn& body) {
    return Compute(std::move(name), std::move(axes), {}, ReduceKind::kNone, std::move(tag), body);
  }

  // A stage with the shape of `input`: out[v] = fn(input[v], v).
  int Pointwise(std::string name, int input, std::string tag,
                const std::function<Expr(Expr value, const std::vector<Expr>& vars)>& fn) {
    return Compute(std::move(name), AxesLike(Shape(input)), std::move(tag),
                   [&](const std::vector<Expr>& v) { return fn(Read(input, v), v); });
  }

  // The activation stage for `input`, or `input` itself for kNone.
  int Activate(int input, Activation activation) {
    switch (activation) {
      case Activation::kNone:
        return input;
      case Activation::kRelu:
        return Pointwise("relu", input, "relu",
                         [](Expr x, const std::vector<Expr>&) { return Max(x, FloatImm(0.0)); });
      case Activation::kGelu:
        return Pointwise("gelu", input, "gelu", [](Expr x, const std::vector<Expr>&) {
          Expr cdf = Add(FloatImm(1.0), Call(CallFn::kErf, {Mul(x, FloatImm(kSqrtHalf))}));
          return Mul(Mul(x, FloatImm(0.5)), cdf);
        });
    }
    return input;
  }

  Expr Read(int tensor, std::vector<Expr> indices) const {
    const Op& op = *ops_[tensor];
    return pruner::Read(tensor, op.name, op.dtype, std::move(indices));
  }

  const std::vector<int64_t>& Shape(int tensor) const { return ops_[tensor]->shape; }

  absl::StatusOr<ComputeDag> Build() && {
    if (!status_.ok()) return status_;
    return ComputeDag::Create(std::move(ops_));
  }

  // Spatial axes named i, j, k, l, then ax4, ax5, ... over `shape`.
  static std::vector<Axis> AxesLike(const std::vector<int64_t>& shape) {
    static constexpr const char* kNames[] = {"i", "j", "k", "l"};
    std::vector<Axis> axes;
    for (size_t d = 0; d < shape.size(); ++d) {
      axes.push_back({d < 4 ? kNames[d] : absl::StrCat("ax", d), shape[d]});
    }
    return axes;
  }

 private:
  std::shared_ptr<Op> NewOp(std::string name, std::vector<int64_t> shape) {
    auto op = std::make_shared<Op>();
    op->id = static_cast<int>(ops_.size());
    op->name = std::move(name);
    op->dtype = DType::kFloat32;
    double elements = 1;
    for (int64_t d : shape) elements *= static_cast<double>(d);
    if (elements > static_cast<double>(kMaxElements) && status_.ok()) {
      status_ = absl::InvalidArgumentError(
          absl::StrCat(op_name_, ": tensor '", op->name, "' of shape ", ShapeToString(shape),
                       " has more than 2^48 elements"));
    }
    op->shape = std::move(shape);
    return op;
  }

  int Append(std::shared_ptr<Op> op) {
    ops_.push_back(std::move(op));
    return static_cast<int>(ops_.size()) - 1;
  }

  std::string op_name_;
  std::vector<OpRef> ops_;
  absl::Status status_;
};

// ---- Argument checks. Each returns InvalidArgument naming op and key.

struct NamedValue {
  const char* name;
  int64_t value;
};

absl::Status CheckPositive(absl::string_view op, std::initializer_list<NamedValue> values) {
  for (const NamedValue& v : values) {
    if (v.value <= 0) {
      return absl::InvalidArgumentError(
          absl::StrCat(op, ": ", v.name, " must be positive, got ", v.value));
    }
  }
  return absl::OkStatus();
}

absl::Status CheckNonNegative(absl::string_view op, std::initializer_list<NamedValue> values) {
  for (const NamedValue& v : values) {
    if (v.value < 0) {
      return absl::InvalidArgumentError(
          absl::StrCat(op, ": ", v.name, " must be non-negative, got ", v.value));
    }
  }
  return absl::OkStatus();
}

absl::Status CheckShape(absl::string_view op, const std::vector<int64_t>& shape) {
  if (shape.empty()) {
    return absl::InvalidArgumentError(absl::StrCat(op, ": the shape must have rank >= 1"));
  }
  for (size_t d = 0; d < shape.size(); ++d) {
    if (shape[d] <= 0) {
      return absl::InvalidArgumentError(absl::StrCat(op, ": dimension ", d, " of shape ",
                                                     ShapeToString(shape),
                                                     " must be positive, got ", shape[d]));
    }
  }
  return absl::OkStatus();
}

// The (dilated) kernel must fit in the padded input along one dimension.
absl::Status CheckWindowFits(absl::string_view op, const char* dim, int64_t in, int64_t kernel,
                             int64_t pad, int64_t dilation) {
  const int64_t window = dilation * (kernel - 1) + 1;
  if (window > in + 2 * pad) {
    return absl::InvalidArgumentError(absl::StrCat(
        op, ": the ", dim, " kernel spans ", window, " (kernel ", kernel, ", dilation ", dilation,
        ") but the padded input ", dim, " is only ", in + 2 * pad, " (", in, " + 2*", pad, ")"));
  }
  return absl::OkStatus();
}

// A "pad" stage over the spatial axes h_axis and w_axis of a 4-D input
// (2 and 3 for NCHW, 1 and 2 for NHWC): out[..., y, ..., x, ...] =
// X[..., y - pad_h, ..., x - pad_w, ...] inside the input and `value` in the
// border. Returns `input` when there is no padding.
int PadSpatial(DagBuilder& b, int input, int64_t pad_h, int64_t pad_w, double value,
               int h_axis = 2, int w_axis = 3) {
  if (pad_h == 0 && pad_w == 0) return input;
  std::vector<int64_t> s = b.Shape(input);
  std::vector<int64_t> padded = s;
  padded[h_axis] += 2 * pad_h;
  padded[w_axis] += 2 * pad_w;
  return b.Compute("pad", DagBuilder::AxesLike(padded), "pad", [&](const std::vector<Expr>& v) {
    Expr in_bounds = IntImm(1, DType::kBool);
    auto within = [&](const Expr& x, int64_t pad, int64_t extent) {
      if (pad == 0) return;
      in_bounds = And(in_bounds, And(Compare(CompareOp::kGE, x, IntImm(pad)),
                                     Compare(CompareOp::kLT, x, IntImm(extent + pad))));
    };
    within(v[h_axis], pad_h, s[h_axis]);
    within(v[w_axis], pad_w, s[w_axis]);
    std::vector<Expr> index = v;
    index[h_axis] = Sub(v[h_axis], IntImm(pad_h));
    index[w_axis] = Sub(v[w_axis], IntImm(pad_w));
    return Select(in_bounds, b.Read(input, std::move(index)), FloatImm(value));
  });
}

}  // namespace

std::string_view ActivationName(Activation activation) {
  switch (activation) {
    case Activation::kNone: return "none";
    case Activation::kRelu: return "relu";
    case Activation::kGelu: return "gelu";
  }
  return "?";
}

absl::StatusOr<Activation> ParseActivation(std::string_view name) {
  for (Activation a : {Activation::kNone, Activation::kRelu, Activation::kGelu}) {
    if (ActivationName(a) == name) return a;
  }
  return absl::InvalidArgumentError(
      absl::StrCat("unknown activation '", ToAbsl(name), "'; expected none, relu or gelu"));
}

absl::StatusOr<ComputeDag> Dense(int64_t batch, int64_t in_features, int64_t out_features,
                                 const DenseOptions& options) {
  if (absl::Status s = CheckPositive("dense", {{"M (batch)", batch},
                                               {"K (in_features)", in_features},
                                               {"N (out_features)", out_features}});
      !s.ok()) {
    return s;
  }
  DagBuilder b("dense");
  const int a = b.Placeholder("A", {batch, in_features});
  const int w = b.Weight("W", {out_features, in_features});
  const int bias = options.bias ? b.Weight("bias", {out_features}) : -1;
  int out = b.Compute("dense", {{"i", batch}, {"j", out_features}}, {{"k", in_features}},
                      ReduceKind::kSum, "dense", [&](const std::vector<Expr>& v) {
                        return Mul(b.Read(a, {v[0], v[2]}), b.Read(w, {v[1], v[2]}));
                      });
  if (options.bias) {
    out = b.Pointwise("bias_add", out, "bias_add", [&](Expr x, const std::vector<Expr>& v) {
      return Add(x, b.Read(bias, {v[1]}));
    });
  }
  b.Activate(out, options.activation);
  return std::move(b).Build();
}

absl::StatusOr<ComputeDag> Matmul(int64_t m, int64_t k, int64_t n) {
  PRUNER_RETURN_IF_ERROR(CheckPositive("matmul", {{"M", m}, {"K", k}, {"N", n}}));
  DagBuilder b("matmul");
  const int a = b.Placeholder("A", {m, k});
  const int w = b.Placeholder("B", {k, n});
  b.Compute("matmul", {{"i", m}, {"j", n}}, {{"k", k}}, ReduceKind::kSum, "matmul",
            [&](const std::vector<Expr>& v) {
              return Mul(b.Read(a, {v[0], v[2]}), b.Read(w, {v[2], v[1]}));
            });
  return std::move(b).Build();
}

absl::StatusOr<ComputeDag> BatchMatmul(int64_t batch, int64_t m, int64_t k, int64_t n,
                                       bool transpose_b) {
  if (absl::Status s = CheckPositive("batch_matmul", {{"B", batch}, {"M", m}, {"K", k}, {"N", n}});
      !s.ok()) {
    return s;
  }
  DagBuilder b("batch_matmul");
  const int a = b.Placeholder("A", {batch, m, k});
  const int w = transpose_b ? b.Placeholder("B", {batch, n, k}) : b.Placeholder("B", {batch, k, n});
  b.Compute("batch_matmul", {{"b", batch}, {"i", m}, {"j", n}}, {{"k", k}}, ReduceKind::kSum,
            "batch_matmul", [&](const std::vector<Expr>& v) {
              Expr rhs = transpose_b ? b.Read(w, {v[0], v[2], v[3]}) : b.Read(w, {v[0], v[3], v[2]});
              return Mul(b.Read(a, {v[0], v[1], v[3]}), rhs);
            });
  return std::move(b).Build();
}

int64_t ConvOutputSize(int64_t in, int64_t kernel, int64_t stride, int64_t pad,
                       int64_t dilation) {
  return (in + 2 * pad - dilation * (kernel - 1) - 1) / stride + 1;
}

absl::StatusOr<ComputeDag> Conv2d(const Conv2dParams& p) {
  constexpr absl::string_view kOp = "conv2d";
  if (absl::Status s = CheckPositive(kOp, {{"N", p.batch},
                                           {"C", p.in_channels},
                                           {"H", p.height},
                                           {"W", p.width},
                                           {"K", p.out_channels},
                                           {"R", p.kernel_h},
                                           {"S", p.kernel_w},
                                           {"stride_h", p.stride_h},
                                           {"stride_w", p.stride_w},
                                           {"dilation_h", p.dilation_h},
                                           {"dilation_w", p.dilation_w},
                                           {"groups", p.groups}});
      !s.ok()) {
    return s;
  }
  PRUNER_RETURN_IF_ERROR(CheckNonNegative(kOp, {{"pad_h", p.pad_h}, {"pad_w", p.pad_w}}));
  for (auto [name, channels] : {std::pair{"C", p.in_channels}, std::pair{"K", p.out_channels}}) {
    if (channels % p.groups != 0) {
      return absl::InvalidArgumentError(absl::StrCat(kOp, ": ", name, "=", channels,
                                                     " is not divisible by groups=", p.groups));
    }
  }
  if (absl::Status s = CheckWindowFits(kOp, "height", p.height, p.kernel_h, p.pad_h, p.dilation_h);
      !s.ok()) {
    return s;
  }
  if (absl::Status s = CheckWindowFits(kOp, "width", p.width, p.kernel_w, p.pad_w, p.dilation_w);
      !s.ok()) {
    return s;
  }
  const int64_t out_h = ConvOutputSize(p.height, p.kernel_h, p.stride_h, p.pad_h, p.dilation_h);
  const int64_t out_w = ConvOutputSize(p.width, p.kernel_w, p.stride_w, p.pad_w, p.dilation_w);
  const int64_t in_per_group = p.in_channels / p.groups;
  const int64_t out_per_group = p.out_channels / p.groups;
  const bool depthwise = in_per_group == 1;
  const std::string tag = depthwise && p.groups > 1 ? "depthwise_conv2d"
                          : p.groups > 1           ? "group_conv2d"
                                                   : "conv2d";

  DagBuilder b(kOp);
  // NCHW: X [N, C, H, W], out [N, K, OH, OW]; NHWC: X [N, H, W, C], out
  // [N, OH, OW, K]. The weights are OIHW either way (their layout is free:
  // the compiled kernel reads them in whatever order its loops want).
  const bool nhwc = p.channels_last;
  const std::vector<int64_t> x_shape =
      nhwc ? std::vector<int64_t>{p.batch, p.height, p.width, p.in_channels}
           : std::vector<int64_t>{p.batch, p.in_channels, p.height, p.width};
  const int x = b.Placeholder("X", x_shape);
  const int w = b.Weight("W", {p.out_channels, in_per_group, p.kernel_h, p.kernel_w});
  const int bias = p.bias ? b.Weight("bias", {p.out_channels}) : -1;
  const int padded = PadSpatial(b, x, p.pad_h, p.pad_w, 0.0, nhwc ? 1 : 2, nhwc ? 2 : 3);

  std::vector<Axis> reduce_axes;
  if (!depthwise) reduce_axes.push_back({"rc", in_per_group});
  reduce_axes.push_back({"ry", p.kernel_h});
  reduce_axes.push_back({"rx", p.kernel_w});
  // Spatial axes in the output's order; the reads below name them by role.
  const std::vector<Axis> axes =
      nhwc ? std::vector<Axis>{{"nn", p.batch}, {"yy", out_h}, {"xx", out_w}, {"ff", p.out_channels}}
           : std::vector<Axis>{{"nn", p.batch}, {"ff", p.out_channels}, {"yy", out_h}, {"xx", out_w}};
  const int ff_axis = nhwc ? 3 : 1, yy_axis = nhwc ? 1 : 2, xx_axis = nhwc ? 2 : 3;
  const std::string stage_tag = nhwc ? tag + "_nhwc" : tag;
  int out = b.Compute(
      stage_tag, axes, reduce_axes, ReduceKind::kSum, stage_tag, [&](const std::vector<Expr>& v) {
        const Expr& ff = v[ff_axis];
        const Expr rc = depthwise ? IntImm(0) : v[4];
        const Expr& ry = v[depthwise ? 4 : 5];
        const Expr& rx = v[depthwise ? 5 : 6];
        // Input channel of (output channel ff, reduce channel rc): the
        // group's first channel plus rc.
        Expr channel = p.groups == 1
                           ? rc
                           : Add(Mul(FloorDiv(ff, IntImm(out_per_group)), IntImm(in_per_group)), rc);
        Expr y = Add(Mul(v[yy_axis], IntImm(p.stride_h)), Mul(ry, IntImm(p.dilation_h)));
        Expr xx = Add(Mul(v[xx_axis], IntImm(p.stride_w)), Mul(rx, IntImm(p.dilation_w)));
        Expr input = nhwc ? b.Read(padded, {v[0], y, xx, channel})
                          : b.Read(padded, {v[0], channel, y, xx});
        return Mul(input, b.Read(w, {ff, rc, ry, rx}));
      });
  if (p.bias) {
    out = b.Pointwise("bias_add", out, "bias_add", [&](Expr value, const std::vector<Expr>& v) {
      return Add(value, b.Read(bias, {v[ff_axis]}));
    });
  }
  b.Activate(out, p.activation);
  return std::move(b).Build();
}

absl::StatusOr<ComputeDag> Conv2dWinograd(const Conv2dParams& p) {
  constexpr absl::string_view kOp = "conv2d_winograd";
  PRUNER_RETURN_IF_ERROR(CheckPositive(
      kOp, {{"N", p.batch}, {"C", p.in_channels}, {"H", p.height}, {"W", p.width},
            {"K", p.out_channels}}));
  PRUNER_RETURN_IF_ERROR(CheckWinogradEligible(p.kernel_h, p.kernel_w, p.stride_h, p.stride_w,
                                               p.dilation_h, p.dilation_w, p.groups, p.pad_h,
                                               p.pad_w, p.height, p.width));
  if (!IsWinogradTile(p.winograd_tile)) {
    return absl::InvalidArgumentError(
        absl::StrCat(kOp, ": the output tile must be 2 or 4, got ", p.winograd_tile));
  }
  const WinogradShape shape{.batch = p.batch,
                            .height = p.height,
                            .width = p.width,
                            .in_channels = p.in_channels,
                            .out_channels = p.out_channels,
                            .pad_h = p.pad_h,
                            .pad_w = p.pad_w,
                            .tile = p.winograd_tile};
  DagBuilder b(kOp);
  const int x = b.Placeholder("X", {p.batch, p.height, p.width, p.in_channels});
  const int u = b.Weight("U", {shape.alpha(), shape.alpha(), p.in_channels, p.out_channels});
  const int bias = p.bias ? b.Weight("bias", {p.out_channels}) : -1;
  int out = WinogradConv2dStages(b, x, u, shape);
  if (p.bias) {
    out = b.Pointwise("bias_add", out, "bias_add", [&](Expr value, const std::vector<Expr>& v) {
      return Add(value, b.Read(bias, {v[3]}));
    });
  }
  b.Activate(out, p.activation);
  return std::move(b).Build();
}

absl::StatusOr<ComputeDag> Pool2d(const Pool2dParams& p) {
  const absl::string_view op = p.kind == PoolKind::kMax ? "max_pool2d" : "avg_pool2d";
  if (absl::Status s = CheckPositive(op, {{"N", p.batch},
                                          {"C", p.channels},
                                          {"H", p.height},
                                          {"W", p.width},
                                          {"kernel_h", p.kernel_h},
                                          {"kernel_w", p.kernel_w},
                                          {"stride_h", p.stride_h},
                                          {"stride_w", p.stride_w}});
      !s.ok()) {
    return s;
  }
  PRUNER_RETURN_IF_ERROR(CheckNonNegative(op, {{"pad_h", p.pad_h}, {"pad_w", p.pad_w}}));
  // Each window then overlaps the input, so no output is pure padding.
  if (2 * p.pad_h > p.kernel_h || 2 * p.pad_w > p.kernel_w) {
    return absl::InvalidArgumentError(absl::StrCat(op, ": padding (", p.pad_h, ", ", p.pad_w,
                                                   ") must be at most half the kernel (",
                                                   p.kernel_h, ", ", p.kernel_w, ")"));
  }
  PRUNER_RETURN_IF_ERROR(CheckWindowFits(op, "height", p.height, p.kernel_h, p.pad_h, 1));
  PRUNER_RETURN_IF_ERROR(CheckWindowFits(op, "width", p.width, p.kernel_w, p.pad_w, 1));
  const int64_t out_h = ConvOutputSize(p.height, p.kernel_h, p.stride_h, p.pad_h, 1);
  const int64_t out_w = ConvOutputSize(p.width, p.kernel_w, p.stride_w, p.pad_w, 1);
  const bool is_max = p.kind == PoolKind::kMax;

  DagBuilder b(op);
  const int x = b.Placeholder("X", {p.batch, p.channels, p.height, p.width});
  const double pad_value = is_max ? std::numeric_limits<float>::lowest() : 0.0;
  const int padded = PadSpatial(b, x, p.pad_h, p.pad_w, pad_value);
  const std::vector<Axis> axes = {
      {"nn", p.batch}, {"cc", p.channels}, {"yy", out_h}, {"xx", out_w}};
  const int pooled = b.Compute(
      is_max ? "pool_max" : "pool_sum", axes, {{"rv", p.kernel_h}, {"rw", p.kernel_w}},
      is_max ? ReduceKind::kMax : ReduceKind::kSum, is_max ? "max_pool2d" : "avg_pool2d_sum",
      [&](const std::vector<Expr>& v) {
        return b.Read(padded, {v[0], v[1], Add(Mul(v[2], IntImm(p.stride_h)), v[4]),
                               Add(Mul(v[3], IntImm(p.stride_w)), v[5])});
      });
  if (!is_max) {
    const double window = static_cast<double>(p.kernel_h * p.kernel_w);
    b.Pointwise("pool_avg", pooled, "avg_pool2d", [&](Expr sum, const std::vector<Expr>&) {
      return Div(sum, FloatImm(window));
    });
  }
  return std::move(b).Build();
}

absl::StatusOr<ComputeDag> Softmax(int64_t rows, int64_t cols) {
  if (absl::Status s = CheckPositive("softmax", {{"M (rows)", rows}, {"N (cols)", cols}});
      !s.ok()) {
    return s;
  }
  DagBuilder b("softmax");
  const int x = b.Placeholder("X", {rows, cols});
  const std::vector<Axis> row = {{"i", rows}};
  const std::vector<Axis> matrix = {{"i", rows}, {"j", cols}};
  const int max_elem = b.Compute("max_elem", row, {{"k", cols}}, ReduceKind::kMax, "softmax_max",
                                 [&](const std::vector<Expr>& v) { return b.Read(x, {v[0], v[1]}); });
  const int exp = b.Compute("exp", matrix, "softmax_exp", [&](const std::vector<Expr>& v) {
    return Call(CallFn::kExp, {Sub(b.Read(x, {v[0], v[1]}), b.Read(max_elem, {v[0]}))});
  });
  const int exp_sum = b.Compute("exp_sum", row, {{"k", cols}}, ReduceKind::kSum, "softmax_sum",
                                [&](const std::vector<Expr>& v) { return b.Read(exp, {v[0], v[1]}); });
  b.Compute("softmax", matrix, "softmax_norm", [&](const std::vector<Expr>& v) {
    return Div(b.Read(exp, {v[0], v[1]}), b.Read(exp_sum, {v[0]}));
  });
  return std::move(b).Build();
}

absl::StatusOr<ComputeDag> LayerNorm(int64_t rows, int64_t cols, double eps, bool affine) {
  if (absl::Status s = CheckPositive("layer_norm", {{"M (rows)", rows}, {"N (cols)", cols}});
      !s.ok()) {
    return s;
  }
  if (!(eps >= 0) || !std::isfinite(eps)) {
    return absl::InvalidArgumentError(
        absl::StrCat("layer_norm: eps must be finite and non-negative, got ", eps));
  }
  DagBuilder b("layer_norm");
  const int x = b.Placeholder("X", {rows, cols});
  const int gamma = affine ? b.Weight("gamma", {cols}) : -1;
  const int beta = affine ? b.Weight("beta", {cols}) : -1;
  const std::vector<Axis> row = {{"i", rows}};
  const std::vector<Axis> matrix = {{"i", rows}, {"j", cols}};
  const Expr inv_cols = FloatImm(1.0 / static_cast<double>(cols));
  const int sum = b.Compute("sum", row, {{"k", cols}}, ReduceKind::kSum, "layer_norm_sum",
                            [&](const std::vector<Expr>& v) { return b.Read(x, {v[0], v[1]}); });
  const int mean = b.Compute("mean", row, "layer_norm_mean", [&](const std::vector<Expr>& v) {
    return Mul(b.Read(sum, {v[0]}), inv_cols);
  });
  const int var_sum = b.Compute("var_sum", row, {{"k", cols}}, ReduceKind::kSum,
                                "layer_norm_var_sum", [&](const std::vector<Expr>& v) {
                                  Expr d = Sub(b.Read(x, {v[0], v[1]}), b.Read(mean, {v[0]}));
                                  return Mul(d, d);
                                });
  const int rstd = b.Compute("rstd", row, "layer_norm_rstd", [&](const std::vector<Expr>& v) {
    Expr var = Add(Mul(b.Read(var_sum, {v[0]}), inv_cols), FloatImm(eps));
    return Div(FloatImm(1.0), Call(CallFn::kSqrt, {var}));
  });
  b.Compute("layer_norm", matrix, "layer_norm", [&](const std::vector<Expr>& v) {
    Expr normalized =
        Mul(Sub(b.Read(x, {v[0], v[1]}), b.Read(mean, {v[0]})), b.Read(rstd, {v[0]}));
    if (!affine) return normalized;
    return Add(Mul(normalized, b.Read(gamma, {v[1]})), b.Read(beta, {v[1]}));
  });
  return std::move(b).Build();
}

namespace {

absl::StatusOr<ComputeDag> ElementwiseBinary(absl::string_view op,
                                             const std::vector<int64_t>& shape, BinaryOp fn) {
  PRUNER_RETURN_IF_ERROR(CheckShape(op, shape));
  DagBuilder b(op);
  const int lhs = b.Placeholder("A", shape);
  const int rhs = b.Placeholder("B", shape);
  b.Pointwise(std::string(op), lhs, std::string(op), [&](Expr a, const std::vector<Expr>& v) {
    return Binary(fn, a, b.Read(rhs, v));
  });
  return std::move(b).Build();
}

}  // namespace

absl::StatusOr<ComputeDag> ElementwiseAdd(const std::vector<int64_t>& shape) {
  return ElementwiseBinary("add", shape, BinaryOp::kAdd);
}

absl::StatusOr<ComputeDag> ElementwiseMul(const std::vector<int64_t>& shape) {
  return ElementwiseBinary("mul", shape, BinaryOp::kMul);
}

absl::StatusOr<ComputeDag> Relu(const std::vector<int64_t>& shape) {
  PRUNER_RETURN_IF_ERROR(CheckShape("relu", shape));
  DagBuilder b("relu");
  const int x = b.Placeholder("X", shape);
  b.Activate(x, Activation::kRelu);
  return std::move(b).Build();
}

}  // namespace pruner
