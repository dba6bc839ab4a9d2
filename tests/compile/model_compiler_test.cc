// `pruner compile` as a user meets it: models exported by PyTorch become
// shared libraries whose outputs match PyTorch's, with default schedules and
// with tuned ones, and whose C API refuses bad inputs with a message.
#include "common/compile/model_compiler.h"

#include <filesystem>
#include <string>

#include "common/compile/compiled_model.h"
#include "common/compile/default_schedule.h"
#include "common/device/device_profile.h"
#include "common/graph/fusion.h"
#include "common/ir/npy.h"
#include "common/schedule/step.h"
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
  CompileReport CompileAndCompare(const std::string& name, const TunedSchedules& tuned) {
    absl::StatusOr<OnnxModel> model = ImportOnnxFile(ModelPath(name, ".onnx"));
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
    return *report;
  }

  std::filesystem::path dir_;
  DeviceProfile device_;
};

TEST_F(ModelCompilerTest, ConvNetWithDefaultSchedulesMatchesPyTorch) {
  const CompileReport r = CompileAndCompare("convnet", NoTunedSchedules());
  EXPECT_EQ(r.kernels.size(), 13u);
  for (const CompiledKernel& k : r.kernels) EXPECT_FALSE(k.tuned) << k.name;
  EXPECT_GT(r.weight_bytes, 0);
  // Intermediates share the arena.
  EXPECT_LT(r.arena_bytes, r.unshared_bytes);
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

TEST_F(ModelCompilerTest, LoadRefusesLibrariesThatAreNotModels) {
  EXPECT_THAT(CompiledModel::Load((dir_ / "missing.so").string(), 1).status().message(),
              HasSubstr("cannot load"));
  EXPECT_THAT(CompiledModel::Load("libm.so.6", 1).status().message(),
              HasSubstr("is not a compiled model"));
}

}  // namespace
}  // namespace pruner
