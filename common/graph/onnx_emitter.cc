#include "common/graph/onnx_emitter.h"

#include <algorithm>
#include <cmath>
#include <cstring>
#include <set>
#include <utility>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "common/base/status_macros.h"
#include "common/ir/tensor.h"

namespace pruner::onnx_import {
namespace {

bool Near(double a, double b) { return std::abs(a - b) <= 1e-4 * std::max(1.0, std::abs(b)); }

// The four spatial pads of a 2-D window op, as [top, left, bottom, right].
absl::StatusOr<std::vector<int64_t>> Pads2d(const onnx::NodeProto& n) {
  std::vector<int64_t> pads = AttrInts(n, "pads");
  if (pads.empty()) pads.assign(4, 0);
  const std::string auto_pad = AttrString(n, "auto_pad");
  if (!auto_pad.empty() && auto_pad != "NOTSET" && auto_pad != "VALID") {
    return absl::UnimplementedError(absl::StrCat("auto_pad ", auto_pad));
  }
  if (pads.size() != 4) return absl::InvalidArgumentError("pads must have 4 entries");
  return pads;
}

// Symmetric padding into attrs, or Unimplemented.
absl::Status SetSymmetricPads(const std::vector<int64_t>& pads, NodeAttrs* a) {
  if (pads[0] != pads[2] || pads[1] != pads[3]) {
    return absl::UnimplementedError(
        absl::StrCat("asymmetric padding [", absl::StrJoin(pads, ", "), "]"));
  }
  a->pad_h = pads[0];
  a->pad_w = pads[1];
  return absl::OkStatus();
}

std::vector<int64_t> Pair(const std::vector<int64_t>& v, int64_t fallback) {
  if (v.size() == 2) return v;
  return {fallback, fallback};
}

}  // namespace

// ---- Attribute and tensor readers.

namespace {
const onnx::AttributeProto* FindAttr(const onnx::NodeProto& node, const std::string& name) {
  for (const onnx::AttributeProto& a : node.attribute()) {
    if (a.name() == name) return &a;
  }
  return nullptr;
}

float HalfToFloat(uint16_t h) {
  const uint32_t sign = (h >> 15) & 1, exp = (h >> 10) & 0x1f, mant = h & 0x3ff;
  float v;
  if (exp == 0) {
    v = std::ldexp(static_cast<float>(mant), -24);
  } else if (exp == 31) {
    v = mant == 0 ? INFINITY : NAN;
  } else {
    v = std::ldexp(static_cast<float>(mant | 0x400), static_cast<int>(exp) - 25);
  }
  return sign ? -v : v;
}

int ElementBytes(int t) {
  switch (t) {
    case 2: case 3: case 9: return 1;    // uint8, int8, bool
    case 4: case 5: case 10: case 16: return 2;  // uint16, int16, float16, bfloat16
    case 1: case 6: case 12: return 4;   // float, int32, uint32
    case 7: case 11: case 13: return 8;  // int64, double, uint64
    default: return 0;
  }
}
}  // namespace

bool HasAttr(const onnx::NodeProto& node, const std::string& name) {
  return FindAttr(node, name) != nullptr;
}
int64_t AttrInt(const onnx::NodeProto& node, const std::string& name, int64_t fallback) {
  const onnx::AttributeProto* a = FindAttr(node, name);
  return a == nullptr ? fallback : a->i();
}
float AttrFloat(const onnx::NodeProto& node, const std::string& name, float fallback) {
  const onnx::AttributeProto* a = FindAttr(node, name);
  return a == nullptr ? fallback : a->f();
}
std::string AttrString(const onnx::NodeProto& node, const std::string& name) {
  const onnx::AttributeProto* a = FindAttr(node, name);
  return a == nullptr ? "" : a->s();
}
std::vector<int64_t> AttrInts(const onnx::NodeProto& node, const std::string& name) {
  const onnx::AttributeProto* a = FindAttr(node, name);
  if (a == nullptr) return {};
  return std::vector<int64_t>(a->ints().begin(), a->ints().end());
}

absl::StatusOr<ConstTensor> ConstFromProto(const onnx::TensorProto& p, const std::string& what) {
  if (p.data_location() == onnx::TensorProto::EXTERNAL) {
    return absl::InvalidArgumentError(absl::StrCat(
        what, " keeps its data in an external file; export the model with the weights inside "
              "the .onnx file"));
  }
  const int t = p.data_type();
  if (!IsFloatType(t) && !IsIntType(t)) {
    return absl::InvalidArgumentError(absl::StrCat(what, " has unsupported data type ", t));
  }
  Shape shape(p.dims().begin(), p.dims().end());
  for (int64_t d : shape) {
    if (d < 0) return absl::InvalidArgumentError(absl::StrCat(what, " has a negative dimension"));
  }
  // The data must be in the file, so a count past what its bytes could hold
  // is a lie; checked before anything is allocated (dims of [1 << 40] once
  // made this reserve 16 GB: tests/fuzz/onnx_import_fuzz.cc).
  const int64_t available = p.has_raw_data() ? static_cast<int64_t>(p.raw_data().size())
                                             : p.float_data_size() + p.int64_data_size() +
                                                   p.int32_data_size() + p.double_data_size() +
                                                   p.uint64_data_size();
  int64_t n = 1;
  for (int64_t d : shape) {
    if (d != 0 && n > std::max<int64_t>(available, 1) / d) {
      return absl::InvalidArgumentError(absl::StrCat(what, " has dimensions ", ShapeToString(shape),
                                                     " but only ", available,
                                                     " values or bytes of data"));
    }
    n *= d;
  }
  std::vector<double> v;
  if (p.has_raw_data()) {
    const std::string& raw = p.raw_data();
    const int bytes = ElementBytes(t);
    if (static_cast<int64_t>(raw.size()) != n * bytes) {
      return absl::InvalidArgumentError(absl::StrCat(what, " is truncated: ", raw.size(),
                                                     " bytes of data for ", n, " elements of ",
                                                     bytes, " bytes"));
    }
    v.reserve(n);
    const char* d = raw.data();
    if (t == 1) {  // float: the common case, read straight into floats
      std::vector<float> f(n);
      std::memcpy(f.data(), d, n * sizeof(float));
      return ConstTensor::Float(std::move(shape), std::move(f));
    }
    for (int64_t i = 0; i < n; ++i) {
      const char* e = d + i * bytes;
      switch (t) {
        case 2: v.push_back(static_cast<uint8_t>(*e)); break;
        case 3: v.push_back(static_cast<int8_t>(*e)); break;
        case 9: v.push_back(*e != 0 ? 1 : 0); break;
        case 4: { uint16_t x; std::memcpy(&x, e, 2); v.push_back(x); break; }
        case 5: { int16_t x; std::memcpy(&x, e, 2); v.push_back(x); break; }
        case 10: { uint16_t x; std::memcpy(&x, e, 2); v.push_back(HalfToFloat(x)); break; }
        case 16: {
          uint16_t x; std::memcpy(&x, e, 2);
          const uint32_t bits = static_cast<uint32_t>(x) << 16;
          float f; std::memcpy(&f, &bits, 4); v.push_back(f); break;
        }
        case 6: { int32_t x; std::memcpy(&x, e, 4); v.push_back(x); break; }
        case 12: { uint32_t x; std::memcpy(&x, e, 4); v.push_back(x); break; }
        case 7: { int64_t x; std::memcpy(&x, e, 8); v.push_back(static_cast<double>(x)); break; }
        case 13: { uint64_t x; std::memcpy(&x, e, 8); v.push_back(static_cast<double>(x)); break; }
        case 11: { double x; std::memcpy(&x, e, 8); v.push_back(x); break; }
      }
    }
    // Integers go through int64 directly where exactness matters.
    if (t == 7) {
      std::vector<int64_t> ints(n);
      std::memcpy(ints.data(), d, n * 8);
      return ConstTensor::Int(std::move(shape), std::move(ints));
    }
  } else if (t == 1) {
    if (p.float_data_size() != n) {
      return absl::InvalidArgumentError(
          absl::StrCat(what, " has ", p.float_data_size(), " values for ", n, " elements"));
    }
    return ConstTensor::Float(std::move(shape),
                              std::vector<float>(p.float_data().begin(), p.float_data().end()));
  } else if (t == 7) {
    if (p.int64_data_size() != n) {
      return absl::InvalidArgumentError(
          absl::StrCat(what, " has ", p.int64_data_size(), " values for ", n, " elements"));
    }
    return ConstTensor::Int(std::move(shape),
                            std::vector<int64_t>(p.int64_data().begin(), p.int64_data().end()));
  } else if (t == 11) {
    v.assign(p.double_data().begin(), p.double_data().end());
  } else if (t == 12 || t == 13) {
    v.assign(p.uint64_data().begin(), p.uint64_data().end());
  } else {
    for (int32_t x : p.int32_data()) v.push_back(t == 10 ? HalfToFloat(static_cast<uint16_t>(x)) : x);
  }
  if (static_cast<int64_t>(v.size()) != n) {
    return absl::InvalidArgumentError(
        absl::StrCat(what, " has ", v.size(), " values for ", n, " elements"));
  }
  if (IsFloatType(t)) {
    return ConstTensor::Float(std::move(shape), std::vector<float>(v.begin(), v.end()));
  }
  std::vector<int64_t> ints;
  for (double x : v) ints.push_back(SaturatingInt64(x));
  return ConstTensor::Int(std::move(shape), std::move(ints));
}

// ---- The emitter.

bool IsSupportedOp(const std::string& op) {
  static const std::set<std::string> kOps = {
      "Conv", "MaxPool", "AveragePool", "GlobalAveragePool", "BatchNormalization", "Clip",
      "Add", "Sub", "Mul", "Div", "MatMul", "Gemm", "Softmax", "LayerNormalization", "Pad",
      "ReduceMean", "Relu", "Erf", "Tanh", "Sqrt", "Sigmoid", "Pow", "Identity", "Dropout",
      "Cast", "Reshape", "Flatten", "Squeeze", "Unsqueeze", "Transpose", "Gather", "Concat",
      "Slice"};
  return kOps.count(op) > 0 || IsFoldable(op);
}

Emitter::Emitter(const ImportState& state, std::string graph_name)
    : state_(state), b_(std::move(graph_name)) {
  const onnx::GraphProto& g = *state.graph;
  done_.assign(g.node_size(), false);
  for (int i = 0; i < g.node_size(); ++i) {
    for (const std::string& in : g.node(i).input()) {
      std::vector<int>& c = consumers_[in];
      if (c.empty() || c.back() != i) c.push_back(i);
    }
  }
  for (const onnx::ValueInfoProto& out : g.output()) model_outputs_.insert(out.name());
}

const ConstTensor* Emitter::ConstOf(const std::string& name) const {
  auto it = state_.consts.find(name);
  return it == state_.consts.end() ? nullptr : &it->second;
}

const Emitter::Act* Emitter::ActOf(const std::string& name) const {
  auto it = acts_.find(name);
  return it == acts_.end() ? nullptr : &it->second;
}

int Emitter::OnlyConsumer(const std::string& value) const {
  if (model_outputs_.count(value) > 0) return -1;
  auto it = consumers_.find(value);
  if (it == consumers_.end() || it->second.size() != 1) return -1;
  return it->second[0];
}

const ConstTensor* Emitter::ScalarOperand(int index, const std::string& skip) const {
  for (const std::string& in : node(index).input()) {
    if (in == skip) continue;
    const ConstTensor* c = ConstOf(in);
    if (c != nullptr && c->is_scalar()) return c;
  }
  return nullptr;
}

TensorId Emitter::As(const Act& act, const Shape& shape) {
  if (b_.Shape(act.primary) == shape) return act.primary;
  auto key = std::make_pair(act.primary, shape);
  auto it = views_.find(key);
  if (it != views_.end()) return it->second;
  NodeAttrs a;
  a.shape = shape;
  const TensorId view =
      AddNode(NodeKind::kReshape, {act.primary}, a, absl::StrCat("view_", views_.size()));
  views_[key] = view;
  return view;
}

TensorId Emitter::WeightOf(const std::string& name, const ConstTensor& value, bool as_indices) {
  auto it = weights_.find(name);
  if (it != weights_.end()) return it->second;
  const DType dtype = as_indices && !value.is_float ? DType::kInt64 : DType::kFloat32;
  std::shared_ptr<const std::vector<float>> data = value.floats;
  if (!value.is_float) {
    data = std::make_shared<const std::vector<float>>(value.ints.begin(), value.ints.end());
  }
  Shape shape = value.shape.empty() ? Shape{1} : value.shape;
  const TensorId id = b_.Weight(name, std::move(shape), std::move(data), dtype);
  weights_[name] = id;
  return id;
}

TensorId Emitter::AddNode(NodeKind kind, std::vector<TensorId> inputs, NodeAttrs attrs,
                          const std::string& name) {
  // Node names must be unique; ONNX names usually are, derived ones get a suffix.
  const int n = names_used_[name]++;
  return b_.AddNode(kind, std::move(inputs), std::move(attrs),
                    n == 0 ? name : absl::StrCat(name, "#", n));
}

void Emitter::Bind(const std::string& value, TensorId primary, Shape shape) {
  acts_[value] = Act{primary, std::move(shape)};
}

absl::Status Emitter::Unsupported(int index, const std::string& why) const {
  return absl::UnimplementedError(why.empty() ? node(index).op_type()
                                              : absl::StrCat(node(index).op_type(), " (", why, ")"));
}

absl::StatusOr<OnnxModel> Emitter::Run() && {
  const onnx::GraphProto& g = *state_.graph;
  std::vector<std::string> errors;
  // op type (with reason) -> node names
  std::map<std::string, std::vector<std::string>> unsupported;
  OnnxModel model;
  for (const onnx::ValueInfoProto& in : g.input()) {
    if (state_.consts.count(in.name()) > 0) continue;  // an initializer listed as input
    // FLOAT, or INT64 / INT32 indices (token ids feeding an embedding).
    const int elem = in.type().tensor_type().elem_type();
    if (elem != 1 && elem != 7 && elem != 6) {
      errors.push_back(absl::StrCat("input '", in.name(), "' has element type ", elem,
                                    "; inputs must be float32, or int64/int32 indices"));
      continue;
    }
    const DType dtype = elem == 1 ? DType::kFloat32 : elem == 7 ? DType::kInt64 : DType::kInt32;
    auto shape = state_.shapes.find(in.name());
    if (shape == state_.shapes.end()) {
      errors.push_back(absl::StrCat("input '", in.name(), "' has no static shape"));
      continue;
    }
    const TensorId id = b_.Input(in.name(), shape->second, dtype);
    Bind(in.name(), id, shape->second);
    model.inputs.push_back(id);
    model.input_names.push_back(in.name());
  }
  for (int i = 0; i < g.node_size(); ++i) {
    if (done_[i] || state_.folded.count(i) > 0) continue;
    const onnx::NodeProto& n = g.node(i);
    // A node downstream of a failed one is skipped: its failure is reported.
    bool ready = true;
    for (const std::string& in : n.input()) {
      if (!in.empty() && ActOf(in) == nullptr && ConstOf(in) == nullptr) ready = false;
    }
    if (!ready) {
      // Downstream of a failure; still listed if its own kind is unsupported.
      if (!IsSupportedOp(n.op_type())) unsupported[n.op_type()].push_back(n.name());
      continue;
    }
    absl::Status s = EmitNode(i);
    if (!b_.status().ok()) {
      // The builder's own check failed: an import bug or an inconsistent model.
      return absl::InvalidArgumentError(absl::StrCat("node '", n.name(), "' (", n.op_type(),
                                                     "): ", b_.status().message()));
    }
    if (absl::IsUnimplemented(s)) {
      unsupported[std::string(s.message())].push_back(n.name());
    } else if (!s.ok()) {
      errors.push_back(absl::StrCat("node '", n.name(), "' (", n.op_type(), "): ", s.message()));
    } else {
      for (const std::string& out : n.output()) {
        auto expected = state_.shapes.find(out);
        const Act* act = ActOf(out);
        if (act != nullptr && expected != state_.shapes.end() && expected->second != act->shape) {
          errors.push_back(absl::StrCat("node '", n.name(), "' (", n.op_type(), "): output '", out,
                                        "' has shape ", ShapeToString(act->shape),
                                        " but ONNX shape inference says ",
                                        ShapeToString(expected->second)));
        }
      }
    }
  }
  if (!unsupported.empty()) {
    std::vector<std::string> lines;
    int total = 0;
    for (const auto& [op, nodes] : unsupported) {
      total += static_cast<int>(nodes.size());
      std::vector<std::string> shown(nodes.begin(), nodes.begin() + std::min<size_t>(nodes.size(), 8));
      lines.push_back(absl::StrCat("  ", op, " x", nodes.size(), ": ", absl::StrJoin(shown, ", "),
                                   nodes.size() > shown.size() ? ", ..." : ""));
    }
    std::string msg = absl::StrCat("the model uses ", total, " node(s) of ", unsupported.size(),
                                   " unsupported operator kind(s):\n", absl::StrJoin(lines, "\n"));
    if (!errors.empty()) absl::StrAppend(&msg, "\nand:\n  ", absl::StrJoin(errors, "\n  "));
    return absl::UnimplementedError(msg);
  }
  if (!errors.empty()) return absl::InvalidArgumentError(absl::StrJoin(errors, "\n"));
  for (const onnx::ValueInfoProto& out : g.output()) {
    const Act* act = ActOf(out.name());
    if (act == nullptr) {
      return absl::InvalidArgumentError(absl::StrCat(
          "output '", out.name(), "' is a constant or an input; nothing computes it"));
    }
    const TensorId id = Nd(*act);
    b_.MarkOutput(id);
    model.outputs.push_back(id);
    model.output_names.push_back(out.name());
  }
  PRUNER_ASSIGN_OR_RETURN(model.graph, std::move(b_).Build());
  model.opset = state_.opset;
  return model;
}

absl::Status Emitter::EmitNode(int i) {
  const onnx::NodeProto& n = node(i);
  const std::string& op = n.op_type();
  if (!n.domain().empty() && n.domain() != "ai.onnx") {
    return Unsupported(i, absl::StrCat("domain ", n.domain()));
  }
  if (op == "Conv") return EmitConv(i);
  if (op == "MaxPool" || op == "AveragePool" || op == "GlobalAveragePool") return EmitPool(i);
  if (op == "BatchNormalization") return EmitBatchNorm(i);
  if (op == "Clip") return EmitClip(i);
  if (op == "Add" || op == "Sub" || op == "Mul" || op == "Div") {
    if (op == "Div" || op == "Mul") {
      PRUNER_ASSIGN_OR_RETURN(const bool gelu, TryGeluPattern(i));
      if (gelu) return absl::OkStatus();
    }
    return EmitBinary(i);
  }
  if (op == "MatMul") return EmitMatMul(i);
  if (op == "Gemm") return EmitGemm(i);
  if (op == "Softmax") return EmitSoftmax(i);
  if (op == "LayerNormalization") return EmitLayerNorm(i);
  if (op == "Pad") return EmitPad(i);
  if (op == "Gather") return EmitGather(i);
  if (op == "Concat") return EmitConcat(i);
  if (op == "Slice") return EmitSlice(i);
  if (op == "ReduceMean") {
    PRUNER_ASSIGN_OR_RETURN(const bool ln, TryLayerNormPattern(i));
    if (ln) return absl::OkStatus();
    return EmitReduceMean(i);
  }
  const Act* x = n.input_size() > 0 ? ActOf(n.input(0)) : nullptr;
  if (x == nullptr) return Unsupported(i, "");
  const Act in = *x;
  static const std::map<std::string, NodeKind> kUnary = {
      {"Relu", NodeKind::kRelu}, {"Erf", NodeKind::kErf},   {"Tanh", NodeKind::kTanh},
      {"Sqrt", NodeKind::kSqrt}, {"Sigmoid", NodeKind::kSigmoid}};
  if (auto it = kUnary.find(op); it != kUnary.end()) {
    Bind(n.output(0), AddNode(it->second, {in.primary}, {}, n.name()), in.shape);
    return absl::OkStatus();
  }
  if (op == "Pow") {
    const ConstTensor* e = n.input_size() == 2 ? ConstOf(n.input(1)) : nullptr;
    if (e == nullptr || !e->is_scalar()) return Unsupported(i, "non-constant exponent");
    const double p = e->at(0);
    if (p != 0.5 && p != 1 && p != 2 && p != 3) return Unsupported(i, absl::StrCat("exponent ", p));
    NodeAttrs a;
    a.scalar = p;
    Bind(n.output(0), AddNode(NodeKind::kPow, {in.primary}, a, n.name()), in.shape);
    return absl::OkStatus();
  }
  // A cast that keeps the dtype class: float to float, or integer indices
  // to an integer type (int32 <-> int64 reads the same indices).
  const bool int_act = IsInt(b_.dtype(in.primary));
  const int64_t cast_to = AttrInt(n, "to", 1);
  if (op == "Identity" || op == "Dropout" ||
      (op == "Cast" && (int_act ? (cast_to == 6 || cast_to == 7) : cast_to == 1))) {
    if (op == "Dropout" && n.output_size() > 1 && !n.output(1).empty() &&
        consumers_.count(n.output(1)) > 0) {
      return Unsupported(i, "its mask output is used");
    }
    acts_[n.output(0)] = in;
    return absl::OkStatus();
  }
  if (op == "Reshape" || op == "Flatten" || op == "Squeeze" || op == "Unsqueeze") {
    // No data moves: the new shape is recorded, a view made only on demand.
    auto shape = state_.shapes.find(n.output(0));
    if (shape == state_.shapes.end()) {
      return absl::InvalidArgumentError("ONNX shape inference gave no static output shape");
    }
    if (NumElements(shape->second) != NumElements(in.shape)) {
      return absl::InvalidArgumentError(absl::StrCat("reshape of ", ShapeToString(in.shape),
                                                     " to ", ShapeToString(shape->second),
                                                     " changes the element count"));
    }
    Bind(n.output(0), in.primary, shape->second);
    return absl::OkStatus();
  }
  if (op == "Transpose") {
    std::vector<int> perm;
    for (int64_t p : AttrInts(n, "perm")) perm.push_back(static_cast<int>(p));
    if (perm.empty()) {
      for (int d = static_cast<int>(in.shape.size()) - 1; d >= 0; --d) perm.push_back(d);
    }
    bool identity = true;
    for (size_t d = 0; d < perm.size(); ++d) identity = identity && perm[d] == static_cast<int>(d);
    if (identity) {
      acts_[n.output(0)] = in;
      return absl::OkStatus();
    }
    NodeAttrs a;
    a.perm = perm;
    const TensorId t = AddNode(NodeKind::kTranspose, {Nd(in)}, a, n.name());
    Bind(n.output(0), t, b_.Shape(t));
    return absl::OkStatus();
  }
  return Unsupported(i, "");
}

Emitter::Act Emitter::SliceAct(const Act& x, int axis, int64_t begin, int64_t end,
                               const std::string& name) {
  if (begin == 0 && end == x.shape[axis]) return x;
  NodeAttrs a;
  a.axis = axis;
  a.begin = begin;
  a.end = end;
  const TensorId t = AddNode(NodeKind::kSlice, {Nd(x)}, a, name);
  return Act{t, b_.Shape(t)};
}

absl::Status Emitter::EmitGather(int i) {
  const onnx::NodeProto& n = node(i);
  if (n.input_size() != 2) return absl::InvalidArgumentError("Gather takes data and indices");
  const Act* data_act = ActOf(n.input(0));
  const ConstTensor* data_const = ConstOf(n.input(0));
  const Act* index_act = ActOf(n.input(1));
  const ConstTensor* index_const = ConstOf(n.input(1));
  const Shape data_shape = data_act != nullptr ? data_act->shape : data_const->shape;
  const int64_t rank = static_cast<int64_t>(data_shape.size());
  int64_t axis = AttrInt(n, "axis", 0);
  if (axis < 0) axis += rank;
  if (axis < 0 || axis >= rank) {
    return absl::InvalidArgumentError(absl::StrCat("axis ", AttrInt(n, "axis", 0),
                                                   " is outside the data's rank ", rank));
  }
  auto expected = state_.shapes.find(n.output(0));
  if (expected == state_.shapes.end()) {
    return absl::InvalidArgumentError("ONNX shape inference gave no static output shape");
  }
  // Constant indices on an activation: a run of consecutive indices (x[:, 0],
  // x[:, 2:5]) is a slice; the output's shape is a lazy reshape of it.
  if (data_act != nullptr && index_const != nullptr && !index_const->is_float &&
      index_const->size() > 0) {
    const int64_t dim = data_shape[axis];
    auto at = [&](int64_t k) {
      const int64_t v = index_const->int_at(k);
      return v < 0 ? v + dim : v;
    };
    bool consecutive = at(0) >= 0 && at(0) + index_const->size() <= dim;
    for (int64_t k = 1; consecutive && k < index_const->size(); ++k) {
      consecutive = at(k) == at(0) + k;
    }
    if (consecutive) {
      const Act sliced = SliceAct(*data_act, static_cast<int>(axis), at(0),
                                  at(0) + index_const->size(), n.name());
      Bind(n.output(0), sliced.primary, expected->second);
      return absl::OkStatus();
    }
  }
  if (index_const != nullptr && index_const->is_float) {
    return absl::InvalidArgumentError("Gather indices must be integers");
  }
  if (index_act == nullptr && index_const == nullptr) return Unsupported(i, "");
  const TensorId table = data_act != nullptr ? Nd(*data_act) : WeightOf(n.input(0), *data_const);
  // Indices of rank 0 (a scalar) gather one row: as indices of shape [1],
  // with the dropped axis restored by the lazy output shape.
  TensorId indices;
  if (index_act != nullptr) {
    indices = Nd(*index_act);
  } else {
    ConstTensor c = *index_const;
    if (c.shape.empty()) c.shape = {1};
    indices = WeightOf(n.input(1), c, /*as_indices=*/true);
  }
  NodeAttrs a;
  a.axis = static_cast<int>(axis);
  const TensorId out = AddNode(NodeKind::kGather, {table, indices}, a, n.name());
  Bind(n.output(0), out, expected->second);
  return absl::OkStatus();
}

absl::Status Emitter::EmitConcat(int i) {
  const onnx::NodeProto& n = node(i);
  std::vector<TensorId> inputs;
  Shape first;
  for (const std::string& in : n.input()) {
    if (const Act* act = ActOf(in); act != nullptr) {
      inputs.push_back(Nd(*act));
      if (first.empty()) first = act->shape;
    } else if (const ConstTensor* c = ConstOf(in); c != nullptr) {
      if (c->size() == 0) continue;  // an empty piece adds nothing
      inputs.push_back(WeightOf(in, *c));
      if (first.empty()) first = c->shape;
    } else {
      return Unsupported(i, "");
    }
  }
  if (inputs.empty()) return absl::InvalidArgumentError("Concat of nothing");
  int64_t axis = AttrInt(n, "axis", 0);
  if (axis < 0) axis += static_cast<int64_t>(first.size());
  NodeAttrs a;
  a.axis = static_cast<int>(axis);
  if (inputs.size() == 1) {
    Bind(n.output(0), inputs[0], b_.Shape(inputs[0]));
    return absl::OkStatus();
  }
  const TensorId out = AddNode(NodeKind::kConcat, inputs, a, n.name());
  Bind(n.output(0), out, b_.Shape(out));
  return absl::OkStatus();
}

absl::Status Emitter::EmitSlice(int i) {
  const onnx::NodeProto& n = node(i);
  const Act* x = ActOf(n.input(0));
  if (x == nullptr) return Unsupported(i, "");
  auto ints = [&](int k, std::vector<int64_t>* out) -> absl::Status {
    if (k >= n.input_size() || n.input(k).empty()) return absl::OkStatus();
    const ConstTensor* c = ConstOf(n.input(k));
    if (c == nullptr) return absl::UnimplementedError("Slice (bounds computed at run time)");
    *out = c->Ints();
    return absl::OkStatus();
  };
  std::vector<int64_t> starts, ends, axes, steps;
  PRUNER_RETURN_IF_ERROR(ints(1, &starts));
  PRUNER_RETURN_IF_ERROR(ints(2, &ends));
  PRUNER_RETURN_IF_ERROR(ints(3, &axes));
  PRUNER_RETURN_IF_ERROR(ints(4, &steps));
  if (axes.empty()) {
    for (size_t k = 0; k < starts.size(); ++k) axes.push_back(static_cast<int64_t>(k));
  }
  if (steps.empty()) steps.assign(starts.size(), 1);
  if (starts.size() != ends.size() || axes.size() != starts.size() ||
      steps.size() != starts.size()) {
    return absl::InvalidArgumentError("starts, ends, axes and steps differ in length");
  }
  Act act = *x;
  const int64_t rank = static_cast<int64_t>(act.shape.size());
  for (size_t k = 0; k < axes.size(); ++k) {
    if (steps[k] != 1) return Unsupported(i, absl::StrCat("step ", steps[k]));
    const int64_t axis = axes[k] < 0 ? axes[k] + rank : axes[k];
    if (axis < 0 || axis >= rank) {
      return absl::InvalidArgumentError(absl::StrCat("axis ", axes[k], " is outside rank ", rank));
    }
    const int64_t dim = act.shape[axis];
    auto clamp = [&](int64_t v) {
      if (v < 0) v = v < -dim ? 0 : v + dim;
      return std::clamp<int64_t>(v, 0, dim);
    };
    const int64_t begin = clamp(starts[k]), end = clamp(ends[k]);
    if (begin >= end) {
      return absl::InvalidArgumentError(absl::StrCat("the slice of axis ", axis, " is empty"));
    }
    act = SliceAct(act, static_cast<int>(axis), begin, end,
                   k == 0 ? n.name() : absl::StrCat(n.name(), ".axis", axis));
  }
  Bind(n.output(0), act.primary, act.shape);
  return absl::OkStatus();
}

absl::Status Emitter::EmitConv(int i) {
  const onnx::NodeProto& n = node(i);
  const Act* x = ActOf(n.input(0));
  const ConstTensor* w = ConstOf(n.input(1));
  if (x == nullptr) return Unsupported(i, "constant input");
  if (w == nullptr) return Unsupported(i, "non-constant weight");
  if (x->shape.size() != 4) {
    return Unsupported(i, absl::StrCat("rank-", x->shape.size(), " input; only 2-D convolution"));
  }
  NodeAttrs a;
  PRUNER_ASSIGN_OR_RETURN(std::vector<int64_t> pads, Pads2d(n));
  if (auto it = pending_pads_.find(i); it != pending_pads_.end()) {
    for (int k = 0; k < 4; ++k) pads[k] += it->second[k];
  }
  PRUNER_RETURN_IF_ERROR(SetSymmetricPads(pads, &a));
  const std::vector<int64_t> strides = Pair(AttrInts(n, "strides"), 1);
  const std::vector<int64_t> dilations = Pair(AttrInts(n, "dilations"), 1);
  a.stride_h = strides[0];
  a.stride_w = strides[1];
  a.dilation_h = dilations[0];
  a.dilation_w = dilations[1];
  a.groups = AttrInt(n, "group", 1);
  const int64_t out_channels = w->shape.empty() ? 0 : w->shape[0];
  std::vector<float> bias;
  const ConstTensor* b = n.input_size() > 2 && !n.input(2).empty() ? ConstOf(n.input(2)) : nullptr;
  if (n.input_size() > 2 && !n.input(2).empty() && b == nullptr) {
    return Unsupported(i, "non-constant bias");
  }
  if (b != nullptr) {
    if (b->size() != out_channels) return absl::InvalidArgumentError("bias length differs from K");
    for (int64_t k = 0; k < out_channels; ++k) bias.push_back(static_cast<float>(b->at(k)));
  }
  std::string out_name = n.output(0);
  std::string weight_name = n.input(1);
  ConstTensor weight = *w;
  // Batch norm right after the conv folds into its weight and bias:
  // w' = w * gamma / sqrt(var + eps), b' = (b - mean) * gamma / sqrt(var + eps) + beta.
  const int next = OnlyConsumer(out_name);
  if (IsOp(next, "BatchNormalization")) {
    const onnx::NodeProto& bn = node(next);
    const ConstTensor* p[4] = {nullptr, nullptr, nullptr, nullptr};
    bool all = bn.input_size() == 5 && (bn.output_size() == 1 || consumers_.count(bn.output(1)) == 0);
    for (int k = 0; all && k < 4; ++k) {
      p[k] = ConstOf(bn.input(k + 1));
      all = p[k] != nullptr && p[k]->size() == out_channels;
    }
    if (all) {
      const double eps = AttrFloat(bn, "epsilon", 1e-5f);
      if (bias.empty()) bias.assign(out_channels, 0.0f);
      std::vector<float> folded(weight.floats->begin(), weight.floats->end());
      const int64_t per_channel = out_channels == 0 ? 0 : weight.size() / out_channels;
      for (int64_t k = 0; k < out_channels; ++k) {
        const double scale = p[0]->at(k) / std::sqrt(p[3]->at(k) + eps);
        for (int64_t e = 0; e < per_channel; ++e) {
          folded[k * per_channel + e] = static_cast<float>(folded[k * per_channel + e] * scale);
        }
        bias[k] = static_cast<float>((bias[k] - p[2]->at(k)) * scale + p[1]->at(k));
      }
      weight = ConstTensor::Float(weight.shape, std::move(folded));
      weight_name = absl::StrCat(n.input(1), "+", bn.name());
      out_name = bn.output(0);
      done_[next] = true;
    }
  }
  const TensorId wid = WeightOf(weight_name, weight);
  TensorId y = AddNode(NodeKind::kConv2d, {Nd(*x), wid}, a, n.name());
  if (!bias.empty()) {
    const TensorId bid =
        WeightOf(absl::StrCat(weight_name, ".bias"), ConstTensor::Float({out_channels}, bias));
    NodeAttrs ba;
    ba.axis = 1;
    y = AddNode(NodeKind::kBiasAdd, {y, bid}, ba, absl::StrCat(n.name(), "/bias"));
  }
  Bind(out_name, y, b_.Shape(y));
  return absl::OkStatus();
}

absl::Status Emitter::EmitPool(int i) {
  const onnx::NodeProto& n = node(i);
  const Act* x = ActOf(n.input(0));
  if (x == nullptr) return Unsupported(i, "constant input");
  if (x->shape.size() != 4) return Unsupported(i, absl::StrCat("rank-", x->shape.size(), " input"));
  if (n.op_type() == "GlobalAveragePool") {
    const TensorId y = AddNode(NodeKind::kGlobalAvgPool2d, {Nd(*x)}, {}, n.name());
    Bind(n.output(0), y, b_.Shape(y));
    return absl::OkStatus();
  }
  const bool is_max = n.op_type() == "MaxPool";
  if (is_max && n.output_size() > 1 && consumers_.count(n.output(1)) > 0) {
    return Unsupported(i, "its indices output is used");
  }
  NodeAttrs a;
  PRUNER_ASSIGN_OR_RETURN(std::vector<int64_t> pads, Pads2d(n));
  if (auto it = pending_pads_.find(i); it != pending_pads_.end()) {
    for (int k = 0; k < 4; ++k) pads[k] += it->second[k];
  }
  PRUNER_RETURN_IF_ERROR(SetSymmetricPads(pads, &a));
  const std::vector<int64_t> kernel = AttrInts(n, "kernel_shape");
  if (kernel.size() != 2) return Unsupported(i, "a window that is not 2-D");
  const std::vector<int64_t> strides = Pair(AttrInts(n, "strides"), 1);
  for (int64_t d : AttrInts(n, "dilations")) {
    if (d != 1) return Unsupported(i, "dilation");
  }
  if (!is_max && AttrInt(n, "count_include_pad", 0) == 0 && (a.pad_h > 0 || a.pad_w > 0) &&
      pending_pads_.count(i) == 0) {
    return Unsupported(i, "padding excluded from the average (count_include_pad=0)");
  }
  a.kernel_h = kernel[0];
  a.kernel_w = kernel[1];
  a.stride_h = strides[0];
  a.stride_w = strides[1];
  const TensorId y =
      AddNode(is_max ? NodeKind::kMaxPool2d : NodeKind::kAvgPool2d, {Nd(*x)}, a, n.name());
  if (AttrInt(n, "ceil_mode", 0) != 0) {
    auto expected = state_.shapes.find(n.output(0));
    if (expected == state_.shapes.end() || expected->second != b_.Shape(y)) {
      return Unsupported(i, "ceil_mode that changes the output size");
    }
  }
  Bind(n.output(0), y, b_.Shape(y));
  return absl::OkStatus();
}

absl::Status Emitter::EmitBatchNorm(int i) {
  // Not after a conv (EmitConv folds those): y = x * scale + shift per channel.
  const onnx::NodeProto& n = node(i);
  const Act* x = ActOf(n.input(0));
  if (x == nullptr || x->shape.size() < 2) return Unsupported(i, "input of rank < 2");
  const int64_t c = x->shape[1];
  const ConstTensor* p[4];
  for (int k = 0; k < 4; ++k) {
    p[k] = n.input_size() > k + 1 ? ConstOf(n.input(k + 1)) : nullptr;
    if (p[k] == nullptr || p[k]->size() != c) return Unsupported(i, "non-constant statistics");
  }
  const double eps = AttrFloat(n, "epsilon", 1e-5f);
  std::vector<float> scale(c), shift(c);
  for (int64_t k = 0; k < c; ++k) {
    const double s = p[0]->at(k) / std::sqrt(p[3]->at(k) + eps);
    scale[k] = static_cast<float>(s);
    shift[k] = static_cast<float>(p[1]->at(k) - p[2]->at(k) * s);
  }
  Shape scale_shape{c};
  for (size_t d = 2; d < x->shape.size(); ++d) scale_shape.push_back(1);
  const TensorId s = WeightOf(absl::StrCat(n.name(), ".scale"), ConstTensor::Float(scale_shape, scale));
  const TensorId t = WeightOf(absl::StrCat(n.name(), ".shift"), ConstTensor::Float({c}, shift));
  TensorId y = AddNode(NodeKind::kMultiply, {Nd(*x), s}, {}, n.name());
  NodeAttrs ba;
  ba.axis = 1;
  y = AddNode(NodeKind::kBiasAdd, {y, t}, ba, absl::StrCat(n.name(), "/shift"));
  Bind(n.output(0), y, x->shape);
  return absl::OkStatus();
}

absl::Status Emitter::EmitClip(int i) {
  const onnx::NodeProto& n = node(i);
  const Act* x = ActOf(n.input(0));
  if (x == nullptr) return Unsupported(i, "constant input");
  double lo = -INFINITY, hi = INFINITY;
  if (state_.opset < 11) {
    lo = AttrFloat(n, "min", -INFINITY);
    hi = AttrFloat(n, "max", INFINITY);
  } else {
    for (int k : {1, 2}) {
      if (n.input_size() <= k || n.input(k).empty()) continue;
      const ConstTensor* bound = ConstOf(n.input(k));
      if (bound == nullptr || !bound->is_scalar()) return Unsupported(i, "non-constant bounds");
      (k == 1 ? lo : hi) = bound->at(0);
    }
  }
  NodeKind kind;
  if (lo == 0 && hi == 6) {
    kind = NodeKind::kRelu6;
  } else if (lo == 0 && std::isinf(hi)) {
    kind = NodeKind::kRelu;
  } else {
    return Unsupported(i, absl::StrCat("bounds [", lo, ", ", hi, "]; only ReLU and ReLU6"));
  }
  Bind(n.output(0), AddNode(kind, {x->primary}, {}, n.name()), x->shape);
  return absl::OkStatus();
}

absl::Status Emitter::EmitBinary(int i) {
  const onnx::NodeProto& n = node(i);
  const std::string& op = n.op_type();
  if (n.input_size() != 2) return absl::InvalidArgumentError("expects 2 inputs");
  const NodeKind kind = op == "Add"   ? NodeKind::kAdd
                        : op == "Sub" ? NodeKind::kSubtract
                        : op == "Mul" ? NodeKind::kMultiply
                                      : NodeKind::kDivide;
  const Act* a = ActOf(n.input(0));
  const Act* b = ActOf(n.input(1));
  auto expected = state_.shapes.find(n.output(0));
  if (a != nullptr && b != nullptr) {
    const Act x = *a, y = *b;
    if (x.shape == y.shape) {
      // Same shape: work in the lower-rank primary's shape (a dense's rows),
      // viewing the other operand so, which keeps a residual add in the
      // dense's group.
      const Shape px = b_.Shape(x.primary), py = b_.Shape(y.primary);
      const Shape& target = px.size() <= py.size() ? px : py;
      const TensorId lhs = As(x, target);
      const TensorId rhs = As(y, target);
      Bind(n.output(0), AddNode(kind, {lhs, rhs}, {}, n.name()), x.shape);
      return absl::OkStatus();
    }
    const TensorId out = AddNode(kind, {Nd(x), Nd(y)}, {}, n.name());
    Bind(n.output(0), out, b_.Shape(out));
    return absl::OkStatus();
  }
  // One side constant.
  const bool const_first = a == nullptr;
  const Act x = const_first ? *b : *a;
  const std::string& kname = n.input(const_first ? 0 : 1);
  const ConstTensor& k = *ConstOf(kname);
  const Shape px = b_.Shape(x.primary);
  if (k.is_scalar() && (op == "Mul" || (op == "Div" && !const_first))) {
    NodeAttrs sa;
    sa.scalar = op == "Mul" ? k.at(0) : 1.0 / k.at(0);
    Bind(n.output(0), AddNode(NodeKind::kScale, {x.primary}, sa, n.name()), x.shape);
    return absl::OkStatus();
  }
  if (expected != state_.shapes.end() && expected->second != x.shape) {
    // The constant grows the activation (e.g. [C] + [1, C, H, W] reversed):
    // rare; computed on the full shapes.
    const TensorId w = WeightOf(kname, k);
    const TensorId out = AddNode(kind, const_first ? std::vector<TensorId>{w, Nd(x)}
                                                   : std::vector<TensorId>{Nd(x), w},
                                 {}, n.name());
    Bind(n.output(0), out, b_.Shape(out));
    return absl::OkStatus();
  }
  // A vector along the last axis (a bias), or a scalar: broadcasts over the
  // primary as over the ONNX shape, as long as their last axes agree.
  bool last_axis_only = !x.shape.empty() && k.shape.size() <= x.shape.size() &&
                        !px.empty() && px.back() == x.shape.back();
  for (size_t d = 0; last_axis_only && d < k.shape.size(); ++d) {
    const bool last = d + 1 == k.shape.size();
    if (!last && k.shape[d] != 1) last_axis_only = false;
    if (last && k.shape[d] != 1 && k.shape[d] != x.shape.back()) last_axis_only = false;
  }
  if (last_axis_only) {
    const int64_t len = k.size();
    const TensorId w = WeightOf(kname, ConstTensor{k.is_float, {len}, k.floats, k.ints});
    if (op == "Add" && len == x.shape.back() && len > 1) {
      NodeAttrs ba;
      ba.axis = static_cast<int>(px.size()) - 1;
      Bind(n.output(0), AddNode(NodeKind::kBiasAdd, {x.primary, w}, ba, n.name()), x.shape);
      return absl::OkStatus();
    }
    const TensorId out = AddNode(kind, const_first ? std::vector<TensorId>{w, x.primary}
                                                   : std::vector<TensorId>{x.primary, w},
                                 {}, n.name());
    Bind(n.output(0), out, x.shape);
    return absl::OkStatus();
  }
  // Per-channel [C, 1, 1] constants on NCHW and the like: the ONNX shapes.
  const TensorId w = WeightOf(kname, k);
  if (op == "Add" && x.shape.size() == 4 && k.size() == x.shape[1] &&
      (k.shape == Shape{x.shape[1], 1, 1} || k.shape == Shape{1, x.shape[1], 1, 1})) {
    const TensorId bias = WeightOf(absl::StrCat(kname, "/flat"),
                                   ConstTensor{k.is_float, {x.shape[1]}, k.floats, k.ints});
    NodeAttrs ba;
    ba.axis = 1;
    Bind(n.output(0), AddNode(NodeKind::kBiasAdd, {Nd(x), bias}, ba, n.name()), x.shape);
    return absl::OkStatus();
  }
  const TensorId out = AddNode(kind, const_first ? std::vector<TensorId>{w, Nd(x)}
                                                 : std::vector<TensorId>{Nd(x), w},
                               {}, n.name());
  Bind(n.output(0), out, b_.Shape(out));
  return absl::OkStatus();
}

absl::Status Emitter::EmitMatMul(int i) {
  const onnx::NodeProto& n = node(i);
  const Act* a = ActOf(n.input(0));
  const Act* b = ActOf(n.input(1));
  if (a == nullptr) return Unsupported(i, "constant left operand");
  const Act x = *a;
  if (x.shape.size() < 2) return Unsupported(i, "a vector left operand");
  if (b == nullptr) {
    // x [..., K] @ W [K, N]: a dense layer over the flattened rows.
    const ConstTensor& w = *ConstOf(n.input(1));
    if (w.shape.size() != 2) return Unsupported(i, "a constant right operand of rank != 2");
    const int64_t k = w.shape[0], cols = w.shape[1];
    if (x.shape.back() != k) return absl::InvalidArgumentError("inner dimensions differ");
    const TensorId wid =
        WeightOf(absl::StrCat(n.input(1), "^T"),
                 ConstTensor::Float({cols, k}, Transpose2d(*w.floats, k, cols)));
    const int64_t rows = NumElements(x.shape) / k;
    const TensorId y = AddNode(NodeKind::kDense, {As(x, {rows, k}), wid}, {}, n.name());
    Shape out = x.shape;
    out.back() = cols;
    Bind(n.output(0), y, out);
    return absl::OkStatus();
  }
  // Two activations: a batch matmul over the (equal) leading dimensions.
  const Act y = *b;
  if (y.shape.size() < 2) return Unsupported(i, "a vector right operand");
  const Shape batch_a(x.shape.begin(), x.shape.end() - 2);
  const Shape batch_b(y.shape.begin(), y.shape.end() - 2);
  if (batch_a != batch_b) return Unsupported(i, "broadcast batch dimensions");
  const int64_t batch = NumElements(batch_a);
  const int64_t m = x.shape[x.shape.size() - 2], k = x.shape.back(), cols = y.shape.back();
  if (y.shape[y.shape.size() - 2] != k) return absl::InvalidArgumentError("inner dimensions differ");
  const TensorId out = AddNode(NodeKind::kBatchMatmul,
                               {As(x, {batch, m, k}), As(y, {batch, k, cols})}, {}, n.name());
  Shape shape = batch_a;
  shape.push_back(m);
  shape.push_back(cols);
  Bind(n.output(0), out, shape);
  return absl::OkStatus();
}

absl::Status Emitter::EmitGemm(int i) {
  const onnx::NodeProto& n = node(i);
  const Act* a = ActOf(n.input(0));
  const ConstTensor* w = ConstOf(n.input(1));
  if (a == nullptr || w == nullptr) return Unsupported(i, "a non-constant weight");
  if (AttrInt(n, "transA", 0) != 0) return Unsupported(i, "transA");
  if (a->shape.size() != 2 || w->shape.size() != 2) return absl::InvalidArgumentError("rank != 2");
  const bool trans_b = AttrInt(n, "transB", 0) != 0;
  const double alpha = AttrFloat(n, "alpha", 1.0f), beta = AttrFloat(n, "beta", 1.0f);
  const int64_t k = a->shape[1];
  const int64_t cols = trans_b ? w->shape[0] : w->shape[1];
  if ((trans_b ? w->shape[1] : w->shape[0]) != k) {
    return absl::InvalidArgumentError("inner dimensions differ");
  }
  // Our dense reads W as [N, K], which is Gemm's B when transB = 1.
  std::vector<float> wv = trans_b ? *w->floats : Transpose2d(*w->floats, k, cols);
  if (alpha != 1.0) {
    for (float& v : wv) v = static_cast<float>(v * alpha);
  }
  const std::string wname = trans_b && alpha == 1.0 ? n.input(1) : absl::StrCat(n.input(1), "/gemm");
  const TensorId wid = WeightOf(wname, ConstTensor::Float({cols, k}, std::move(wv)));
  TensorId y = AddNode(NodeKind::kDense, {Nd(*a), wid}, {}, n.name());
  if (n.input_size() > 2 && !n.input(2).empty()) {
    const ConstTensor* c = ConstOf(n.input(2));
    if (c == nullptr) return Unsupported(i, "a non-constant C");
    if (c->size() != cols && c->size() != 1) return Unsupported(i, "C that is not a row vector");
    std::vector<float> bias(cols);
    for (int64_t j = 0; j < cols; ++j) bias[j] = static_cast<float>(beta * c->at(c->size() == 1 ? 0 : j));
    const TensorId bid = WeightOf(absl::StrCat(n.input(2), "/bias"), ConstTensor::Float({cols}, bias));
    NodeAttrs ba;
    ba.axis = 1;
    y = AddNode(NodeKind::kBiasAdd, {y, bid}, ba, absl::StrCat(n.name(), "/bias"));
  }
  Bind(n.output(0), y, b_.Shape(y));
  return absl::OkStatus();
}

absl::Status Emitter::EmitSoftmax(int i) {
  const onnx::NodeProto& n = node(i);
  const Act x = *ActOf(n.input(0));
  const int64_t rank = static_cast<int64_t>(x.shape.size());
  int64_t axis = AttrInt(n, "axis", state_.opset >= 13 ? -1 : 1);
  if (axis < 0) axis += rank;
  NodeAttrs a;
  a.axis = -1;
  if (axis == rank - 1) {
    // Over the last axis: any primary with the same last axis will do.
    const TensorId in = b_.Shape(x.primary).size() >= 2 && b_.Shape(x.primary).back() == x.shape.back()
                            ? x.primary
                            : As(x, {NumElements(x.shape) / x.shape.back(), x.shape.back()});
    Bind(n.output(0), AddNode(NodeKind::kSoftmax, {in}, a, n.name()), x.shape);
    return absl::OkStatus();
  }
  if (state_.opset >= 13) return Unsupported(i, "an axis other than the last");
  // Opsets 11-12: softmax over the flattened dimensions from `axis` on.
  const Shape head(x.shape.begin(), x.shape.begin() + axis);
  const Shape tail(x.shape.begin() + axis, x.shape.end());
  const TensorId y =
      AddNode(NodeKind::kSoftmax, {As(x, {NumElements(head), NumElements(tail)})}, a, n.name());
  Bind(n.output(0), y, x.shape);
  return absl::OkStatus();
}

absl::Status Emitter::EmitLayerNorm(int i) {
  const onnx::NodeProto& n = node(i);
  const Act x = *ActOf(n.input(0));
  const int64_t rank = static_cast<int64_t>(x.shape.size());
  int64_t axis = AttrInt(n, "axis", -1);
  if (axis < 0) axis += rank;
  if (axis != rank - 1) return Unsupported(i, "normalization over more than the last axis");
  for (int k = 1; k < n.output_size(); ++k) {
    if (!n.output(k).empty() && consumers_.count(n.output(k)) > 0) {
      return Unsupported(i, "its mean or inverse std output is used");
    }
  }
  const int64_t d = x.shape.back();
  const ConstTensor* gamma = ConstOf(n.input(1));
  const ConstTensor* beta = n.input_size() > 2 ? ConstOf(n.input(2)) : nullptr;
  if (gamma == nullptr || gamma->size() != d) return Unsupported(i, "non-constant scale");
  std::vector<TensorId> inputs;
  const Shape p = b_.Shape(x.primary);
  inputs.push_back(p.size() >= 2 && p.back() == d ? x.primary : As(x, {NumElements(x.shape) / d, d}));
  inputs.push_back(WeightOf(n.input(1), ConstTensor{gamma->is_float, {d}, gamma->floats, gamma->ints}));
  if (beta != nullptr) {
    inputs.push_back(WeightOf(n.input(2), ConstTensor{beta->is_float, {d}, beta->floats, beta->ints}));
  } else {
    inputs.push_back(WeightOf(absl::StrCat(n.name(), ".zero_bias"),
                              ConstTensor::Float({d}, std::vector<float>(d, 0.0f))));
  }
  NodeAttrs a;
  a.eps = AttrFloat(n, "epsilon", 1e-5f);
  Bind(n.output(0), AddNode(NodeKind::kLayerNorm, inputs, a, n.name()), x.shape);
  return absl::OkStatus();
}

absl::Status Emitter::EmitPad(int i) {
  const onnx::NodeProto& n = node(i);
  const Act x = *ActOf(n.input(0));
  const std::string mode = AttrString(n, "mode");
  if (!mode.empty() && mode != "constant") return Unsupported(i, absl::StrCat("mode ", mode));
  std::vector<int64_t> pads;
  if (state_.opset < 11) {
    pads = AttrInts(n, "pads");
  } else {
    const ConstTensor* p = n.input_size() > 1 ? ConstOf(n.input(1)) : nullptr;
    if (p == nullptr) return Unsupported(i, "non-constant pads");
    for (int64_t k = 0; k < p->size(); ++k) pads.push_back(SaturatingInt64(p->at(k)));
    if (n.input_size() > 2 && !n.input(2).empty()) {
      const ConstTensor* v = ConstOf(n.input(2));
      if (v == nullptr || v->at(0) != 0) return Unsupported(i, "a value other than 0");
    }
  }
  if (n.input_size() > 3 && !n.input(3).empty()) return Unsupported(i, "axes");
  bool zero = true;
  for (int64_t p : pads) zero = zero && p == 0;
  if (zero) {
    acts_[n.output(0)] = x;
    return absl::OkStatus();
  }
  // Zeros around H and W, read by one conv or average pool: that op pads.
  const int next = OnlyConsumer(n.output(0));
  const bool spatial_only = x.shape.size() == 4 && pads.size() == 8 && pads[0] == 0 &&
                            pads[1] == 0 && pads[4] == 0 && pads[5] == 0;
  if (spatial_only && (IsOp(next, "Conv") || IsOp(next, "AveragePool")) &&
      node(next).input(0) == n.output(0)) {
    pending_pads_[next] = {pads[2], pads[3], pads[6], pads[7]};
    acts_[n.output(0)] = x;
    return absl::OkStatus();
  }
  return Unsupported(i, "padding not read by a conv or average pool");
}

absl::Status Emitter::EmitReduceMean(int i) {
  // Mean over H and W of NCHW (x.mean([2, 3])) is global average pooling.
  const onnx::NodeProto& n = node(i);
  const Act x = *ActOf(n.input(0));
  std::vector<int64_t> axes = AttrInts(n, "axes");
  if (n.input_size() > 1 && ConstOf(n.input(1)) != nullptr) {
    axes.clear();
    const ConstTensor* c = ConstOf(n.input(1));
    for (int64_t k = 0; k < c->size(); ++k) axes.push_back(SaturatingInt64(c->at(k)));
  }
  for (int64_t& a : axes) {
    if (a < 0) a += static_cast<int64_t>(x.shape.size());
  }
  std::sort(axes.begin(), axes.end());
  if (x.shape.size() != 4 || axes != std::vector<int64_t>{2, 3}) {
    return Unsupported(i, "a mean other than over H and W of NCHW, or layer norm's");
  }
  const TensorId y = AddNode(NodeKind::kGlobalAvgPool2d, {Nd(x)}, {}, n.name());
  Shape out = b_.Shape(y);
  if (AttrInt(n, "keepdims", 1) == 0) out = {x.shape[0], x.shape[1]};
  Bind(n.output(0), y, out);
  return absl::OkStatus();
}

absl::StatusOr<bool> Emitter::TryLayerNormPattern(int i) {
  // mean = ReduceMean(x, -1); d = x - mean; var = ReduceMean(d ^ 2, -1);
  // y = d / sqrt(var + eps) [* gamma + beta]
  const onnx::NodeProto& r1 = node(i);
  const Act* xp = ActOf(r1.input(0));
  if (xp == nullptr) return false;
  const Act x = *xp;
  const int64_t rank = static_cast<int64_t>(x.shape.size());
  auto last_axis_mean = [&](const onnx::NodeProto& r) {
    std::vector<int64_t> axes = AttrInts(r, "axes");
    if (r.input_size() > 1) {
      const ConstTensor* c = ConstOf(r.input(1));
      if (c == nullptr) return false;
      axes.clear();
      for (int64_t k = 0; k < c->size(); ++k) axes.push_back(SaturatingInt64(c->at(k)));
    }
    return AttrInt(r, "keepdims", 1) == 1 && axes.size() == 1 &&
           (axes[0] == -1 || axes[0] == rank - 1);
  };
  if (!last_axis_mean(r1)) return false;
  const int sub = OnlyConsumer(r1.output(0));
  if (!IsOp(sub, "Sub") || node(sub).input(0) != r1.input(0) || node(sub).input(1) != r1.output(0)) {
    return false;
  }
  const std::string& d = node(sub).output(0);
  auto dc = consumers_.find(d);
  if (model_outputs_.count(d) > 0 || dc == consumers_.end() || dc->second.size() != 2) return false;
  int pow = -1, div = -1;
  for (int c : dc->second) {
    if (IsOp(c, "Pow")) pow = c;
    if (IsOp(c, "Div")) div = c;
  }
  if (pow < 0 || div < 0 || node(pow).input(0) != d || node(div).input(0) != d) return false;
  const ConstTensor* two = ConstOf(node(pow).input(1));
  if (two == nullptr || !two->is_scalar() || two->at(0) != 2) return false;
  const int r2 = OnlyConsumer(node(pow).output(0));
  if (!IsOp(r2, "ReduceMean") || !last_axis_mean(node(r2))) return false;
  const int add = OnlyConsumer(node(r2).output(0));
  if (!IsOp(add, "Add")) return false;
  const ConstTensor* eps = ScalarOperand(add, node(r2).output(0));
  if (eps == nullptr) return false;
  const int sqrt = OnlyConsumer(node(add).output(0));
  if (!IsOp(sqrt, "Sqrt") || OnlyConsumer(node(sqrt).output(0)) != div ||
      node(div).input(1) != node(sqrt).output(0)) {
    return false;
  }
  const int64_t dim = x.shape.back();
  std::vector<int> nodes = {i, sub, pow, r2, add, sqrt, div};
  std::string out = node(div).output(0);
  // Optional affine part: * gamma, + beta, each a constant of length dim.
  std::vector<float> gamma(dim, 1.0f), beta(dim, 0.0f);
  auto vector_operand = [&](int node_index, const std::string& skip) -> const ConstTensor* {
    for (const std::string& in : node(node_index).input()) {
      if (in == skip) continue;
      const ConstTensor* c = ConstOf(in);
      if (c != nullptr && c->size() == dim && c->shape.size() <= 1) return c;
    }
    return nullptr;
  };
  bool affine = false;
  const int mul = OnlyConsumer(out);
  if (IsOp(mul, "Mul")) {
    if (const ConstTensor* g = vector_operand(mul, out)) {
      for (int64_t k = 0; k < dim; ++k) gamma[k] = static_cast<float>(g->at(k));
      nodes.push_back(mul);
      out = node(mul).output(0);
      affine = true;
      const int badd = OnlyConsumer(out);
      if (IsOp(badd, "Add")) {
        if (const ConstTensor* bt = vector_operand(badd, out)) {
          for (int64_t k = 0; k < dim; ++k) beta[k] = static_cast<float>(bt->at(k));
          nodes.push_back(badd);
          out = node(badd).output(0);
        }
      }
    }
  }
  const Shape p = b_.Shape(x.primary);
  std::vector<TensorId> inputs = {
      p.size() >= 2 && p.back() == dim ? x.primary : As(x, {NumElements(x.shape) / dim, dim})};
  if (affine) {
    inputs.push_back(WeightOf(absl::StrCat(r1.name(), ".gamma"), ConstTensor::Float({dim}, gamma)));
    inputs.push_back(WeightOf(absl::StrCat(r1.name(), ".beta"), ConstTensor::Float({dim}, beta)));
  }
  NodeAttrs a;
  a.eps = eps->at(0);
  Bind(out, AddNode(NodeKind::kLayerNorm, inputs, a, r1.name()), x.shape);
  for (int k : nodes) done_[k] = true;
  return true;
}

absl::StatusOr<bool> Emitter::TryGeluPattern(int i) {
  // 0.5 * x * (1 + erf(x / sqrt(2))), as PyTorch writes F.gelu out:
  // Div(x, 1.4142) (or Mul(x, 0.7071)) -> Erf -> Add 1 -> Mul x -> Mul 0.5.
  const onnx::NodeProto& first = node(i);
  const Act* xp = ActOf(first.input(0));
  if (xp == nullptr) return false;
  const std::string& x_name = first.input(0);
  const ConstTensor* c = ScalarOperand(i, x_name);
  if (c == nullptr) return false;
  const bool scaled = first.op_type() == "Div" ? Near(c->at(0), std::sqrt(2.0))
                                               : Near(c->at(0), std::sqrt(0.5));
  if (!scaled) return false;
  const int erf = OnlyConsumer(first.output(0));
  if (!IsOp(erf, "Erf")) return false;
  const int add = OnlyConsumer(node(erf).output(0));
  if (!IsOp(add, "Add")) return false;
  const ConstTensor* one = ScalarOperand(add, node(erf).output(0));
  if (one == nullptr || one->at(0) != 1) return false;
  const int mul = OnlyConsumer(node(add).output(0));
  if (!IsOp(mul, "Mul")) return false;
  const onnx::NodeProto& m = node(mul);
  if (!((m.input(0) == x_name && m.input(1) == node(add).output(0)) ||
        (m.input(1) == x_name && m.input(0) == node(add).output(0)))) {
    return false;
  }
  const int half = OnlyConsumer(m.output(0));
  if (!IsOp(half, "Mul")) return false;
  const ConstTensor* h = ScalarOperand(half, m.output(0));
  if (h == nullptr || h->at(0) != 0.5) return false;
  const Act x = *xp;
  Bind(node(half).output(0), AddNode(NodeKind::kGelu, {x.primary}, {}, first.name()), x.shape);
  for (int k : {i, erf, add, mul, half}) done_[k] = true;
  return true;
}

}  // namespace pruner::onnx_import
