#include "tests/codegen/cuda_compile_check.h"

#include <memory>

#include "absl/strings/str_cat.h"
#include "common/codegen/cuda_codegen.h"
#include "common/codegen/cuda_nvrtc.h"
#include "common/codegen/cuda_ptxas.h"
#include "common/ir/ops.h"
#include "common/lower/lower.h"
#include "common/sketch/annotate.h"
#include "common/sketch/random.h"
#include "common/sketch/sketch.h"

namespace pruner {
namespace {

std::string FirstLine(absl::string_view text) {
  const size_t end = text.find('\n');
  return std::string(end == absl::string_view::npos ? text : text.substr(0, end));
}

}  // namespace

std::vector<std::string> CudaCheckSpecs() {
  return {
      "add:shape=4x128x768",
      "avg_pool2d:N=1,C=64,H=56,W=56,kernel=3,stride=2,pad=1",
      "batch_matmul:B=12,M=128,K=64,N=128",
      "conv2d:N=1,C=64,H=56,W=56,K=64,R=3,S=3,stride=1,pad=1,bias=1,act=relu",
      "conv2d_winograd:N=1,C=64,H=28,W=28,K=64,bias=1,act=relu",
      "conv2d_winograd:N=1,C=64,H=28,W=28,K=64,bias=1,act=relu,tile=4",
      "dense:M=128,K=768,N=3072,bias=1,act=gelu",
      "depthwise_conv2d:N=1,C=128,H=28,W=28,R=3,S=3,stride=1,pad=1",
      "layer_norm:M=128,N=768",
      "matmul:M=512,K=512,N=512",
      "max_pool2d:N=1,C=64,H=112,W=112,kernel=3,stride=2,pad=1",
      "mul:shape=4x128x768",
      "relu:shape=4x128x768",
      "softmax:M=128,N=1000",
  };
}

absl::StatusOr<CudaCompileCheckReport> CheckCudaCompile(const std::string& spec,
                                                        const DeviceProfile& device,
                                                        const CudaCompileCheckOptions& options) {
  auto built = BuildOperator(spec);
  if (!built.ok()) return built.status();
  auto dag = std::make_shared<const ComputeDag>(*std::move(built));
  auto sketches = GenerateSketches(dag, device);
  if (!sketches.ok()) return sketches.status();

  CudaCompileCheckReport report;
  report.spec = spec;
  Rng rng(options.seed);
  const std::vector<State> states =
      SampleInitPopulation(*sketches, device, options.num_schedules, rng);
  report.sampled = static_cast<int>(states.size());
  for (const State& state : states) {
    auto fail = [&](const std::string& stage, const absl::Status& status, const std::string& src) {
      ++report.failures[absl::StrCat(stage, ": ", FirstLine(status.message()))];
      if (report.first_failure.empty()) {
        report.first_failure = absl::StrCat(stage, ": ", status.message(), "\nsentence: ",
                                            state.ToSentence(), "\n", src);
      }
    };
    auto program = Lower(state, device);
    if (!program.ok()) {
      fail("lower", program.status(), "");
      continue;
    }
    ++report.lowered;
    auto module = GenerateCudaSource(*program, device);
    if (!module.ok()) {
      fail("codegen", module.status(), program->ToString());
      continue;
    }
    ++report.generated;
    if (report.example_source.empty()) report.example_source = module->source;
    for (const std::string& arch : options.archs) {
      CudaArchStats& stats = report.per_arch[arch];
      auto compiled = CompileCuda(*module, arch);
      if (!compiled.ok()) {
        fail(absl::StrCat("nvrtc ", arch), compiled.status(), module->source);
        continue;
      }
      ++stats.compiled;
      stats.nvrtc_ms += compiled->compile_ms;
      if (!options.run_ptxas) continue;
      auto resources = RunPtxas(compiled->ptx, compiled->arch.sm_name());
      if (!resources.ok()) {
        fail(absl::StrCat("ptxas ", arch), resources.status(), module->source);
        continue;
      }
      ++stats.assembled;
      stats.max_cubin_bytes = std::max(stats.max_cubin_bytes, resources->cubin_bytes);
      for (const KernelResources& k : resources->kernels) {
        stats.registers.push_back(k.registers);
        stats.max_shared_bytes = std::max(stats.max_shared_bytes, k.shared_bytes);
        if (k.spill_store_bytes > 0) ++stats.kernels_spilling;
      }
      if (absl::Status ok = CheckKernelResources(*resources, *module, device); !ok.ok()) {
        ++stats.resource_invalid;
        ++report.failures[absl::StrCat("resources ", arch, ": ", FirstLine(ok.message()))];
      }
    }
  }
  return report;
}

}  // namespace pruner
