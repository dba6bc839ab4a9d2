#include "tests/codegen/cpu_check_util.h"

#include <unistd.h>

#include <atomic>
#include <cstdlib>
#include <filesystem>
#include <utility>

#include "absl/strings/str_cat.h"
#include "common/codegen/cpu_build.h"
#include "common/codegen/cpu_codegen.h"
#include "common/codegen/cpu_kernel.h"
#include "common/ir/ops.h"
#include "common/ir/reference.h"
#include "common/lower/lower.h"
#include "common/sketch/annotate.h"
#include "common/sketch/random.h"
#include "common/sketch/sketch.h"

namespace pruner::testing {
namespace {

// Failure messages carry whole compiler logs and indices; the first line,
// shortened, is enough to group them.
std::string FailureKey(const std::string& stage, const absl::Status& status) {
  std::string message(status.message());
  const size_t newline = message.find('\n');
  if (newline != std::string::npos) message.resize(newline);
  if (message.size() > 160) message = message.substr(0, 160) + "...";
  return absl::StrCat(stage, ": ", message);
}

absl::Status CompareAll(const std::vector<Tensor>& got, const std::vector<Tensor>& want) {
  if (got.size() != want.size()) return absl::InternalError("output count differs");
  for (size_t i = 0; i < got.size(); ++i) {
    absl::Status close = CheckAllClose(got[i], want[i], kCpuRtol, kCpuAtol);
    if (!close.ok()) return close;
  }
  return absl::OkStatus();
}

absl::Status RunAndCompare(const BuiltModule& module, const Program& program,
                           const std::vector<Tensor>& inputs, const std::vector<Tensor>& want) {
  absl::StatusOr<LoadedKernel> kernel = LoadedKernel::Load(module);
  if (!kernel.ok()) return kernel.status();
  absl::StatusOr<std::vector<Tensor>> got = RunCpuKernel(*kernel, program, inputs);
  if (!got.ok()) return got.status();
  return CompareAll(*got, want);
}

}  // namespace

std::string MakeWorkDir(const std::string& tag) {
  static std::atomic<int> counter{0};
  const char* tmp = std::getenv("TMPDIR");
  const std::string dir = absl::StrCat(tmp != nullptr ? tmp : "/tmp", "/pruner_codegen_", tag,
                                       "_", getpid(), "_", counter.fetch_add(1));
  std::filesystem::create_directories(dir);
  return dir;
}

absl::Status BuildRunAndCompare(const Program& program, const DeviceProfile& device,
                                const CpuBuildOptions& options, const std::string& work_dir,
                                const std::vector<Tensor>& inputs,
                                const std::vector<Tensor>& want) {
  absl::StatusOr<CpuKernelSource> source = GenerateCpuSource(program, device);
  if (!source.ok()) return source.status();
  for (CpuBackend backend : {CpuBackend::kGcc, CpuBackend::kLlvm}) {
    CpuBuildOptions build = options;
    build.backend = backend;
    absl::StatusOr<BuiltModule> module = std::move(BuildCpuPrograms({&program}, build, 1, work_dir)[0]);
    if (!module.ok()) {
      return absl::Status(module.status().code(), absl::StrCat(CpuBackendName(backend),
                                                               " backend: ", module.status().message()));
    }
    absl::Status result = RunAndCompare(*module, program, inputs, want);
    std::error_code ec;
    if (!module->path.empty()) std::filesystem::remove(module->path, ec);
    if (!result.ok()) {
      return absl::Status(result.code(),
                          absl::StrCat(CpuBackendName(backend), " backend: ", result.message(),
                                       "\ngenerated C++ source:\n", source->code));
    }
  }
  return absl::OkStatus();
}

absl::StatusOr<CpuCheckCounts> CheckRandomCpuSchedules(const std::string& op_spec,
                                                       const DeviceProfile& device,
                                                       const CpuCheckOptions& options,
                                                       const std::string& work_dir) {
  absl::StatusOr<ComputeDag> built = BuildOperator(op_spec);
  if (!built.ok()) return built.status();
  auto dag = std::make_shared<const ComputeDag>(*std::move(built));
  absl::StatusOr<std::vector<Sketch>> sketches = GenerateSketches(dag, device);
  if (!sketches.ok()) return sketches.status();
  const std::vector<Tensor> inputs = RandomInputs(*dag, options.seed);
  absl::StatusOr<std::vector<Tensor>> want = RunReference(*dag, inputs);
  if (!want.ok()) return want.status();

  CpuCheckCounts counts;
  Rng rng(options.seed);
  const std::vector<State> states =
      SampleInitPopulation(*sketches, device, options.num_schedules, rng);
  counts.sampled = static_cast<int>(states.size());
  std::vector<Program> programs;
  std::vector<CpuKernelSource> sources;
  std::vector<std::string> sentences;
  auto fail = [&](const std::string& stage, const absl::Status& st, const std::string& detail) {
    ++counts.failures[FailureKey(stage, st)];
    if (counts.first_failure.empty()) {
      counts.first_failure = absl::StrCat(op_spec, ": ", stage, ": ", st.message(), "\n", detail);
    }
  };
  for (const State& sampled : states) {
    State state = sampled;
    if (options.redraw_split_lengths) {
      std::vector<Step> steps = sampled.steps();
      for (Step& step : steps) {
        if (step.kind != StepKind::kSplit) continue;
        for (auto& length : step.lengths) length = 1 + rng.UniformInt(0, 6);
      }
      absl::StatusOr<State> redrawn = State::Replay(dag, steps);
      if (!redrawn.ok()) {
        ++counts.skipped;
        continue;
      }
      state = *std::move(redrawn);
    }
    absl::StatusOr<Program> program = Lower(state, device);
    if (!program.ok()) {
      if (options.redraw_split_lengths &&
          program.status().code() == absl::StatusCode::kInvalidArgument) {
        ++counts.skipped;
      } else {
        fail("lower", program.status(), state.ToSentence());
      }
      continue;
    }
    ++counts.lowered;
    // The C++ source is generated for either backend: the g++ one builds
    // it, and a failure report shows it.
    absl::StatusOr<CpuKernelSource> source = GenerateCpuSource(*program, device);
    if (!source.ok()) {
      fail("codegen", source.status(), program->ToString());
      continue;
    }
    ++counts.generated;
    programs.push_back(*std::move(program));
    sources.push_back(*std::move(source));
    sentences.push_back(state.ToSentence());
  }

  std::vector<const Program*> to_build;
  for (const Program& p : programs) to_build.push_back(&p);
  const std::vector<absl::StatusOr<BuiltModule>> modules =
      BuildCpuPrograms(to_build, options.build, options.max_parallel_builds, work_dir);
  for (size_t i = 0; i < modules.size(); ++i) {
    const std::string detail =
        absl::StrCat(CpuBackendName(options.build.backend), " backend\n", sentences[i], "\n",
                     programs[i].ToString(), "\n", sources[i].code);
    if (!modules[i].ok()) {
      fail("build", modules[i].status(), detail);
      continue;
    }
    ++counts.built;
    counts.build_seconds += modules[i]->build_seconds;
    counts.binary_bytes += modules[i]->binary_bytes;
    absl::Status result = RunAndCompare(*modules[i], programs[i], inputs, *want);
    std::error_code ec;
    if (!modules[i]->path.empty()) std::filesystem::remove(modules[i]->path, ec);
    if (!result.ok()) {
      fail("run", result, detail);
      continue;
    }
    ++counts.matched;
  }
  return counts;
}

std::vector<std::string> CpuCheckOperators() {
  return {
      "dense:M=16,K=32,N=24,bias=1,act=relu",
      "dense:M=8,K=20,N=12,act=gelu",
      "matmul:M=33,K=20,N=17",
      "batch_matmul:B=2,M=12,K=16,N=10",
      "conv2d:N=1,C=4,H=9,W=9,K=8,R=3,S=3,stride=1,pad=1",
      "conv2d:N=1,C=4,H=10,W=11,K=6,R=1,S=7,pad_w=3",
      "conv2d:N=1,C=3,H=13,W=11,K=5,R=3,S=3,stride=2,pad=1",
      "depthwise_conv2d:N=1,C=6,H=11,W=11,R=3,S=3,stride=2,pad=1",
      // Channels last, as `--layout nhwc` runs a model's convolutions.
      "conv2d:N=1,C=4,H=9,W=9,K=8,R=3,S=3,stride=1,pad=1,layout=nhwc",
      "depthwise_conv2d:N=1,C=16,H=11,W=11,R=3,S=3,stride=2,pad=1,bias=1,act=relu,layout=nhwc",
      // Winograd F(2x2, 3x3) and F(4x4, 3x3), as `--layout nhwc-winograd` runs
      // 3x3 stride-1 ones: an odd output (partial tiles) with its epilogue.
      "conv2d_winograd:N=1,C=8,H=9,W=9,K=8,bias=1,act=relu",
      "conv2d_winograd:N=1,C=8,H=9,W=9,K=8,bias=1,act=relu,tile=4",
      "max_pool2d:C=3,H=9,W=9,kernel=3,stride=2,pad=1",
      "avg_pool2d:C=3,H=10,W=10,kernel=2",
      "softmax:M=8,N=40",
      "layer_norm:M=8,N=24",
      "add:shape=4x33",
      "mul:shape=3x5x7",
      "relu:shape=64x17",
  };
}

}  // namespace pruner::testing
