// The ONNX frontend: a model exported by PyTorch (torch.onnx.export, opsets
// 11-17) becomes a Graph with the model's real weights, beside the built-in
// networks of networks.h.
//
// Import runs in three passes over the model, read with Debian's ONNX
// library (its protobuf classes, checker and shape inference):
//   1. check and shape: the ONNX checker, symbolic input dimensions bound
//      (OnnxImportOptions::dims), ONNX shape inference for every value;
//   2. constant folding (onnx_const.h): nodes whose inputs are all known at
//      import (initializers, Constant, the static shape of an activation)
//      are evaluated, so shape arithmetic never reaches the graph;
//   3. emission: the remaining nodes become graph nodes. Patterns PyTorch
//      writes out op by op are recognised and emitted as one node: batch
//      norm after a conv folds into the conv's weights and bias, the
//      decomposed layer norm (ReduceMean, Sub, Pow, ...) becomes layer_norm,
//      erf-GELU becomes gelu, a zero Pad before a conv or average pool joins
//      its padding.
// Reshape, Flatten, Squeeze and Unsqueeze move no data: they are recorded
// lazily and a reshape view is emitted only where a consumer needs the new
// shape, so MatMul + bias + residual on [batch, seq, hidden] tensors stays
// one fused dense group over [batch * seq, hidden].
//
// Errors name what is wrong: a file that is not ONNX or is truncated, an
// opset outside 11-17, symbolic dimensions left unbound (by name), and every
// unsupported operator in the model, by type with its count and node names.
#ifndef PRUNER_COMMON_GRAPH_ONNX_IMPORT_H_
#define PRUNER_COMMON_GRAPH_ONNX_IMPORT_H_

#include <cstdint>
#include <map>
#include <string>
#include <vector>

#include "absl/status/statusor.h"
#include "common/graph/graph.h"

namespace pruner {

inline constexpr int kMinOnnxOpset = 11;
inline constexpr int kMaxOnnxOpset = 17;

struct OnnxImportOptions {
  // Values of symbolic input dimensions (dim_param), by name: what
  // `--shape NAME=VALUE` sets.
  std::map<std::string, int64_t> dims;
  // Run the convolutions on NHWC tensors (channels_last.h): what
  // `--layout nhwc` sets. Inputs and outputs stay as the model declares them.
  bool channels_last = false;
  // With channels_last: 3x3 stride-1 convolutions as Winograd F(m x m, 3x3)
  // where it pays (ChannelsLastOptions::winograd): what `--layout
  // nhwc-winograd` sets.
  bool winograd = false;
  // With winograd: 2 or 4 uses only F(2x2, 3x3) or F(4x4, 3x3), where it
  // pays (`--layout nhwc-winograd2`, `nhwc-winograd4`); 0 lets
  // ChooseWinogradTile pick per convolution.
  int64_t winograd_tile = 0;
};

struct OnnxModel {
  Graph graph;
  int opset = 0;
  std::string producer;  // e.g. "pytorch 1.13.1"
  // The model's inputs and outputs in its own order, as graph tensors.
  std::vector<TensorId> inputs;
  std::vector<TensorId> outputs;
  // Their ONNX names (a graph tensor is named after the node that computes it).
  std::vector<std::string> input_names;
  std::vector<std::string> output_names;
};

// Reads and imports a .onnx file; the graph is named after the file's stem.
absl::StatusOr<OnnxModel> ImportOnnxFile(const std::string& path,
                                         const OnnxImportOptions& options = {});

// Imports a serialized ModelProto.
absl::StatusOr<OnnxModel> ImportOnnxBytes(const std::string& bytes, const std::string& name,
                                          const OnnxImportOptions& options = {});

// Parses "NAME=VALUE" (a --shape flag) into options->dims.
absl::Status ParseShapeBinding(const std::string& text, OnnxImportOptions* options);

// The layout the CLI's --layout takes when not given: NHWC, faster on this
// project's CPUs for every convolution measured, with Winograd for the 3x3
// stride-1 convolutions, faster again after tuning (bench/README.md, "Your
// model against PyTorch").
inline constexpr const char* kDefaultModelLayout = "nhwc-winograd";

// What --layout says in every command that reads a model.
inline constexpr const char* kModelLayoutHelp =
    "with --model: nchw (as exported), nhwc (the convolutions on channels-last tensors, faster "
    "on CPUs for depthwise and 1x1 convolutions) or nhwc-winograd (nhwc, with 3x3 stride-1 "
    "convolutions as Winograd F(4x4,3x3) or F(2x2,3x3), whichever pays per convolution; "
    "nhwc-winograd2 and nhwc-winograd4 use only one, where it pays); tune and compile with the "
    "same";

// Import options from every --shape flag given and the --layout flag
// ("nchw": as exported; "nhwc": channels_last; "nhwc-winograd": channels_last
// and winograd; "nhwc-winograd2"/"4": with that tile).
absl::StatusOr<OnnxImportOptions> ImportOptionsFromFlags(const std::vector<std::string>& shapes,
                                                         const std::string& layout);

}  // namespace pruner

#endif  // PRUNER_COMMON_GRAPH_ONNX_IMPORT_H_
