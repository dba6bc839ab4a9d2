// BuildOperator(): "name:key=value,..." strings to operator DAGs.
#include <algorithm>
#include <map>

#include "absl/strings/ascii.h"
#include "absl/strings/numbers.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "absl/strings/str_split.h"
#include "common/base/absl_compat.h"
#include "common/base/status_macros.h"
#include "common/ir/ops.h"
#include "common/ir/winograd.h"

namespace pruner {
namespace {

absl::string_view Strip(absl::string_view s) { return absl::StripAsciiWhitespace(s); }

// The key=value pairs of one spec. Getters record the first problem and
// return a fallback, so a builder reads every key and then asks Finish()
// once; Finish() also rejects keys that no getter asked for.
class SpecArgs {
 public:
  SpecArgs(absl::string_view op, absl::string_view text) : op_(op) {
    if (Strip(text).empty()) return;
    for (absl::string_view piece : absl::StrSplit(text, ',')) {
      const absl::string_view pair = Strip(piece);
      const size_t eq = pair.find('=');
      if (eq == absl::string_view::npos) {
        Fail(absl::StrCat("expected key=value but found '", pair, "'"));
        return;
      }
      const std::string key(Strip(pair.substr(0, eq)));
      const std::string value(Strip(pair.substr(eq + 1)));
      if (key.empty() || value.empty()) {
        Fail(absl::StrCat("expected key=value but found '", pair, "'"));
        return;
      }
      if (!values_.emplace(key, value).second) {
        Fail(absl::StrCat("key '", key, "' is given twice"));
        return;
      }
    }
  }

  int64_t Int(absl::string_view key) { return ParseInt(key, Find(key, /*required=*/true), 0); }
  int64_t Int(absl::string_view key, int64_t fallback) {
    return ParseInt(key, Find(key, /*required=*/false), fallback);
  }

  bool Bool(absl::string_view key, bool fallback) {
    const std::string* value = Find(key, /*required=*/false);
    if (value == nullptr) return fallback;
    if (*value == "1" || *value == "true") return true;
    if (*value == "0" || *value == "false") return false;
    Fail(absl::StrCat(key, "=", *value, " is not a boolean; use 0, 1, true or false"));
    return fallback;
  }

  double Double(absl::string_view key, double fallback) {
    const std::string* value = Find(key, /*required=*/false);
    double v = fallback;
    if (value != nullptr && !absl::SimpleAtod(*value, &v)) {
      Fail(absl::StrCat(key, "=", *value, " is not a number"));
    }
    return v;
  }

  Activation Act(absl::string_view key) {
    const std::string* value = Find(key, /*required=*/false);
    if (value == nullptr) return Activation::kNone;
    absl::StatusOr<Activation> act = ParseActivation(*value);
    if (!act.ok()) {
      Fail(absl::StrCat(key, ": ", act.status().message()));
      return Activation::kNone;
    }
    return *act;
  }

  // layout=nchw (the default) or nhwc: true for channels last.
  bool ChannelsLast(absl::string_view key) {
    const std::string* value = Find(key, /*required=*/false);
    if (value == nullptr || *value == "nchw") return false;
    if (*value == "nhwc") return true;
    Fail(absl::StrCat(key, "=", *value, " is not a layout; use nchw or nhwc"));
    return false;
  }

  // "4x128x768".
  std::vector<int64_t> Shape(absl::string_view key) {
    std::vector<int64_t> shape;
    const std::string* value = Find(key, /*required=*/true);
    if (value == nullptr) return shape;
    for (absl::string_view dim : absl::StrSplit(*value, 'x')) {
      int64_t d;
      if (!absl::SimpleAtoi(dim, &d)) {
        Fail(absl::StrCat(key, "=", *value, " is not a shape like 4x128x768"));
        return {};
      }
      shape.push_back(d);
    }
    return shape;
  }

  absl::Status Finish() const {
    if (!status_.ok()) return status_;
    for (const auto& [key, value] : values_) {
      if (std::find(asked_.begin(), asked_.end(), key) == asked_.end()) {
        return absl::InvalidArgumentError(absl::StrCat(op_, ": unknown key '", key,
                                                       "'; known keys: ",
                                                       absl::StrJoin(asked_, ", ")));
      }
    }
    return absl::OkStatus();
  }

 private:
  const std::string* Find(absl::string_view key, bool required) {
    asked_.emplace_back(key);
    auto it = values_.find(std::string(key));
    if (it != values_.end()) return &it->second;
    if (required) Fail(absl::StrCat("missing required key '", key, "'"));
    return nullptr;
  }

  int64_t ParseInt(absl::string_view key, const std::string* value, int64_t fallback) {
    int64_t v = fallback;
    if (value != nullptr && !absl::SimpleAtoi(*value, &v)) {
      Fail(absl::StrCat(key, "=", *value, " is not an integer"));
    }
    return v;
  }

  void Fail(absl::string_view message) {
    if (status_.ok()) status_ = absl::InvalidArgumentError(absl::StrCat(op_, ": ", message));
  }

  std::string op_;
  std::map<std::string, std::string> values_;
  std::vector<std::string> asked_;
  absl::Status status_;
};

absl::StatusOr<ComputeDag> BuildDense(SpecArgs& args) {
  const int64_t m = args.Int("M"), k = args.Int("K"), n = args.Int("N");
  DenseOptions options;
  options.bias = args.Bool("bias", false);
  options.activation = args.Act("act");
  PRUNER_RETURN_IF_ERROR(args.Finish());
  return Dense(m, k, n, options);
}

absl::StatusOr<ComputeDag> BuildMatmul(SpecArgs& args) {
  const int64_t m = args.Int("M"), k = args.Int("K"), n = args.Int("N");
  PRUNER_RETURN_IF_ERROR(args.Finish());
  return Matmul(m, k, n);
}

absl::StatusOr<ComputeDag> BuildBatchMatmul(SpecArgs& args) {
  const int64_t batch = args.Int("B"), m = args.Int("M"), k = args.Int("K"), n = args.Int("N");
  const bool transpose_b = args.Bool("transpose_b", false);
  PRUNER_RETURN_IF_ERROR(args.Finish());
  return BatchMatmul(batch, m, k, n, transpose_b);
}

// Window keys shared by convolutions: stride/pad/dilation set both
// dimensions, the _h/_w keys override one.
void ReadConvWindow(SpecArgs& args, Conv2dParams* p) {
  const int64_t stride = args.Int("stride", 1);
  const int64_t pad = args.Int("pad", 0);
  const int64_t dilation = args.Int("dilation", 1);
  p->stride_h = args.Int("stride_h", stride);
  p->stride_w = args.Int("stride_w", stride);
  p->pad_h = args.Int("pad_h", pad);
  p->pad_w = args.Int("pad_w", pad);
  p->dilation_h = args.Int("dilation_h", dilation);
  p->dilation_w = args.Int("dilation_w", dilation);
  p->bias = args.Bool("bias", false);
  p->activation = args.Act("act");
  p->channels_last = args.ChannelsLast("layout");
}

// The input and output sizes of a dense (not depthwise) convolution.
void ReadConvShape(SpecArgs& args, Conv2dParams* p) {
  p->batch = args.Int("N", 1);
  p->in_channels = args.Int("C");
  p->height = args.Int("H");
  p->width = args.Int("W");
  p->out_channels = args.Int("K");
}

absl::StatusOr<ComputeDag> BuildConv2d(SpecArgs& args) {
  Conv2dParams p;
  ReadConvShape(args, &p);
  p.kernel_h = args.Int("R");
  p.kernel_w = args.Int("S");
  p.groups = args.Int("groups", 1);
  ReadConvWindow(args, &p);
  PRUNER_RETURN_IF_ERROR(args.Finish());
  return Conv2d(p);
}

absl::StatusOr<ComputeDag> BuildConv2dWinograd(SpecArgs& args) {
  Conv2dParams p;
  ReadConvShape(args, &p);
  p.kernel_h = p.kernel_w = 3;
  const int64_t pad = args.Int("pad", 1);
  p.pad_h = args.Int("pad_h", pad);
  p.pad_w = args.Int("pad_w", pad);
  p.bias = args.Bool("bias", false);
  p.activation = args.Act("act");
  p.winograd_tile = args.Int("tile", kWinogradTile);
  PRUNER_RETURN_IF_ERROR(args.Finish());
  return Conv2dWinograd(p);
}

absl::StatusOr<ComputeDag> BuildDepthwiseConv2d(SpecArgs& args) {
  Conv2dParams p;
  p.batch = args.Int("N", 1);
  p.in_channels = p.out_channels = p.groups = args.Int("C");
  p.height = args.Int("H");
  p.width = args.Int("W");
  p.kernel_h = args.Int("R");
  p.kernel_w = args.Int("S");
  ReadConvWindow(args, &p);
  PRUNER_RETURN_IF_ERROR(args.Finish());
  return Conv2d(p);
}

absl::StatusOr<ComputeDag> BuildPool(SpecArgs& args, PoolKind kind) {
  Pool2dParams p;
  p.kind = kind;
  p.batch = args.Int("N", 1);
  p.channels = args.Int("C");
  p.height = args.Int("H");
  p.width = args.Int("W");
  const int64_t kernel = args.Int("kernel");
  p.kernel_h = args.Int("kernel_h", kernel);
  p.kernel_w = args.Int("kernel_w", kernel);
  const int64_t stride = args.Int("stride", kernel);
  p.stride_h = args.Int("stride_h", stride);
  p.stride_w = args.Int("stride_w", stride);
  const int64_t pad = args.Int("pad", 0);
  p.pad_h = args.Int("pad_h", pad);
  p.pad_w = args.Int("pad_w", pad);
  PRUNER_RETURN_IF_ERROR(args.Finish());
  return Pool2d(p);
}

absl::StatusOr<ComputeDag> BuildMaxPool(SpecArgs& args) { return BuildPool(args, PoolKind::kMax); }
absl::StatusOr<ComputeDag> BuildAvgPool(SpecArgs& args) { return BuildPool(args, PoolKind::kAvg); }

absl::StatusOr<ComputeDag> BuildSoftmax(SpecArgs& args) {
  const int64_t m = args.Int("M"), n = args.Int("N");
  PRUNER_RETURN_IF_ERROR(args.Finish());
  return Softmax(m, n);
}

absl::StatusOr<ComputeDag> BuildLayerNorm(SpecArgs& args) {
  const int64_t m = args.Int("M"), n = args.Int("N");
  const double eps = args.Double("eps", 1e-5);
  const bool affine = args.Bool("affine", true);
  PRUNER_RETURN_IF_ERROR(args.Finish());
  return LayerNorm(m, n, eps, affine);
}

template <absl::StatusOr<ComputeDag> (*kBuilder)(const std::vector<int64_t>&)>
absl::StatusOr<ComputeDag> BuildElementwise(SpecArgs& args) {
  const std::vector<int64_t> shape = args.Shape("shape");
  PRUNER_RETURN_IF_ERROR(args.Finish());
  return kBuilder(shape);
}

struct OperatorEntry {
  const char* name;
  const char* keys;  // for OperatorUsage(); optional keys in brackets
  absl::StatusOr<ComputeDag> (*build)(SpecArgs& args);
};

// Sorted by name.
constexpr OperatorEntry kOperators[] = {
    {"add", "shape=AxBx...", BuildElementwise<ElementwiseAdd>},
    {"avg_pool2d",
     "[N=1],C,H,W,kernel,[stride=kernel],[pad=0] (kernel/stride/pad also as _h/_w)",
     BuildAvgPool},
    {"batch_matmul", "B,M,K,N,[transpose_b=0]", BuildBatchMatmul},
    {"conv2d",
     "[N=1],C,H,W,K,R,S,[stride=1],[pad=0],[dilation=1],[groups=1],[bias=0],[act=none],"
     "[layout=nchw|nhwc] (stride/pad/dilation also as _h/_w)",
     BuildConv2d},
    {"conv2d_winograd",
     "[N=1],C,H,W,K,[pad=1],[bias=0],[act=none],[tile=2|4] (3x3, stride 1, NHWC; F(tile x "
     "tile, 3x3); the weight is Winograd-packed [tile+2,tile+2,C,K]; pad also as _h/_w)",
     BuildConv2dWinograd},
    {"dense", "M,K,N,[bias=0],[act=none|relu|gelu]", BuildDense},
    {"depthwise_conv2d",
     "[N=1],C,H,W,R,S,[stride=1],[pad=0],[dilation=1],[bias=0],[act=none],"
     "[layout=nchw|nhwc] (stride/pad/dilation also as _h/_w)",
     BuildDepthwiseConv2d},
    {"layer_norm", "M,N,[eps=1e-5],[affine=1]", BuildLayerNorm},
    {"matmul", "M,K,N", BuildMatmul},
    {"max_pool2d",
     "[N=1],C,H,W,kernel,[stride=kernel],[pad=0] (kernel/stride/pad also as _h/_w)",
     BuildMaxPool},
    {"mul", "shape=AxBx...", BuildElementwise<ElementwiseMul>},
    {"relu", "shape=AxBx...", BuildElementwise<Relu>},
    {"softmax", "M,N", BuildSoftmax},
};

}  // namespace

absl::StatusOr<ComputeDag> BuildOperator(std::string_view spec_text) {
  const absl::string_view spec = ToAbsl(spec_text);
  const size_t colon = spec.find(':');
  const absl::string_view name = Strip(spec.substr(0, colon));
  const absl::string_view args =
      colon == absl::string_view::npos ? absl::string_view() : spec.substr(colon + 1);
  for (const OperatorEntry& entry : kOperators) {
    if (name == entry.name) {
      SpecArgs parsed(name, args);
      return entry.build(parsed);
    }
  }
  return absl::InvalidArgumentError(absl::StrCat("unknown operator '", name,
                                                 "' in spec '", spec, "'; known operators: ",
                                                 absl::StrJoin(KnownOperators(), ", ")));
}

std::vector<std::string> KnownOperators() {
  std::vector<std::string> names;
  for (const OperatorEntry& entry : kOperators) names.emplace_back(entry.name);
  return names;
}

std::string OperatorUsage() {
  std::string usage;
  for (const OperatorEntry& entry : kOperators) {
    absl::StrAppend(&usage, entry.name, ":", entry.keys, "\n");
  }
  return usage;
}

}  // namespace pruner
