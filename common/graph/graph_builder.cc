#include "common/graph/graph_builder.h"

#include <utility>

#include "absl/strings/str_cat.h"
#include "common/graph/shape_inference.h"
#include "common/base/absl_compat.h"
#include "common/ir/tensor.h"

namespace pruner {
namespace {

const std::vector<int64_t> kNoShape;

}  // namespace

GraphBuilder::GraphBuilder(std::string graph_name) { graph_.name_ = std::move(graph_name); }

void GraphBuilder::Fail(absl::Status status) {
  if (status_.ok()) status_ = std::move(status);
}

TensorId GraphBuilder::NewTensor(std::string name, std::vector<int64_t> shape, TensorKind kind,
                                 DType dtype) {
  for (const GraphTensor& t : graph_.tensors_) {
    if (t.name == name) {
      Fail(absl::InvalidArgumentError(
          absl::StrCat("graph '", graph_.name_, "': tensor name '", name, "' is used twice")));
      return -1;
    }
  }
  GraphTensor t;
  t.name = std::move(name);
  t.shape = std::move(shape);
  t.kind = kind;
  t.dtype = dtype;
  graph_.tensors_.push_back(std::move(t));
  return static_cast<TensorId>(graph_.tensors_.size()) - 1;
}

absl::Status GraphBuilder::CheckShape(const char* what, const std::string& name,
                                      const std::vector<int64_t>& shape) const {
  bool ok = !shape.empty();
  for (int64_t d : shape) ok = ok && d > 0;
  if (ok) return absl::OkStatus();
  return absl::InvalidArgumentError(absl::StrCat(what, " '", name, "': shape ",
                                                 ShapeToString(shape),
                                                 " must have rank >= 1 and positive extents"));
}

absl::Status GraphBuilder::CheckDType(DType dtype, const std::string& name) const {
  if (dtype == DType::kFloat32 || dtype == DType::kInt32 || dtype == DType::kInt64) {
    return absl::OkStatus();
  }
  return absl::InvalidArgumentError(absl::StrCat("tensor '", name, "' has dtype ",
                                                 ToAbsl(DTypeName(dtype)),
                                                 "; graphs hold float32 and integer indices"));
}

TensorId GraphBuilder::Input(std::string name, std::vector<int64_t> shape, DType dtype) {
  if (!status_.ok()) return -1;
  if (absl::Status s = CheckShape("input", name, shape); !s.ok()) {
    Fail(std::move(s));
    return -1;
  }
  if (absl::Status s = CheckDType(dtype, name); !s.ok()) {
    Fail(std::move(s));
    return -1;
  }
  return NewTensor(std::move(name), std::move(shape), TensorKind::kInput, dtype);
}

TensorId GraphBuilder::Weight(std::string name, std::vector<int64_t> shape,
                              std::shared_ptr<const std::vector<float>> data, DType dtype) {
  if (!status_.ok()) return -1;
  if (absl::Status s = CheckShape("weight", name, shape); !s.ok()) {
    Fail(std::move(s));
    return -1;
  }
  if (absl::Status s = CheckDType(dtype, name); !s.ok()) {
    Fail(std::move(s));
    return -1;
  }
  if (data != nullptr && static_cast<int64_t>(data->size()) != NumElements(shape)) {
    Fail(absl::InvalidArgumentError(absl::StrCat("weight '", name, "' of shape ",
                                                 ShapeToString(shape), " has ", data->size(),
                                                 " values")));
    return -1;
  }
  const TensorId id = NewTensor(std::move(name), std::move(shape), TensorKind::kWeight, dtype);
  if (id < 0) return -1;
  graph_.tensors_[id].data = std::move(data);
  return id;
}

std::string GraphBuilder::PeekNodeName(NodeKind kind) const {
  const std::string key =
      absl::StrCat(scope_, scope_.empty() ? "" : ".", ToAbsl(NodeKindName(kind)));
  auto it = name_counts_.find(key);
  return absl::StrCat(key, "_", it == name_counts_.end() ? 0 : it->second);
}

std::string GraphBuilder::NodeName(NodeKind kind) {
  std::string name = PeekNodeName(kind);
  ++name_counts_[absl::StrCat(scope_, scope_.empty() ? "" : ".", ToAbsl(NodeKindName(kind)))];
  return name;
}

TensorId GraphBuilder::AddNode(NodeKind kind, std::vector<TensorId> inputs, NodeAttrs attrs,
                               std::string name) {
  if (!status_.ok()) return -1;
  if (name.empty()) name = NodeName(kind);
  std::vector<std::vector<int64_t>> shapes;
  for (size_t i = 0; i < inputs.size(); ++i) {
    if (!Valid(inputs[i])) {
      Fail(absl::InvalidArgumentError(absl::StrCat(ToAbsl(NodeKindName(kind)), " '", name,
                                                   "': input ", i, " is not a tensor of graph '",
                                                   graph_.name_, "'")));
      return -1;
    }
    shapes.push_back(graph_.tensors_[inputs[i]].shape);
    const DType dtype = graph_.tensors_[inputs[i]].dtype;
    const bool may_be_int = kind == NodeKind::kReshape || (kind == NodeKind::kGather && i == 1);
    const bool must_be_int = kind == NodeKind::kGather && i == 1;
    if (must_be_int ? !IsInt(dtype) : (dtype != DType::kFloat32 && !may_be_int)) {
      Fail(absl::InvalidArgumentError(absl::StrCat(
          ToAbsl(NodeKindName(kind)), " '", name, "': input ", i, " '",
          graph_.tensors_[inputs[i]].name, "' is ", ToAbsl(DTypeName(dtype)), "; ",
          must_be_int ? "gather indices must be int32 or int64"
                      : "integer tensors may only be gather indices")));
      return -1;
    }
  }
  absl::StatusOr<std::vector<int64_t>> shape = InferShape(kind, name, attrs, shapes);
  if (!shape.ok()) {
    Fail(shape.status());
    return -1;
  }
  // Keep the resolved shape so that later passes never see a -1.
  if (kind == NodeKind::kReshape) attrs.shape = *shape;
  const DType out_dtype =
      kind == NodeKind::kReshape ? graph_.tensors_[inputs[0]].dtype : DType::kFloat32;
  const TensorId out = NewTensor(name, *std::move(shape), TensorKind::kIntermediate, out_dtype);
  if (out < 0) return -1;
  GraphNode node;
  node.id = static_cast<int>(graph_.nodes_.size());
  node.name = std::move(name);
  node.kind = kind;
  node.inputs = std::move(inputs);
  node.output = out;
  node.attrs = std::move(attrs);
  graph_.tensors_[out].producer = node.id;
  graph_.nodes_.push_back(std::move(node));
  return out;
}

TensorId GraphBuilder::Conv2d(TensorId x, int64_t out_channels, int64_t kernel, int64_t stride,
                              int64_t pad, int64_t groups) {
  if (!status_.ok() || !Valid(x)) return AddNode(NodeKind::kConv2d, {x});
  const std::string name = PeekNodeName(NodeKind::kConv2d);
  const int64_t channels = Shape(x).size() == 4 ? Shape(x)[1] : 0;
  const int64_t per_group = groups > 0 && channels % groups == 0 ? channels / groups : channels;
  const TensorId w =
      Weight(absl::StrCat(name, ".weight"), {out_channels, per_group, kernel, kernel});
  NodeAttrs a;
  a.stride_h = a.stride_w = stride;
  a.pad_h = a.pad_w = pad;
  a.groups = groups;
  return AddNode(NodeKind::kConv2d, {x, w}, a);
}

TensorId GraphBuilder::Dense(TensorId x, int64_t units) {
  if (!status_.ok() || !Valid(x)) return AddNode(NodeKind::kDense, {x});
  const std::string name = PeekNodeName(NodeKind::kDense);
  const TensorId w = Weight(absl::StrCat(name, ".weight"), {units, Shape(x).back()});
  return AddNode(NodeKind::kDense, {x, w});
}

TensorId GraphBuilder::BiasAdd(TensorId x, int axis) {
  if (!status_.ok() || !Valid(x)) return AddNode(NodeKind::kBiasAdd, {x});
  const std::vector<int64_t>& shape = Shape(x);
  const int64_t length = axis >= 0 && axis < static_cast<int>(shape.size()) ? shape[axis] : 1;
  const TensorId bias = Weight(absl::StrCat(PeekNodeName(NodeKind::kBiasAdd), ".bias"), {length});
  NodeAttrs a;
  a.axis = axis;
  return AddNode(NodeKind::kBiasAdd, {x, bias}, a);
}

TensorId GraphBuilder::LayerNorm(TensorId x, double eps) {
  if (!status_.ok() || !Valid(x)) return AddNode(NodeKind::kLayerNorm, {x});
  const std::string name = PeekNodeName(NodeKind::kLayerNorm);
  const int64_t d = Shape(x).back();
  const TensorId gamma = Weight(absl::StrCat(name, ".gamma"), {d});
  const TensorId beta = Weight(absl::StrCat(name, ".beta"), {d});
  NodeAttrs a;
  a.eps = eps;
  return AddNode(NodeKind::kLayerNorm, {x, gamma, beta}, a);
}

TensorId GraphBuilder::BatchMatmul(TensorId a, TensorId b, bool transpose_b) {
  NodeAttrs attrs;
  attrs.transpose_b = transpose_b;
  return AddNode(NodeKind::kBatchMatmul, {a, b}, attrs);
}

TensorId GraphBuilder::Scale(TensorId x, double scalar) {
  NodeAttrs a;
  a.scalar = scalar;
  return AddNode(NodeKind::kScale, {x}, a);
}

TensorId GraphBuilder::MaxPool2d(TensorId x, int64_t kernel, int64_t stride, int64_t pad) {
  NodeAttrs a;
  a.kernel_h = a.kernel_w = kernel;
  a.stride_h = a.stride_w = stride;
  a.pad_h = a.pad_w = pad;
  return AddNode(NodeKind::kMaxPool2d, {x}, a);
}

TensorId GraphBuilder::AvgPool2d(TensorId x, int64_t kernel, int64_t stride, int64_t pad) {
  NodeAttrs a;
  a.kernel_h = a.kernel_w = kernel;
  a.stride_h = a.stride_w = stride;
  a.pad_h = a.pad_w = pad;
  return AddNode(NodeKind::kAvgPool2d, {x}, a);
}

TensorId GraphBuilder::Softmax(TensorId x) {
  NodeAttrs a;
  a.axis = -1;
  return AddNode(NodeKind::kSoftmax, {x}, a);
}

TensorId GraphBuilder::Reshape(TensorId x, std::vector<int64_t> shape) {
  NodeAttrs a;
  a.shape = std::move(shape);
  return AddNode(NodeKind::kReshape, {x}, a);
}

TensorId GraphBuilder::Transpose(TensorId x, std::vector<int> perm) {
  NodeAttrs a;
  a.perm = std::move(perm);
  return AddNode(NodeKind::kTranspose, {x}, a);
}

void GraphBuilder::MarkOutput(TensorId x) {
  if (!status_.ok()) return;
  if (!Valid(x)) {
    Fail(absl::InvalidArgumentError(
        absl::StrCat("graph '", graph_.name_, "': MarkOutput of an invalid tensor")));
    return;
  }
  marked_outputs_.push_back(x);
}

GraphBuilder::ScopeGuard GraphBuilder::Scope(const std::string& name) {
  const size_t saved = scope_.size();
  absl::StrAppend(&scope_, scope_.empty() ? "" : ".", name);
  return ScopeGuard(this, saved);
}

GraphBuilder::ScopeGuard::~ScopeGuard() { b_->scope_.resize(saved_); }

const std::vector<int64_t>& GraphBuilder::Shape(TensorId x) const {
  return Valid(x) ? graph_.tensors_[x].shape : kNoShape;
}

absl::StatusOr<Graph> GraphBuilder::Build() && {
  if (!status_.ok()) return status_;
  if (graph_.nodes_.empty()) {
    return absl::InvalidArgumentError(absl::StrCat("graph '", graph_.name_, "' has no nodes"));
  }
  graph_.Finish(marked_outputs_);
  return std::move(graph_);
}

}  // namespace pruner
