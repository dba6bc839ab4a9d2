// `pruner compile` as a user meets it: models exported by PyTorch become
// shared libraries whose outputs match PyTorch's, with default schedules and
// with tuned ones, and whose C API refuses bad inputs with a message.
#include "common/compile/model_compiler.h"

#include <filesystem>
#include <fstream>
#include <sstream>
#include <string>

#include "absl/strings/match.h"
#include "absl/strings/str_split.h"
#include "common/codegen/child_process.h"
#include "common/codegen/cpu_runtime_source.h"
#include "common/compile/compiled_model.h"
#include "common/compile/default_schedule.h"
#include "common/device/device_profile.h"
#include "common/graph/channels_last.h"
#include "common/graph/fusion.h"
#include "common/graph/graph_builder.h"
#include "common/graph/graph_reference.h"
#include "common/ir/npy.h"
#include "common/ir/ops.h"
#include "common/ir/reference.h"
#include "common/lower/interpreter.h"
#include "common/lower/lower.h"
#include "common/schedule/step.h"
#include "common/sketch/sketch.h"
#include "common/sketch/window_seeds.h"
#include "gmock/gmock.h"
#include "gtest/gtest.h"

namespace pruner {
namespace {

using ::testing::HasSubstr;

std::string ModelPath(const std::string& name, const std::string& suffix) {
  return std::string(PRUNER_TEST_MODELS_DIR) + "/" + name + suffix;
}

class ModelCompilerTest : public ::testing::Test {
 protected:
  void SetUp() override {
    dir_ = std::filesystem::temp_directory_path() /
           ("pruner_compile_test_" + std::to_string(::getpid()));
    std::filesystem::create_directories(dir_);
    // The compiled code targets an ISA level every x86-64-v2 machine runs,
    // so the test does not depend on this CPU's profile.
    absl::StatusOr<DeviceProfile> cpu = GetDeviceProfile("cpu");
    ASSERT_TRUE(cpu.ok());
    device_ = *cpu;
  }
  void TearDown() override { std::filesystem::remove_all(dir_); }

  CompileModelOptions Options(const std::string& name) {
    CompileModelOptions o;
    o.out_path = (dir_ / (name + ".so")).string();
    o.device = device_;
    o.llvm_cpu = "x86-64-v2";
    o.defaults.draws = 16;
    return o;
  }

  // Compiles `name`, runs it on PyTorch's input, compares with PyTorch's output.
  CompileReport CompileAndCompare(const std::string& name, const TunedSchedules& tuned,
                                  const OnnxImportOptions& import = {}) {
    absl::StatusOr<OnnxModel> model = ImportOnnxFile(ModelPath(name, ".onnx"), import);
    EXPECT_TRUE(model.ok()) << model.status();
    if (!model.ok()) return {};
    const CompileModelOptions options = Options(name);
    absl::StatusOr<CompileReport> report = CompileModel(*model, tuned, options);
    EXPECT_TRUE(report.ok()) << report.status();
    if (!report.ok()) return {};
    absl::StatusOr<std::unique_ptr<CompiledModel>> loaded = CompiledModel::Load(options.out_path, 2);
    EXPECT_TRUE(loaded.ok()) << loaded.status();
    if (!loaded.ok()) return *report;
    EXPECT_EQ((*loaded)->inputs()[0].name, "input");
    EXPECT_EQ((*loaded)->outputs()[0].name, "output");
    absl::StatusOr<Tensor> input = ReadNpy(ModelPath(name, ".input.npy"));
    absl::StatusOr<Tensor> want = ReadNpy(ModelPath(name, ".output.npy"));
    EXPECT_TRUE(input.ok() && want.ok());
    absl::StatusOr<std::vector<Tensor>> got = (*loaded)->Run({*input});
    EXPECT_TRUE(got.ok()) << got.status();
    if (got.ok()) {
      // Float32 kernels with other summation orders than PyTorch's.
      const absl::Status close = CheckAllClose((*got)[0], *want, 1e-3, 1e-4);
      EXPECT_TRUE(close.ok()) << name << ": " << close;
      // A second run gives the same result (the arena is reused).
      absl::StatusOr<std::vector<Tensor>> again = (*loaded)->Run({*input});
      EXPECT_TRUE(again.ok());
      if (again.ok()) EXPECT_EQ((*again)[0].data, (*got)[0].data);
    }
    loaded_ = std::move(*loaded);
    return *report;
  }

  std::filesystem::path dir_;
  DeviceProfile device_;
  std::unique_ptr<CompiledModel> loaded_;  // the last model CompileAndCompare loaded
};

TEST_F(ModelCompilerTest, ConvNetWithDefaultSchedulesMatchesPyTorch) {
  const CompileReport r = CompileAndCompare("convnet", NoTunedSchedules());
  EXPECT_EQ(r.kernels.size(), 13u);
  for (const CompiledKernel& k : r.kernels) EXPECT_FALSE(k.tuned) << k.name;
  EXPECT_GT(r.weight_bytes, 0);
  // Intermediates share the arena.
  EXPECT_LT(r.arena_bytes, r.unshared_bytes);
}

TEST_F(ModelCompilerTest, ConvNetOnChannelsLastTensorsMatchesPyTorch) {
  OnnxImportOptions nhwc;
  nhwc.channels_last = true;
  const CompileReport r = CompileAndCompare("convnet", NoTunedSchedules(), nhwc);
  int nhwc_kernels = 0;
  for (const CompiledKernel& k : r.kernels) {
    nhwc_kernels += absl::EndsWith(k.name, "_nhwc") ? 1 : 0;
  }
  EXPECT_GT(nhwc_kernels, 0);
  // The model's input and output keep PyTorch's NCHW shapes.
  ASSERT_NE(loaded_, nullptr);
  absl::StatusOr<Tensor> input = ReadNpy(ModelPath("convnet", ".input.npy"));
  ASSERT_TRUE(input.ok());
  EXPECT_EQ(loaded_->inputs()[0].shape, input->shape);
}

TEST_F(ModelCompilerTest, ConvNetWithWinogradConvolutionsMatchesPyTorch) {
  OnnxImportOptions winograd;
  winograd.channels_last = true;
  winograd.winograd = true;
  const CompileReport r = CompileAndCompare("convnet", NoTunedSchedules(), winograd);
  int winograd_kernels = 0;
  for (const CompiledKernel& k : r.kernels) {
    winograd_kernels += absl::StartsWith(k.name, "conv2d_winograd") ? 1 : 0;
  }
  EXPECT_GT(winograd_kernels, 0);
}

TEST_F(ModelCompilerTest, EncoderMatchesPyTorchAndSharesKernelsBetweenEqualGroups) {
  const CompileReport r = CompileAndCompare("encoder", NoTunedSchedules());
  int occurrences = 0;
  for (const CompiledKernel& k : r.kernels) occurrences += k.occurrences;
  // Q, K and V are one kernel run three times; the two layer norms one.
  EXPECT_EQ(r.kernels.size(), 8u);
  EXPECT_EQ(occurrences, 11);
  EXPECT_LT(r.arena_bytes, r.unshared_bytes);
}

TEST_F(ModelCompilerTest, TunedSchedulesAreUsedWhereTheRecordsHaveThem) {
  // "Records" for every kernel: another draw of schedules (seed 7), given as
  // steps sentences the way the records database stores them.
  absl::StatusOr<OnnxModel> model = ImportOnnxFile(ModelPath("encoder", ".onnx"));
  ASSERT_TRUE(model.ok());
  std::map<std::string, std::string> sentences;
  for (const FusedGroup& group : FuseGraph(model->graph)) {
    if (group.kind == GroupKind::kView) continue;
    absl::StatusOr<ComputeDag> dag = GroupToDag(model->graph, group);
    ASSERT_TRUE(dag.ok());
    auto shared = std::make_shared<const ComputeDag>(*std::move(dag));
    DefaultScheduleOptions other;
    other.draws = 4;
    other.seed = 7;
    absl::StatusOr<State> state = DefaultSchedule(shared, device_, other);
    ASSERT_TRUE(state.ok()) << state.status();
    sentences[shared->WorkloadKey()] = StepsToString(state->steps());
  }
  const TunedSchedules tuned = [&](const std::string& key) -> absl::StatusOr<TunedSchedule> {
    auto it = sentences.find(key);
    if (it == sentences.end()) return absl::NotFoundError(key);
    return TunedSchedule{it->second, 1e-5};
  };
  const CompileReport r = CompileAndCompare("encoder", tuned);
  ASSERT_FALSE(r.kernels.empty());
  for (const CompiledKernel& k : r.kernels) {
    EXPECT_TRUE(k.tuned) << k.name;
    EXPECT_EQ(k.tuned_mean_s, 1e-5);
  }
}

TEST_F(ModelCompilerTest, DepthwiseConvolutionsDefaultToTheirWindowSeed) {
  // The untuned build of a depthwise convolution is window_seeds.h's banded,
  // register-tiled schedule, not the analyzer's pick among random draws.
  absl::StatusOr<ComputeDag> dag =
      BuildOperator("depthwise_conv2d:C=32,H=28,W=28,R=3,S=3,pad=1,bias=1,act=relu,layout=nhwc");
  ASSERT_TRUE(dag.ok()) << dag.status();
  auto shared = std::make_shared<const ComputeDag>(*std::move(dag));
  absl::StatusOr<State> state = DefaultSchedule(shared, device_);
  ASSERT_TRUE(state.ok()) << state.status();
  const std::string sentence = StepsToString(state->steps());
  EXPECT_THAT(sentence, HasSubstr("SP 4 16 3 [3]; SP 4 18 3 [3]"));
  EXPECT_THAT(sentence, HasSubstr("CA 3 6 3"));
  EXPECT_THAT(sentence, HasSubstr("auto_unroll_max_step$512"));
}

TEST_F(ModelCompilerTest, InvertedResidualTasksComputeTheExpandedBandPerParallelIteration) {
  // A 1x1 expand (bias, ReLU6) fused with the stride-1 depthwise convolution
  // it feeds (fusion.h), on 28 rows: the window seeds (bands of 14 and 7
  // rows, so the halo rows are recomputed and guarded at the image's edges)
  // compute the expand stage (5) and the padding copy (8) at the consumer's
  // band loop, and every seed computes what the reference does; the
  // default schedule is the first seed.
  GraphBuilder b("inverted-residual");
  const TensorId x = b.Input("x", {1, 16, 28, 28});
  const TensorId e = b.Relu6(b.BiasAdd(b.Conv2d(x, 48, 1)));
  b.Relu6(b.BiasAdd(b.Conv2d(e, 48, 3, 1, 1, /*groups=*/48)));
  absl::StatusOr<Graph> nchw = std::move(b).Build();
  ASSERT_TRUE(nchw.ok()) << nchw.status();
  absl::StatusOr<ChannelsLastGraph> nhwc = ToChannelsLast(*nchw);
  ASSERT_TRUE(nhwc.ok()) << nhwc.status();
  std::shared_ptr<const ComputeDag> dag;
  for (const FusedGroup& group : FuseGraph(nhwc->graph)) {
    if (group.kind != GroupKind::kAnchored) continue;
    ASSERT_EQ(dag, nullptr) << "one anchored group expected";
    absl::StatusOr<ComputeDag> d = GroupToDag(nhwc->graph, group);
    ASSERT_TRUE(d.ok()) << d.status();
    dag = std::make_shared<const ComputeDag>(*std::move(d));
  }
  ASSERT_NE(dag, nullptr);
  absl::StatusOr<std::vector<Sketch>> sketches = GenerateSketches(dag, device_);
  ASSERT_TRUE(sketches.ok()) << sketches.status();
  const std::vector<State> seeds = WindowReductionSeeds(*sketches, device_);
  ASSERT_EQ(seeds.size(), 2u);
  absl::StatusOr<State> fallback = DefaultSchedule(dag, device_);
  ASSERT_TRUE(fallback.ok()) << fallback.status();
  EXPECT_EQ(StepsToString(fallback->steps()), StepsToString(seeds[0].steps()));

  const std::vector<Tensor> inputs = RandomInputs(*dag, 5);
  absl::StatusOr<std::vector<Tensor>> want = RunReference(*dag, inputs);
  ASSERT_TRUE(want.ok()) << want.status();
  for (const State& seed : seeds) {
    const std::string sentence = StepsToString(seed.steps());
    SCOPED_TRACE(sentence);
    EXPECT_THAT(sentence, HasSubstr("CA 5 11 3"));
    EXPECT_THAT(sentence, HasSubstr("CA 8 11 3"));
    absl::StatusOr<Program> program = Lower(seed, device_);
    ASSERT_TRUE(program.ok()) << program.status();
    absl::StatusOr<std::vector<Tensor>> got = RunProgram(*program, inputs);
    ASSERT_TRUE(got.ok()) << got.status();
    EXPECT_TRUE(CheckAllClose((*got)[0], (*want)[0], 1e-4, 1e-4).ok());
  }
}

TEST_F(ModelCompilerTest, TheCApiRefusesWrongInputsWithAMessage) {
  absl::StatusOr<OnnxModel> model = ImportOnnxFile(ModelPath("convnet", ".onnx"));
  ASSERT_TRUE(model.ok());
  const CompileModelOptions options = Options("convnet");
  ASSERT_TRUE(CompileModel(*model, NoTunedSchedules(), options).ok());
  absl::StatusOr<std::unique_ptr<CompiledModel>> m = CompiledModel::Load(options.out_path, 1);
  ASSERT_TRUE(m.ok()) << m.status();
  Tensor wrong = Tensor::Zeros({1, 3, 32, 31});
  absl::Status s = (*m)->Run({wrong}).status();
  EXPECT_EQ(s.code(), absl::StatusCode::kInvalidArgument);
  EXPECT_THAT(s.message(),
              HasSubstr("input 'input' must have shape [1, 3, 32, 32], got [1, 3, 32, 31]"));
  s = (*m)->Run({}).status();
  EXPECT_THAT(s.message(), HasSubstr("the model has 1 inputs, got 0"));
  Tensor ints = Tensor::Zeros({1, 3, 32, 32}, DType::kInt32);
  EXPECT_THAT((*m)->Run({ints}).status().message(), HasSubstr("must be float32"));
  // The model still runs after refusing.
  EXPECT_TRUE((*m)->Run({Tensor::Zeros({1, 3, 32, 32})}).ok());
}

TEST_F(ModelCompilerTest, BertFromInt64TokenIdsMatchesPyTorch) {
  const CompileReport r = CompileAndCompare("bert", NoTunedSchedules());
  ASSERT_NE(loaded_, nullptr);
  EXPECT_EQ(loaded_->inputs()[0].dtype, DType::kInt64);
  absl::StatusOr<Tensor> ids = ReadNpy(ModelPath("bert", ".input.npy"));
  ASSERT_TRUE(ids.ok());
  EXPECT_EQ(ids->dtype, DType::kInt64);
  // A token id outside the vocabulary of 100 is refused, naming the lookup.
  Tensor bad = *ids;
  bad.data[5] = 100;
  absl::Status s = loaded_->Run({bad}).status();
  EXPECT_EQ(s.code(), absl::StatusCode::kInvalidArgument);
  EXPECT_THAT(s.message(), HasSubstr("'/word/Gather': index 100 (position 5) is outside the "
                                     "table's 100 rows"));
  // Negative ids count from the end, as in PyTorch's ONNX export.
  Tensor negative = *ids;
  negative.data[0] = -1;
  Tensor last = *ids;
  last.data[0] = 99;
  absl::StatusOr<std::vector<Tensor>> a = loaded_->Run({negative});
  absl::StatusOr<std::vector<Tensor>> b = loaded_->Run({last});
  ASSERT_TRUE(a.ok() && b.ok());
  EXPECT_EQ((*a)[0].data, (*b)[0].data);
  // Float token ids are a dtype error, not a conversion.
  Tensor floats = *ids;
  floats.dtype = DType::kFloat32;
  EXPECT_THAT(loaded_->Run({floats}).status().message(),
              HasSubstr("input 'input' must be int64, got float32"));
}

TEST_F(ModelCompilerTest, ConcatAndSliceRunAsCopiesAndMatchPyTorch) {
  const CompileReport r = CompileAndCompare("branches", NoTunedSchedules());
  EXPECT_EQ(r.kernels.size(), 3u);
  ASSERT_NE(loaded_, nullptr);
  absl::StatusOr<Tensor> input = ReadNpy(ModelPath("branches", ".input.npy"));
  ASSERT_TRUE(input.ok());
  // The profile names every step: three kernels, and the concats' pieces and
  // slices as strided copies.
  absl::StatusOr<std::vector<CompiledModel::StepTime>> steps = loaded_->Profile({*input}, 3);
  ASSERT_TRUE(steps.ok()) << steps.status();
  int kernels = 0, copies = 0;
  for (const CompiledModel::StepTime& t : *steps) {
    EXPECT_FALSE(t.name.empty());
    EXPECT_GE(t.seconds, 0);
    if (t.kind == "kernel") {
      ++kernels;
      EXPECT_GT(t.flops, 0) << t.name;
    }
    if (t.kind == "strided copy") {
      ++copies;
      EXPECT_EQ(t.flops, 0);
    }
  }
  EXPECT_EQ(kernels, 3);
  EXPECT_EQ(copies, 3 * 2 + 4);  // three two-way concats, four slices
}

// NCHW <-> NHWC transposes run as tiled 2-D transposes (a batch of them for
// N > 1); other permutations row by row. Against the reference executor.
TEST_F(ModelCompilerTest, TransposesMatchTheReference) {
  GraphBuilder b("transposes");
  const TensorId x = b.Input("x", {2, 5, 37, 3});  // NHWC, odd sizes: partial tiles
  TensorId y = b.Relu(b.Transpose(x, {0, 3, 1, 2}));  // to NCHW [2, 3, 5, 37]
  y = b.Add(b.Transpose(y, {0, 2, 3, 1}), x);         // back to NHWC
  y = b.Relu(b.Transpose(y, {0, 2, 1, 3}));           // [2, 37, 5, 3]: row copies
  absl::StatusOr<Graph> graph = std::move(b).Build();
  ASSERT_TRUE(graph.ok()) << graph.status();
  OnnxModel model;
  model.graph = *graph;
  model.inputs = {x};
  model.outputs = {y};
  model.input_names = {"x"};
  model.output_names = {"y"};
  const CompileModelOptions options = Options("transposes");
  absl::StatusOr<CompileReport> report = CompileModel(model, NoTunedSchedules(), options);
  ASSERT_TRUE(report.ok()) << report.status();
  absl::StatusOr<std::unique_ptr<CompiledModel>> loaded = CompiledModel::Load(options.out_path, 2);
  ASSERT_TRUE(loaded.ok()) << loaded.status();
  const Tensor input = RandomTensor({2, 5, 37, 3}, 11);
  absl::StatusOr<std::vector<Tensor>> got = (*loaded)->Run({input});
  absl::StatusOr<std::map<TensorId, Tensor>> want =
      RunGraph(*graph, {{x, input}}, GraphRunMode::kFused);
  ASSERT_TRUE(got.ok()) << got.status();
  ASSERT_TRUE(want.ok()) << want.status();
  EXPECT_TRUE(CheckAllClose((*got)[0], want->at(y), 0, 0).ok());
}

// A user's program: it includes pruner_model.hpp (what `pruner compile`
// writes beside the library), links the library and runs the model.
TEST_F(ModelCompilerTest, AProgramLinkedWithTheLibraryRunsItThroughTheCppWrapper) {
  absl::StatusOr<OnnxModel> model = ImportOnnxFile(ModelPath("bert", ".onnx"));
  ASSERT_TRUE(model.ok());
  const CompileModelOptions options = Options("bert");
  ASSERT_TRUE(CompileModel(*model, NoTunedSchedules(), options).ok());
  std::ofstream(dir_ / kModelApiHeaderName) << ModelApiHeaderText();
  std::ofstream(dir_ / kModelCppHeaderName) << ModelCppHeaderText();
  std::ofstream(dir_ / "app.cc") << R"(#include <cstdio>
#include <cstdlib>
#include "pruner_model.hpp"
int main(int argc, char** argv) {
  try {
    pruner::runtime::Model model(1);
    std::vector<int64_t> ids;
    for (int i = 1; i < argc; ++i) ids.push_back(std::atoll(argv[i]));
    const std::vector<int64_t> shape = {1, static_cast<int64_t>(ids.size())};
    const std::vector<std::vector<float>> outputs = model.Run({{ids.data(), shape}});
    for (float v : outputs.at(0)) std::printf("%.9g\n", v);
    return 0;
  } catch (const pruner::runtime::Error& e) {
    std::printf("error %d: %s\n", e.code(), e.what());
    return 3;
  }
})";
  const std::string app = (dir_ / "app").string();
  absl::StatusOr<ProcessResult> built = RunProcess(
      {"g++", "-std=c++17", "-O1", "-I", dir_.string(), (dir_ / "app.cc").string(), "-o", app,
       "-L", dir_.string(), "-l:bert.so", "-Wl,-rpath," + dir_.string()},
      (dir_ / "build.log").string(), absl::Seconds(120));
  ASSERT_TRUE(built.ok()) << built.status();
  ASSERT_EQ(built->exit_code, 0) << built->output;

  absl::StatusOr<Tensor> ids = ReadNpy(ModelPath("bert", ".input.npy"));
  absl::StatusOr<Tensor> want = ReadNpy(ModelPath("bert", ".output.npy"));
  ASSERT_TRUE(ids.ok() && want.ok());
  std::vector<std::string> argv = {app};
  for (float id : ids->data) argv.push_back(std::to_string(static_cast<int64_t>(id)));
  absl::StatusOr<ProcessResult> ran = RunProcess(argv, (dir_ / "run.log").string(), absl::Seconds(60));
  ASSERT_TRUE(ran.ok()) << ran.status();
  ASSERT_EQ(ran->exit_code, 0) << "signal " << ran->signal << ": " << ran->output;
  Tensor got = Tensor::Zeros(want->shape);
  std::vector<std::string> lines = absl::StrSplit(ran->output, '\n', absl::SkipEmpty());
  ASSERT_EQ(lines.size(), got.data.size()) << ran->output;
  for (size_t i = 0; i < lines.size(); ++i) got.data[i] = std::stof(lines[i]);
  EXPECT_TRUE(CheckAllClose(got, *want, 1e-3, 1e-4).ok()) << CheckAllClose(got, *want, 1e-3, 1e-4);

  // Too few ids: the runtime's shape error reaches the program as an exception.
  ran = RunProcess({app, "1", "2"}, (dir_ / "run.log").string(), absl::Seconds(60));
  ASSERT_TRUE(ran.ok());
  EXPECT_EQ(ran->exit_code, 3);
  EXPECT_THAT(ran->output, HasSubstr("error 1: input 'input' must have shape [1, 16], got [1, 2]"));
}

TEST_F(ModelCompilerTest, LoadRefusesLibrariesThatAreNotModels) {
  EXPECT_THAT(CompiledModel::Load((dir_ / "missing.so").string(), 1).status().message(),
              HasSubstr("cannot load"));
  EXPECT_THAT(CompiledModel::Load("libm.so.6", 1).status().message(),
              HasSubstr("is not a compiled model"));
}

}  // namespace
}  // namespace pruner
