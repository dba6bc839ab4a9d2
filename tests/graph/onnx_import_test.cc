// The ONNX frontend against PyTorch: models exported by torch.onnx.export
// (scripts/export_models.py) are imported, run by the reference executor
// with their real weights, and compared with the outputs PyTorch computed.
#include "common/graph/onnx_import.h"

#include <fstream>
#include <functional>
#include <string>

#include "common/graph/graph_reference.h"
#include "common/graph/tasks.h"
#include "common/ir/npy.h"
#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "onnx/onnx_pb.h"

namespace pruner {
namespace {

using ::testing::HasSubstr;

std::string ModelPath(const std::string& name, const std::string& suffix) {
  return std::string(PRUNER_TEST_MODELS_DIR) + "/" + name + suffix;
}

std::string ReadFile(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  return std::string(std::istreambuf_iterator<char>(in), {});
}

std::map<NodeKind, int> KindCounts(const Graph& g) {
  std::map<NodeKind, int> counts;
  for (const GraphNode& n : g.nodes()) ++counts[n.kind];
  return counts;
}

// Imports `name`, runs it node by node and fused, and compares both with
// PyTorch's output. Float32 through different summation orders: 1e-4
// relative plus 1e-4 absolute on outputs of magnitude ~1.
OnnxModel ImportAndCompare(const std::string& name) {
  absl::StatusOr<OnnxModel> model = ImportOnnxFile(ModelPath(name, ".onnx"));
  EXPECT_TRUE(model.ok()) << model.status();
  if (!model.ok()) return {};
  absl::StatusOr<Tensor> input = ReadNpy(ModelPath(name, ".input.npy"));
  absl::StatusOr<Tensor> want = ReadNpy(ModelPath(name, ".output.npy"));
  EXPECT_TRUE(input.ok() && want.ok());
  EXPECT_EQ(model->inputs.size(), 1u);
  EXPECT_EQ(model->outputs.size(), 1u);
  if (!input.ok() || !want.ok() || model->inputs.size() != 1 || model->outputs.size() != 1) {
    return *std::move(model);
  }
  absl::StatusOr<std::map<TensorId, Tensor>> feeds =
      ModelFeeds(model->graph, {{model->inputs[0], *input}});
  EXPECT_TRUE(feeds.ok()) << feeds.status();
  for (GraphRunMode mode : {GraphRunMode::kPerNode, GraphRunMode::kFused}) {
    absl::StatusOr<std::map<TensorId, Tensor>> values = RunGraph(model->graph, *feeds, mode);
    EXPECT_TRUE(values.ok()) << values.status();
    if (!values.ok()) continue;
    const Tensor& got = values->at(model->outputs[0]);
    EXPECT_TRUE(CheckAllClose(got, *want, 1e-4, 1e-4).ok())
        << name << (mode == GraphRunMode::kFused ? " fused: " : " per node: ")
        << CheckAllClose(got, *want, 1e-4, 1e-4);
  }
  return *std::move(model);
}

TEST(OnnxImportTest, ConvNetMatchesPyTorch) {
  const OnnxModel m = ImportAndCompare("convnet");
  EXPECT_EQ(m.opset, 13);
  EXPECT_THAT(m.producer, HasSubstr("pytorch"));
  // Batch norm folded into the 9 convs, ReLU6 from Clip(0, 6), the zero Pad
  // before the average pool absorbed, Gemm as dense + bias.
  std::map<NodeKind, int> kinds = KindCounts(m.graph);
  EXPECT_EQ(kinds[NodeKind::kConv2d], 9);
  EXPECT_EQ(kinds[NodeKind::kRelu6], 2);
  EXPECT_EQ(kinds[NodeKind::kDense], 1);
  EXPECT_EQ(kinds[NodeKind::kAvgPool2d], 1);
  EXPECT_EQ(kinds[NodeKind::kGlobalAvgPool2d], 1);
  // Weights carry the model's values.
  for (const GraphTensor& t : m.graph.tensors()) {
    if (t.kind == TensorKind::kWeight) {
      ASSERT_NE(t.data, nullptr) << t.name;
      EXPECT_EQ(static_cast<int64_t>(t.data->size()), NumElements(t.shape)) << t.name;
    }
  }
  // Tasks: the depthwise conv is among them, and every task has a reduction.
  absl::StatusOr<std::vector<GraphTask>> tasks = ExtractTasks(m.graph);
  ASSERT_TRUE(tasks.ok()) << tasks.status();
  bool depthwise = false;
  for (const GraphTask& t : *tasks) depthwise = depthwise || t.name.find("depthwise") != std::string::npos
                                                || t.dag->ToString().find("depthwise") != std::string::npos;
  EXPECT_TRUE(depthwise);
}

TEST(OnnxImportTest, EncoderMatchesPyTorchWithDecomposedLayerNormAndGelu) {
  const OnnxModel m = ImportAndCompare("encoder");
  EXPECT_EQ(m.opset, 14);
  std::map<NodeKind, int> kinds = KindCounts(m.graph);
  // Opset 14 writes layer norm and GELU out op by op; both are recognised.
  EXPECT_EQ(kinds[NodeKind::kLayerNorm], 2);
  EXPECT_EQ(kinds[NodeKind::kGelu], 1);
  EXPECT_EQ(kinds[NodeKind::kErf], 0);
  EXPECT_EQ(kinds[NodeKind::kDense], 6);
  EXPECT_EQ(kinds[NodeKind::kBatchMatmul], 2);
  EXPECT_EQ(kinds[NodeKind::kSoftmax], 1);
  // Dense layers run on [batch * seq, hidden], so bias, GELU and the
  // residual add fuse into them.
  absl::StatusOr<std::vector<GraphTask>> tasks = ExtractTasks(m.graph);
  ASSERT_TRUE(tasks.ok()) << tasks.status();
  std::vector<std::string> names;
  for (const GraphTask& t : *tasks) names.push_back(t.name);
  EXPECT_THAT(names, testing::Contains(HasSubstr("dense_bias_gelu")));
  EXPECT_THAT(names, testing::Contains(HasSubstr("dense_bias_add")));
}

TEST(OnnxImportTest, EncoderAtOpset17MatchesPyTorch) {
  const OnnxModel m = ImportAndCompare("encoder_opset17");
  EXPECT_EQ(m.opset, 17);
  EXPECT_EQ(KindCounts(m.graph)[NodeKind::kLayerNorm], 2);
}

TEST(OnnxImportTest, BertFromTokenIdsMatchesPyTorch) {
  const OnnxModel m = ImportAndCompare("bert");
  // The token ids stay int64 and feed the word embedding's gather; the
  // position and token-type lookups are constants, folded at import; the
  // pooler's x[:, 0] is a slice.
  ASSERT_EQ(m.inputs.size(), 1u);
  EXPECT_EQ(m.graph.tensor(m.inputs[0]).dtype, DType::kInt64);
  std::map<NodeKind, int> kinds = KindCounts(m.graph);
  EXPECT_EQ(kinds[NodeKind::kGather], 1);
  EXPECT_EQ(kinds[NodeKind::kSlice], 1);
  EXPECT_EQ(kinds[NodeKind::kTanh], 1);
  EXPECT_EQ(kinds[NodeKind::kLayerNorm], 3);
}

TEST(OnnxImportTest, ConcatAndSliceOfActivationsMatchPyTorch) {
  const OnnxModel m = ImportAndCompare("branches");
  std::map<NodeKind, int> kinds = KindCounts(m.graph);
  EXPECT_EQ(kinds[NodeKind::kConcat], 3);
  EXPECT_EQ(kinds[NodeKind::kSlice], 4);
  // Data movement is never a task: the three convs are.
  absl::StatusOr<std::vector<GraphTask>> tasks = ExtractTasks(m.graph);
  ASSERT_TRUE(tasks.ok()) << tasks.status();
  EXPECT_EQ(tasks->size(), 3u);
}

TEST(OnnxImportTest, RefusesFilesThatAreNotOnnx) {
  EXPECT_THAT(ImportOnnxFile("/nonexistent/model.onnx").status().message(),
              HasSubstr("cannot open"));
  EXPECT_THAT(ImportOnnxBytes("", "empty").status().message(), HasSubstr("empty"));
  const absl::Status text = ImportOnnxBytes("this is a text file, not a model\n", "text").status();
  EXPECT_EQ(text.code(), absl::StatusCode::kInvalidArgument);
  EXPECT_THAT(text.message(), HasSubstr("not an ONNX model"));
  // A truncated export: cut in the middle of the weights.
  const std::string bytes = ReadFile(ModelPath("convnet", ".onnx"));
  ASSERT_GT(bytes.size(), 1000u);
  const absl::Status cut = ImportOnnxBytes(bytes.substr(0, bytes.size() / 2), "cut").status();
  EXPECT_EQ(cut.code(), absl::StatusCode::kInvalidArgument);
  EXPECT_THAT(cut.message(), HasSubstr("cut: "));
}

// Sizes a file claims are checked against what it holds before anything is
// allocated: an initializer with 4 x 2^40 dimensions and 16 values, a
// ConstantOfShape of [2^13, 2^13] (a 256 MB "constant"), an input of
// 2^20 x 2^20 x 2^20 elements (tests/fuzz/onnx_import_fuzz.cc found the first
// and the last: a 16 GB reservation, and element counts that overflowed).
// A float tensor's ValueInfo: its name and, when given, its dimensions.
void SetFloatTensor(onnx::ValueInfoProto* v, const std::string& name,
                    const std::vector<int64_t>& dims) {
  v->set_name(name);
  v->mutable_type()->mutable_tensor_type()->set_elem_type(1);
  auto* shape = v->mutable_type()->mutable_tensor_type()->mutable_shape();
  for (int64_t d : dims) shape->add_dim()->set_dim_value(d);
}

void AddNode(onnx::GraphProto* g, const std::string& op, const std::vector<std::string>& inputs,
             const std::string& output) {
  onnx::NodeProto* node = g->add_node();
  node->set_op_type(op);
  for (const std::string& in : inputs) node->add_input(in);
  node->add_output(output);
}

// An opset-13 model from float input x (of `x_dims`) to output y (of
// `y_dims`; none: left to inference), with the nodes `fill` adds.
std::string ModelWith(const std::function<void(onnx::GraphProto*)>& fill,
                      const std::vector<int64_t>& x_dims = {4},
                      const std::vector<int64_t>& y_dims = {}) {
  onnx::ModelProto model;
  model.set_ir_version(8);
  model.add_opset_import()->set_version(13);
  onnx::GraphProto* graph = model.mutable_graph();
  graph->set_name("g");
  SetFloatTensor(graph->add_input(), "x", x_dims);
  fill(graph);
  SetFloatTensor(graph->add_output(), "y", y_dims);
  return model.SerializeAsString();
}

TEST(OnnxImportTest, RefusesSizesTheFileCannotHold) {
  const std::string huge_initializer = ModelWith([](onnx::GraphProto* g) {
    onnx::TensorProto* w = g->add_initializer();
    w->set_name("w");
    w->set_data_type(1);
    w->add_dims(4);
    w->add_dims(int64_t{1} << 40);
    for (int i = 0; i < 16; ++i) w->add_float_data(1.0f);
    AddNode(g, "Add", {"x", "w"}, "y");
  });
  const absl::Status lie = ImportOnnxBytes(huge_initializer, "lie").status();
  EXPECT_EQ(lie.code(), absl::StatusCode::kInvalidArgument);
  EXPECT_THAT(std::string(lie.message()), HasSubstr("only 16 values"));

  const std::string huge_constant = ModelWith([](onnx::GraphProto* g) {
    onnx::TensorProto* shape = g->add_initializer();
    shape->set_name("shape");
    shape->set_data_type(7);
    shape->add_dims(2);
    shape->add_int64_data(int64_t{1} << 13);
    shape->add_int64_data(int64_t{1} << 13);
    AddNode(g, "ConstantOfShape", {"shape"}, "c");
    AddNode(g, "Add", {"x", "c"}, "y");
  });
  const absl::Status big = ImportOnnxBytes(huge_constant, "big").status();
  EXPECT_EQ(big.code(), absl::StatusCode::kInvalidArgument);
  EXPECT_THAT(std::string(big.message()), HasSubstr("elements: not a constant this importer folds"));

  const std::vector<int64_t> cube = {int64_t{1} << 20, int64_t{1} << 20, int64_t{1} << 20};
  const std::string huge_input =
      ModelWith([](onnx::GraphProto* g) { AddNode(g, "Relu", {"x"}, "y"); }, cube, cube);
  const absl::Status input = ImportOnnxBytes(huge_input, "input").status();
  EXPECT_EQ(input.code(), absl::StatusCode::kInvalidArgument);
  EXPECT_THAT(std::string(input.message()), HasSubstr("more than 2^36 elements"));
}

// libonnx's shape inference divides by strides unchecked: a Conv with
// strides [0] (a mutation libFuzzer made of an exported model) died of
// SIGFPE inside it. The window attributes are checked before.
TEST(OnnxImportTest, RefusesZeroStridesBeforeOnnxShapeInference) {
  const std::string bytes =
      ReadFile(std::string(PRUNER_SOURCE_DIR) + "/tests/fuzz/corpus/onnx_import/fpe-zero-window-attribute.onnx");
  ASSERT_FALSE(bytes.empty());
  const absl::Status status = ImportOnnxBytes(bytes, "m").status();
  EXPECT_EQ(status.code(), absl::StatusCode::kInvalidArgument);
  EXPECT_THAT(std::string(status.message()), HasSubstr("strides must be positive, not 0"));
}

// ... and on another mutation it dereferenced null. Inference runs in a
// sandbox child, so whatever it does to a malformed model is an error here.
TEST(OnnxImportTest, ACrashInOnnxShapeInferenceIsAnError) {
  const std::string bytes = ReadFile(std::string(PRUNER_SOURCE_DIR) +
                                     "/tests/fuzz/corpus/onnx_import/segv-in-onnx-shape-inference.onnx");
  ASSERT_FALSE(bytes.empty());
  OnnxImportOptions options;
  options.dims["batch"] = 1;
  const absl::Status status = ImportOnnxBytes(bytes, "m", options).status();
  EXPECT_EQ(status.code(), absl::StatusCode::kInvalidArgument);
  EXPECT_THAT(std::string(status.message()), HasSubstr("ONNX shape inference crashed on this model"));
  EXPECT_THAT(std::string(status.message()), HasSubstr("SIGSEGV"));
}

TEST(OnnxImportTest, ListsEveryUnsupportedOperatorWithItsNodes) {
  const absl::Status s = ImportOnnxFile(ModelPath("unsupported_ops", ".onnx")).status();
  EXPECT_EQ(s.code(), absl::StatusCode::kUnimplemented);
  EXPECT_THAT(s.message(), HasSubstr("unsupported_ops: the model uses 3 node(s) of 2 unsupported"));
  EXPECT_THAT(s.message(), HasSubstr("CumSum x2: /CumSum, /CumSum_1"));
  EXPECT_THAT(s.message(), HasSubstr("Resize x1: /Resize"));
}

TEST(OnnxImportTest, RefusesOpsetsOutOfRange) {
  const absl::Status s = ImportOnnxFile(ModelPath("tiny_opset9", ".onnx")).status();
  EXPECT_EQ(s.code(), absl::StatusCode::kInvalidArgument);
  EXPECT_THAT(s.message(), HasSubstr("opset 9 is outside the supported range 11-17"));
}

TEST(OnnxImportTest, SymbolicDimensionsNeedABinding) {
  const std::string path = ModelPath("tiny_dynamic_batch", ".onnx");
  const absl::Status s = ImportOnnxFile(path).status();
  EXPECT_EQ(s.code(), absl::StatusCode::kInvalidArgument);
  EXPECT_THAT(s.message(), HasSubstr("tiny_dynamic_batch: the model has symbolic input dimensions: batch (input[0])"));
  EXPECT_THAT(s.message(), HasSubstr("--shape NAME=VALUE"));
  OnnxImportOptions options;
  ASSERT_TRUE(ParseShapeBinding("batch=2", &options).ok());
  absl::StatusOr<OnnxModel> m = ImportOnnxFile(path, options);
  ASSERT_TRUE(m.ok()) << m.status();
  EXPECT_EQ(m->graph.tensor(m->inputs[0]).shape, (std::vector<int64_t>{2, 3, 8, 8}));
  EXPECT_EQ(m->graph.tensor(m->outputs[0]).shape, (std::vector<int64_t>{2, 4, 8, 8}));
  EXPECT_EQ(m->output_names, std::vector<std::string>{"output"});
  for (const char* bad : {"batch", "=3", "batch=0", "batch=x"}) {
    EXPECT_FALSE(ParseShapeBinding(bad, &options).ok()) << bad;
  }
}

// The exported convnet's output for its fixed input, run by the reference
// executor on `model`'s graph, equals PyTorch's.
void ExpectConvnetMatchesPyTorch(const OnnxModel& model) {
  absl::StatusOr<Tensor> input = ReadNpy(ModelPath("convnet", ".input.npy"));
  absl::StatusOr<Tensor> want = ReadNpy(ModelPath("convnet", ".output.npy"));
  ASSERT_TRUE(input.ok() && want.ok());
  absl::StatusOr<std::map<TensorId, Tensor>> feeds =
      ModelFeeds(model.graph, {{model.inputs[0], *input}});
  ASSERT_TRUE(feeds.ok()) << feeds.status();
  absl::StatusOr<std::map<TensorId, Tensor>> got =
      RunGraph(model.graph, *feeds, GraphRunMode::kFused);
  ASSERT_TRUE(got.ok()) << got.status();
  const absl::Status close = CheckAllClose(got->at(model.outputs[0]), *want, 1e-3, 1e-4);
  EXPECT_TRUE(close.ok()) << close;
}

TEST(OnnxImportTest, ChannelsLastRunsTheConvsOnNhwcAndKeepsTheModelsShapes) {
  absl::StatusOr<OnnxImportOptions> options = ImportOptionsFromFlags({}, "nhwc");
  ASSERT_TRUE(options.ok()) << options.status();
  EXPECT_TRUE(options->channels_last);
  const absl::Status bad = ImportOptionsFromFlags({}, "nchwc").status();
  EXPECT_EQ(bad.code(), absl::StatusCode::kInvalidArgument);
  EXPECT_THAT(bad.message(),
              HasSubstr("--layout nchwc: expected nchw (as exported), nhwc or nhwc-winograd"));

  const std::string path = ModelPath("convnet", ".onnx");
  absl::StatusOr<OnnxModel> nchw = ImportOnnxFile(path);
  absl::StatusOr<OnnxModel> nhwc = ImportOnnxFile(path, *options);
  ASSERT_TRUE(nchw.ok() && nhwc.ok()) << nchw.status() << nhwc.status();
  EXPECT_EQ(nhwc->graph.tensor(nhwc->inputs[0]).shape, nchw->graph.tensor(nchw->inputs[0]).shape);
  EXPECT_EQ(nhwc->graph.tensor(nhwc->outputs[0]).shape,
            nchw->graph.tensor(nchw->outputs[0]).shape);
  EXPECT_EQ(nhwc->output_names, nchw->output_names);
  std::map<NodeKind, int> kinds = KindCounts(nhwc->graph);
  EXPECT_EQ(kinds[NodeKind::kConv2d], 9);
  for (const GraphNode& node : nhwc->graph.nodes()) {
    if (node.kind == NodeKind::kConv2d) EXPECT_TRUE(node.attrs.channels_last) << node.name;
  }
  ExpectConvnetMatchesPyTorch(*nhwc);
}

// nhwc-winograd lets ChooseWinogradTile pick each convolution's tile (the
// test model's are small: F(4x4, 3x3)); nhwc-winograd2 and nhwc-winograd4
// force one. Each matches PyTorch.
TEST(OnnxImportTest, NhwcWinogradPacksTheWeightsOf3x3Stride1Convs) {
  for (const auto& [layout, alpha] : {std::pair{"nhwc-winograd", 6}, std::pair{"nhwc-winograd2", 4},
                                      std::pair{"nhwc-winograd4", 6}}) {
    SCOPED_TRACE(layout);
    absl::StatusOr<OnnxImportOptions> options = ImportOptionsFromFlags({}, layout);
    ASSERT_TRUE(options.ok()) << options.status();
    EXPECT_TRUE(options->channels_last && options->winograd);
    absl::StatusOr<OnnxModel> model = ImportOnnxFile(ModelPath("convnet", ".onnx"), *options);
    ASSERT_TRUE(model.ok()) << model.status();
    int winograd = 0;
    for (const GraphNode& node : model->graph.nodes()) {
      if (node.kind != NodeKind::kConv2d || !node.attrs.winograd) continue;
      ++winograd;
      const GraphTensor& packed = model->graph.tensor(node.inputs[1]);
      EXPECT_EQ(packed.shape[0], alpha) << node.name;
      ASSERT_NE(packed.data, nullptr) << node.name;
      EXPECT_EQ(static_cast<int64_t>(packed.data->size()), NumElements(packed.shape));
    }
    EXPECT_GT(winograd, 0);
    ExpectConvnetMatchesPyTorch(*model);
  }
  const absl::Status bad = ImportOptionsFromFlags({}, "nhwc-winograd3").status();
  EXPECT_EQ(bad.code(), absl::StatusCode::kInvalidArgument);
  EXPECT_THAT(bad.message(), HasSubstr("expected nhwc-winograd, nhwc-winograd2 or nhwc-winograd4"));
}

}  // namespace
}  // namespace pruner
