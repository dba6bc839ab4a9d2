// Pass 3 of the ONNX import (onnx_import.h): turns the nodes left after
// constant folding into graph nodes. Internal to the ONNX frontend; the only
// file besides onnx_import.cc that sees ONNX's protobuf classes.
#ifndef PRUNER_COMMON_GRAPH_ONNX_EMITTER_H_
#define PRUNER_COMMON_GRAPH_ONNX_EMITTER_H_

#include <map>
#include <set>
#include <string>
#include <vector>

#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "common/graph/graph_builder.h"
#include "common/graph/onnx_const.h"
#include "common/graph/onnx_import.h"
#include "onnx/onnx_pb.h"

namespace pruner::onnx_import {

using Shape = std::vector<int64_t>;

// Attribute readers over a NodeProto, with defaults for absent attributes.
int64_t AttrInt(const onnx::NodeProto& node, const std::string& name, int64_t fallback);
float AttrFloat(const onnx::NodeProto& node, const std::string& name, float fallback);
std::string AttrString(const onnx::NodeProto& node, const std::string& name);
std::vector<int64_t> AttrInts(const onnx::NodeProto& node, const std::string& name);
bool HasAttr(const onnx::NodeProto& node, const std::string& name);

// An initializer or tensor attribute as a ConstTensor; `what` names it in
// errors (truncated data, external data, unsupported types).
absl::StatusOr<ConstTensor> ConstFromProto(const onnx::TensorProto& proto, const std::string& what);

// Op types the importer handles on activations or folds on constants.
bool IsSupportedOp(const std::string& op_type);

// What the earlier passes know about the model.
struct ImportState {
  const onnx::GraphProto* graph = nullptr;
  int opset = 0;
  std::map<std::string, ConstTensor> consts;  // initializers and folded values
  std::map<std::string, Shape> shapes;        // static shapes from ONNX shape inference
  std::set<int> folded;                       // node indices evaluated in pass 2
};

class Emitter {
 public:
  Emitter(const ImportState& state, std::string graph_name);
  // Emits every node and marks the model's outputs. Collects all failures:
  // unsupported operators (by type, with node names) and other per-node
  // errors, and reports them together.
  absl::StatusOr<OnnxModel> Run() &&;

 private:
  // An activation: `primary` holds its values row-major; `shape` is its ONNX
  // shape, which may differ from the primary tensor's (lazy reshapes).
  struct Act {
    TensorId primary = -1;
    Shape shape;
  };

  absl::Status EmitNode(int index);
  absl::Status EmitConv(int index);
  absl::Status EmitPool(int index);
  absl::Status EmitBatchNorm(int index);
  absl::Status EmitClip(int index);
  absl::Status EmitBinary(int index);
  absl::Status EmitMatMul(int index);
  absl::Status EmitGemm(int index);
  absl::Status EmitSoftmax(int index);
  absl::Status EmitLayerNorm(int index);
  absl::Status EmitPad(int index);
  absl::Status EmitReduceMean(int index);
  absl::Status EmitGather(int index);
  absl::Status EmitConcat(int index);
  absl::Status EmitSlice(int index);
  // A graph slice of `x` on one axis (no node when it is the whole axis).
  Act SliceAct(const Act& x, int axis, int64_t begin, int64_t end, const std::string& name);
  // Recognised multi-node patterns; true when emitted (nodes marked done).
  absl::StatusOr<bool> TryLayerNormPattern(int index);
  absl::StatusOr<bool> TryGeluPattern(int index);

  const onnx::NodeProto& node(int i) const { return state_.graph->node(i); }
  const ConstTensor* ConstOf(const std::string& name) const;
  const Act* ActOf(const std::string& name) const;
  // The only node reading `value` (which is no model output), else -1.
  int OnlyConsumer(const std::string& value) const;
  bool IsOp(int index, const char* op) const { return index >= 0 && node(index).op_type() == op; }
  // A scalar constant input of node `index` other than `skip`, or nullptr.
  const ConstTensor* ScalarOperand(int index, const std::string& skip) const;

  // The activation as a tensor of `shape` (a reshape view when it differs
  // from the primary's, created once per shape).
  TensorId As(const Act& act, const Shape& shape);
  TensorId Nd(const Act& act) { return As(act, act.shape); }
  // A graph weight holding `value` (cached by `name`); integer constants
  // become int64 weights when `as_indices`, float ones otherwise.
  TensorId WeightOf(const std::string& name, const ConstTensor& value, bool as_indices = false);
  TensorId AddNode(NodeKind kind, std::vector<TensorId> inputs, NodeAttrs attrs,
                   const std::string& name);
  void Bind(const std::string& value, TensorId primary, Shape shape);
  absl::Status Unsupported(int index, const std::string& why) const;

  const ImportState& state_;
  GraphBuilder b_;
  std::map<std::string, Act> acts_;
  std::map<std::string, std::vector<int>> consumers_;
  std::set<std::string> model_outputs_;
  std::vector<bool> done_;
  std::map<int, std::vector<int64_t>> pending_pads_;  // node -> [top, left, bottom, right]
  std::map<std::pair<TensorId, Shape>, TensorId> views_;
  std::map<std::string, TensorId> weights_;
  std::map<std::string, int> names_used_;
};

}  // namespace pruner::onnx_import

#endif  // PRUNER_COMMON_GRAPH_ONNX_EMITTER_H_
