// GraphBuilder: writes a Graph the way a network definition reads.
//
//   GraphBuilder b("toy");
//   TensorId x = b.Input("data", {1, 3, 224, 224});
//   x = b.Relu(b.BiasAdd(b.Conv2d(x, 64, 7, /*stride=*/2, /*pad=*/3)));
//   x = b.MaxPool2d(x, 3, 2, 1);
//   absl::StatusOr<Graph> g = std::move(b).Build();
//
// Layer helpers (Conv2d, Dense, BiasAdd, LayerNorm) create their weight
// tensors themselves, named after the node ("<node>.weight", ".bias",
// ".gamma", ".beta"); AddNode takes explicit inputs (the entry point for an
// importer). Shapes are inferred as nodes are added. The first error is kept
// (later calls do nothing and return -1) and Build() returns it, so a
// network definition needs no error handling per line.
#ifndef PRUNER_COMMON_GRAPH_GRAPH_BUILDER_H_
#define PRUNER_COMMON_GRAPH_GRAPH_BUILDER_H_

#include <cstdint>
#include <map>
#include <memory>
#include <string>
#include <vector>

#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "common/graph/graph.h"

namespace pruner {

class GraphBuilder {
 public:
  explicit GraphBuilder(std::string graph_name = "graph");

  // Integer dtypes (int32, int64) are for indices: such a tensor may only be
  // a gather's indices, or reshaped on the way there.
  TensorId Input(std::string name, std::vector<int64_t> shape, DType dtype = DType::kFloat32);
  // `data`, when given, holds the weight's values row-major (an imported
  // model's initializer); its size must match the shape.
  TensorId Weight(std::string name, std::vector<int64_t> shape,
                  std::shared_ptr<const std::vector<float>> data = nullptr,
                  DType dtype = DType::kFloat32);
  // A node of any kind over explicit inputs. An empty name gets
  // "<scope>.<kind>_<n>" (n counts nodes of that kind in the scope). Every
  // input is float32 except a gather's indices (int32 or int64) and a
  // reshape's input (whose dtype its output keeps).
  TensorId AddNode(NodeKind kind, std::vector<TensorId> inputs, NodeAttrs attrs = {},
                   std::string name = "");

  // ---- Layers that create their own weights.
  // Square kernel, symmetric padding; weight [out_channels, C/groups, k, k].
  TensorId Conv2d(TensorId x, int64_t out_channels, int64_t kernel, int64_t stride = 1,
                  int64_t pad = 0, int64_t groups = 1);
  // x [M, K] -> [M, units]; weight [units, K].
  TensorId Dense(TensorId x, int64_t units);
  // bias [x.shape[axis]]; axis 1 is the channel of NCHW and the feature of [M, N].
  TensorId BiasAdd(TensorId x, int axis = 1);
  // Affine layer norm over the last axis (gamma and beta created).
  TensorId LayerNorm(TensorId x, double eps = 1e-5);

  // ---- Ops without weights.
  TensorId BatchMatmul(TensorId a, TensorId b, bool transpose_b = false);
  TensorId Relu(TensorId x) { return AddNode(NodeKind::kRelu, {x}); }
  TensorId Relu6(TensorId x) { return AddNode(NodeKind::kRelu6, {x}); }
  TensorId Gelu(TensorId x) { return AddNode(NodeKind::kGelu, {x}); }
  TensorId Add(TensorId a, TensorId b) { return AddNode(NodeKind::kAdd, {a, b}); }
  TensorId Multiply(TensorId a, TensorId b) { return AddNode(NodeKind::kMultiply, {a, b}); }
  TensorId Subtract(TensorId a, TensorId b) { return AddNode(NodeKind::kSubtract, {a, b}); }
  TensorId Divide(TensorId a, TensorId b) { return AddNode(NodeKind::kDivide, {a, b}); }
  TensorId Scale(TensorId x, double scalar);
  TensorId MaxPool2d(TensorId x, int64_t kernel, int64_t stride, int64_t pad = 0);
  TensorId AvgPool2d(TensorId x, int64_t kernel, int64_t stride, int64_t pad = 0);
  TensorId GlobalAvgPool2d(TensorId x) { return AddNode(NodeKind::kGlobalAvgPool2d, {x}); }
  TensorId Softmax(TensorId x);  // over the last axis
  TensorId Reshape(TensorId x, std::vector<int64_t> shape);
  TensorId Transpose(TensorId x, std::vector<int> perm);

  // Marks a tensor the network returns even though later nodes read it
  // (unread intermediates are outputs anyway).
  void MarkOutput(TensorId x);

  // Names nodes created while the returned guard lives "<prefix>.<kind>_<n>";
  // scopes nest ("layer1.0.conv2d_1").
  class ScopeGuard {
   public:
    ~ScopeGuard();
    ScopeGuard(const ScopeGuard&) = delete;
    ScopeGuard& operator=(const ScopeGuard&) = delete;

   private:
    friend class GraphBuilder;
    ScopeGuard(GraphBuilder* b, size_t saved) : b_(b), saved_(saved) {}
    GraphBuilder* b_;
    size_t saved_;
  };
  [[nodiscard]] ScopeGuard Scope(const std::string& name);

  // Shape of a tensor built so far (empty for -1 after an error).
  const std::vector<int64_t>& Shape(TensorId x) const;
  // Dtype of a tensor built so far (float32 for -1 after an error).
  DType dtype(TensorId x) const {
    return Valid(x) ? graph_.tensors_[x].dtype : DType::kFloat32;
  }
  const absl::Status& status() const { return status_; }

  absl::StatusOr<Graph> Build() &&;

 private:
  TensorId NewTensor(std::string name, std::vector<int64_t> shape, TensorKind kind,
                     DType dtype = DType::kFloat32);
  absl::Status CheckDType(DType dtype, const std::string& name) const;
  bool Valid(TensorId x) const {
    return x >= 0 && x < static_cast<TensorId>(graph_.tensors_.size());
  }
  std::string NodeName(NodeKind kind);
  // Name of the node AddNode would create next for `kind`, so that helpers
  // can name weights after it before creating the node.
  std::string PeekNodeName(NodeKind kind) const;
  void Fail(absl::Status status);
  absl::Status CheckShape(const char* what, const std::string& name,
                          const std::vector<int64_t>& shape) const;

  Graph graph_;
  std::vector<TensorId> marked_outputs_;
  std::string scope_;
  std::map<std::string, int> name_counts_;  // "<scope>.<kind>" -> nodes so far
  absl::Status status_;
};

}  // namespace pruner

#endif  // PRUNER_COMMON_GRAPH_GRAPH_BUILDER_H_
