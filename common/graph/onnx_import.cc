#include "common/graph/onnx_import.h"

#include <filesystem>
#include <fstream>
#include <optional>
#include <set>
#include <sstream>

#include "absl/strings/numbers.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/match.h"
#include "absl/strings/str_join.h"
#include "common/base/status_macros.h"
#include "common/graph/channels_last.h"
#include "common/graph/onnx_emitter.h"
#include "common/ir/tensor.h"
#include "common/measure/sandbox.h"
#include "onnx/checker.h"
#include "onnx/shape_inference/implementation.h"

namespace pruner {
namespace {

using onnx_import::ConstTensor;
using onnx_import::ImportState;
using onnx_import::Shape;

// Attributes of a node for constant folding.
class NodeAttrs final : public onnx_import::ConstAttrs {
 public:
  explicit NodeAttrs(const onnx::NodeProto& node) : node_(node) {}
  bool Has(const std::string& name) const override { return onnx_import::HasAttr(node_, name); }
  int64_t Int(const std::string& name, int64_t fallback) const override {
    return onnx_import::AttrInt(node_, name, fallback);
  }
  std::vector<int64_t> Ints(const std::string& name) const override {
    return onnx_import::AttrInts(node_, name);
  }
  float Float(const std::string& name, float fallback) const override {
    return onnx_import::AttrFloat(node_, name, fallback);
  }
  absl::StatusOr<ConstTensor> Tensor(const std::string& name) const override {
    for (const onnx::AttributeProto& a : node_.attribute()) {
      if (a.name() == name && a.has_t()) {
        return onnx_import::ConstFromProto(a.t(), absl::StrCat("attribute ", name, " of node '",
                                                                node_.name(), "'"));
      }
    }
    return absl::InvalidArgumentError(absl::StrCat("node '", node_.name(), "' has no tensor ",
                                                   name));
  }

 private:
  const onnx::NodeProto& node_;
};

// The default-domain opset the model imports.
absl::StatusOr<int> DefaultOpset(const onnx::ModelProto& model) {
  for (const onnx::OperatorSetIdProto& id : model.opset_import()) {
    if (id.domain().empty() || id.domain() == "ai.onnx") return static_cast<int>(id.version());
  }
  return absl::InvalidArgumentError("the model imports no opset of the default ONNX domain");
}

// Replaces symbolic input dimensions by the bound values; lists the unbound.
absl::Status BindInputDims(onnx::ModelProto& model, const OnnxImportOptions& options) {
  std::set<std::string> initializers;
  for (const onnx::TensorProto& t : model.graph().initializer()) initializers.insert(t.name());
  std::vector<std::string> unbound;
  for (onnx::ValueInfoProto& in : *model.mutable_graph()->mutable_input()) {
    if (initializers.count(in.name()) > 0) continue;
    if (!in.type().has_tensor_type()) {
      return absl::InvalidArgumentError(absl::StrCat("input '", in.name(), "' is not a tensor"));
    }
    onnx::TensorShapeProto* shape = in.mutable_type()->mutable_tensor_type()->mutable_shape();
    for (int d = 0; d < shape->dim_size(); ++d) {
      onnx::TensorShapeProto_Dimension* dim = shape->mutable_dim(d);
      if (dim->has_dim_value()) continue;
      const std::string param = dim->has_dim_param() ? dim->dim_param() : "";
      auto it = options.dims.find(param);
      if (!param.empty() && it != options.dims.end()) {
        dim->set_dim_value(it->second);
        continue;
      }
      unbound.push_back(param.empty() ? absl::StrCat(in.name(), "[", d, "] (unnamed)")
                                      : absl::StrCat(param, " (", in.name(), "[", d, "])"));
    }
  }
  if (!unbound.empty()) {
    return absl::InvalidArgumentError(absl::StrCat(
        "the model has symbolic input dimensions: ", absl::StrJoin(unbound, ", "),
        "; bind each with --shape NAME=VALUE (dynamic shapes are not supported yet)"));
  }
  return absl::OkStatus();
}

// ONNX's own shape inference (libonnx 1.13) divides by strides and
// dilations without checking them: a Conv with strides [0] kills the process
// with SIGFPE (tests/fuzz/onnx_import_fuzz.cc). The window attributes of
// every convolution and pooling node, in subgraphs too, are checked first.
absl::Status CheckWindowAttributes(const onnx::GraphProto& graph) {
  static const std::set<std::string> kWindowOps = {
      "Conv", "ConvTranspose", "ConvInteger", "QLinearConv", "MaxPool", "AveragePool", "LpPool",
      "MaxRoiPool", "MaxUnpool", "DeformConv"};
  for (const onnx::NodeProto& node : graph.node()) {
    for (const onnx::AttributeProto& a : node.attribute()) {
      if (a.has_g()) PRUNER_RETURN_IF_ERROR(CheckWindowAttributes(a.g()));
      for (const onnx::GraphProto& g : a.graphs()) PRUNER_RETURN_IF_ERROR(CheckWindowAttributes(g));
      if (kWindowOps.count(node.op_type()) == 0) continue;
      const bool positive = a.name() == "strides" || a.name() == "dilations" ||
                            a.name() == "kernel_shape";
      const bool non_negative = a.name() == "pads" || a.name() == "output_padding";
      for (int64_t v : a.ints()) {
        if ((positive && v < 1) || (non_negative && v < 0)) {
          return absl::InvalidArgumentError(absl::StrCat(
              node.op_type(), " node '", node.name(), "': ", a.name(), " must be ",
              positive ? "positive" : "non-negative", ", not ", v));
        }
      }
    }
  }
  return absl::OkStatus();
}

// libonnx's shape inference, in a sandbox child: it crashes on some
// malformed models (a null dereference libFuzzer found after the division by
// zero above; there may be more), and a model must never take the process
// down. The child sends back what inference adds (value_info and the
// outputs' types), not the model with its weights.
absl::Status InferShapesSandboxed(onnx::ModelProto& model, const std::string& name) {
  SandboxReply reply = RunInSandbox(
      [&model]() -> std::string {
        try {
          onnx::shape_inference::InferShapes(model, onnx::OpSchemaRegistry::Instance(),
                                             onnx::ShapeInferenceOptions(false, 0, true));
        } catch (const std::exception& e) {
          return absl::StrCat("E", e.what());
        }
        onnx::GraphProto inferred;
        *inferred.mutable_value_info() = model.graph().value_info();
        *inferred.mutable_output() = model.graph().output();
        return absl::StrCat("G", inferred.SerializeAsString());
      },
      /*deadline_s=*/120);
  if (!reply.payload.ok()) {
    return absl::InvalidArgumentError(absl::StrCat(
        name, ": ONNX shape inference crashed on this model (", reply.payload.status().message(),
        "): the file is malformed"));
  }
  const std::string& payload = *reply.payload;
  if (!payload.empty() && payload[0] == 'E') {
    return absl::InvalidArgumentError(
        absl::StrCat(name, ": ONNX shape inference fails: ", payload.substr(1)));
  }
  onnx::GraphProto inferred;
  if (payload.empty() || payload[0] != 'G' || !inferred.ParseFromString(payload.substr(1)) ||
      inferred.output_size() != model.graph().output_size()) {
    return absl::InternalError(absl::StrCat(name, ": garbled reply from ONNX shape inference"));
  }
  onnx::GraphProto* graph = model.mutable_graph();
  graph->mutable_value_info()->Swap(inferred.mutable_value_info());
  graph->mutable_output()->Swap(inferred.mutable_output());
  return absl::OkStatus();
}

std::optional<Shape> StaticShape(const onnx::TypeProto& type) {
  if (!type.has_tensor_type() || !type.tensor_type().has_shape()) return std::nullopt;
  Shape shape;
  for (const auto& dim : type.tensor_type().shape().dim()) {
    if (!dim.has_dim_value()) return std::nullopt;
    shape.push_back(dim.dim_value());
  }
  return shape;
}

// Pass 2: evaluates every node whose inputs are all known.
absl::Status FoldConstants(ImportState& state) {
  const onnx::GraphProto& g = *state.graph;
  for (int i = 0; i < g.node_size(); ++i) {
    const onnx::NodeProto& n = g.node(i);
    const std::string& op = n.op_type();
    if (!onnx_import::IsFoldable(op) || !(n.domain().empty() || n.domain() == "ai.onnx")) continue;
    std::vector<const ConstTensor*> inputs;
    ConstTensor shape_of;  // Shape of an activation: its static shape as a dummy
    bool known = true;
    for (int k = 0; k < n.input_size() && known; ++k) {
      const std::string& in = n.input(k);
      if (in.empty()) {
        inputs.push_back(nullptr);
        continue;
      }
      auto c = state.consts.find(in);
      if (c != state.consts.end()) {
        inputs.push_back(&c->second);
        continue;
      }
      auto s = state.shapes.find(in);
      if ((op == "Shape" || op == "Size") && k == 0 && s != state.shapes.end()) {
        shape_of.is_float = false;
        shape_of.shape = s->second;
        inputs.push_back(&shape_of);
        continue;
      }
      known = false;
    }
    if (!known || (inputs.empty() && op != "Constant")) continue;
    absl::StatusOr<std::vector<ConstTensor>> out = onnx_import::FoldConstant(op, state.opset, inputs,
                                                                           NodeAttrs(n));
    if (absl::IsUnimplemented(out.status())) continue;
    if (!out.ok()) {
      return absl::InvalidArgumentError(
          absl::StrCat("node '", n.name(), "' (", op, "): ", out.status().message()));
    }
    for (size_t k = 0; k < out->size() && k < static_cast<size_t>(n.output_size()); ++k) {
      state.shapes[n.output(k)] = (*out)[k].shape;
      state.consts[n.output(k)] = std::move((*out)[k]);
    }
    state.folded.insert(i);
  }
  return absl::OkStatus();
}

}  // namespace

absl::Status ParseShapeBinding(const std::string& text, OnnxImportOptions* options) {
  const size_t eq = text.find('=');
  int64_t value = 0;
  if (eq == std::string::npos || eq == 0 || !absl::SimpleAtoi(text.substr(eq + 1), &value) ||
      value <= 0) {
    return absl::InvalidArgumentError(
        absl::StrCat("--shape '", text, "': expected NAME=VALUE with a positive VALUE"));
  }
  options->dims[text.substr(0, eq)] = value;
  return absl::OkStatus();
}

absl::StatusOr<OnnxImportOptions> ImportOptionsFromFlags(const std::vector<std::string>& shapes,
                                                         const std::string& layout) {
  OnnxImportOptions options;
  for (const std::string& s : shapes) PRUNER_RETURN_IF_ERROR(ParseShapeBinding(s, &options));
  if (layout != "nchw" && layout != "nhwc" && !absl::StartsWith(layout, "nhwc-winograd")) {
    return absl::InvalidArgumentError(absl::StrCat(
        "--layout ", layout, ": expected nchw (as exported), nhwc or nhwc-winograd"));
  }
  options.channels_last = layout != "nchw";
  options.winograd = absl::StartsWith(layout, "nhwc-winograd");
  if (options.winograd) {
    const std::string tile = layout.substr(std::string("nhwc-winograd").size());
    if (tile == "2" || tile == "4") {
      options.winograd_tile = tile[0] - '0';
    } else if (!tile.empty()) {
      return absl::InvalidArgumentError(absl::StrCat(
          "--layout ", layout, ": expected nhwc-winograd, nhwc-winograd2 or nhwc-winograd4"));
    }
  }
  return options;
}

absl::StatusOr<OnnxModel> ImportOnnxBytes(const std::string& bytes, const std::string& name,
                                          const OnnxImportOptions& options) {
  onnx::ModelProto model;
  if (bytes.empty()) return absl::InvalidArgumentError(absl::StrCat(name, ": the file is empty"));
  if (!model.ParseFromString(bytes)) {
    return absl::InvalidArgumentError(absl::StrCat(
        name, ": not an ONNX model (", bytes.size(),
        " bytes that do not parse as an ONNX ModelProto; truncated or another format?)"));
  }
  if (!model.has_graph() || model.ir_version() <= 0 || model.opset_import_size() == 0) {
    return absl::InvalidArgumentError(
        absl::StrCat(name, ": not an ONNX model (no graph, IR version or opset)"));
  }
  PRUNER_ASSIGN_OR_RETURN(const int opset, DefaultOpset(model));
  if (opset < kMinOnnxOpset || opset > kMaxOnnxOpset) {
    return absl::InvalidArgumentError(absl::StrCat(name, ": opset ", opset,
                                                   " is outside the supported range ",
                                                   kMinOnnxOpset, "-", kMaxOnnxOpset,
                                                   " (re-export with opset_version in range)"));
  }
  try {
    onnx::checker::check_model(model);
  } catch (const std::exception& e) {
    return absl::InvalidArgumentError(absl::StrCat(name, ": the ONNX checker rejects the model: ",
                                                   e.what()));
  }
  if (absl::Status bound = BindInputDims(model, options); !bound.ok()) {
    return absl::InvalidArgumentError(absl::StrCat(name, ": ", bound.message()));
  }
  if (absl::Status window = CheckWindowAttributes(model.graph()); !window.ok()) {
    return absl::InvalidArgumentError(absl::StrCat(name, ": ", window.message()));
  }
  PRUNER_RETURN_IF_ERROR(InferShapesSandboxed(model, name));

  ImportState state;
  state.graph = &model.graph();
  state.opset = opset;
  for (const onnx::TensorProto& t : model.graph().initializer()) {
    PRUNER_ASSIGN_OR_RETURN(ConstTensor c,
                            onnx_import::ConstFromProto(t, absl::StrCat("initializer '", t.name(), "'")));
    state.shapes[t.name()] = c.shape;
    state.consts[t.name()] = std::move(c);
  }
  // A tensor no device could hold is a malformed file, refused before any
  // size computed from it can overflow (tests/fuzz/onnx_import_fuzz.cc).
  constexpr int64_t kMaxTensorElements = int64_t{1} << 36;
  auto record = [&](const onnx::ValueInfoProto& v) -> absl::Status {
    if (state.consts.count(v.name()) > 0) return absl::OkStatus();
    std::optional<Shape> s = StaticShape(v.type());
    if (!s.has_value()) return absl::OkStatus();
    for (int64_t d : *s) {
      if (d < 0) {
        return absl::InvalidArgumentError(absl::StrCat(
            name, ": tensor '", v.name(), "' has a negative dimension: ", ShapeToString(*s)));
      }
    }
    if (NumElements(*s) > kMaxTensorElements) {
      return absl::InvalidArgumentError(absl::StrCat(name, ": tensor '", v.name(), "' of shape ",
                                                     ShapeToString(*s), " has more than 2^36 elements"));
    }
    state.shapes[v.name()] = *std::move(s);
    return absl::OkStatus();
  };
  for (const auto& v : model.graph().input()) PRUNER_RETURN_IF_ERROR(record(v));
  for (const auto& v : model.graph().value_info()) PRUNER_RETURN_IF_ERROR(record(v));
  for (const auto& v : model.graph().output()) PRUNER_RETURN_IF_ERROR(record(v));
  PRUNER_RETURN_IF_ERROR(FoldConstants(state));

  absl::StatusOr<OnnxModel> out = onnx_import::Emitter(state, name).Run();
  if (!out.ok()) {
    return absl::Status(out.status().code(), absl::StrCat(name, ": ", out.status().message()));
  }
  out->producer = absl::StrCat(model.producer_name(), " ", model.producer_version());
  if (options.channels_last) {
    PRUNER_ASSIGN_OR_RETURN(ChannelsLastGraph rewritten,
                            ToChannelsLast(out->graph, {.winograd = options.winograd,
                                                      .winograd_tile = options.winograd_tile}));
    for (TensorId& id : out->inputs) id = rewritten.tensor_map[id];
    for (TensorId& id : out->outputs) id = rewritten.tensor_map[id];
    out->graph = std::move(rewritten.graph);
  }
  return out;
}

absl::StatusOr<OnnxModel> ImportOnnxFile(const std::string& path, const OnnxImportOptions& options) {
  std::ifstream in(path, std::ios::binary);
  if (!in) return absl::NotFoundError(absl::StrCat("cannot open model file '", path, "'"));
  std::ostringstream bytes;
  bytes << in.rdbuf();
  const std::string stem = std::filesystem::path(path).stem().string();
  return ImportOnnxBytes(bytes.str(), stem.empty() ? "model" : stem, options);
}

}  // namespace pruner
