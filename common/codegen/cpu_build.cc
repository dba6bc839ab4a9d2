#include "common/codegen/cpu_build.h"

#include <chrono>
#include <utility>

#include "absl/strings/str_cat.h"
#include "absl/time/time.h"
#include "common/base/parallel_for.h"
#include "common/codegen/cpu_codegen.h"
#include "common/codegen/cpu_llvm_codegen.h"
#include "common/codegen/cpu_llvm_jit.h"

namespace pruner {
namespace {

int OptLevel(const std::string& opt) {
  if (opt == "-O0") return 0;
  if (opt == "-O1") return 1;
  if (opt == "-O2") return 2;
  return 3;
}

absl::StatusOr<BuiltModule> BuildWithLlvm(const Program& program, const CpuBuildOptions& options) {
  const auto start = std::chrono::steady_clock::now();
  LlvmCpuTarget target;
  target.cpu = LlvmCpuForMarch(options.march);
  target.opt_level = OptLevel(options.opt);
  absl::StatusOr<LlvmCpuObject> object = CompileCpuProgramLlvm(program, target);
  if (!object.ok()) return object.status();
  BuiltModule module;
  module.symbol = object->symbol;
  module.binary_bytes = static_cast<int64_t>(object->object.size());
  module.command = absl::StrCat("llvm -O", target.opt_level, " -mcpu=", object->cpu);
  absl::StatusOr<std::shared_ptr<const JitCpuKernel>> kernel = LoadCpuObject(*object);
  if (!kernel.ok()) return kernel.status();
  module.jit = *std::move(kernel);
  module.build_seconds =
      std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  // An in-process compile cannot be stopped midway; one that took longer
  // than the deadline still counts as a build timeout, as a killed compiler
  // process would, so both backends classify a candidate alike.
  if (module.build_seconds > absl::ToDoubleSeconds(options.timeout)) {
    return absl::DeadlineExceededError(
        absl::StrCat("build timeout: LLVM took ", module.build_seconds, " s (limit ",
                     absl::ToDoubleSeconds(options.timeout), " s)"));
  }
  return module;
}

}  // namespace

std::string LlvmCpuForMarch(const std::string& march) {
  return march.empty() ? std::string("native") : march;
}

std::optional<std::string> LlvmCpuForIsa(const std::string& isa) {
  if (isa == "avx512f") return "x86-64-v4";
  if (isa == "avx2") return "x86-64-v3";
  if (isa == "avx" || isa == "sse4.2") return "x86-64-v2";
  if (isa == "sse2") return "x86-64";
  return std::nullopt;
}

std::vector<absl::StatusOr<BuiltModule>> BuildCpuPrograms(
    const std::vector<const Program*>& programs, const CpuBuildOptions& options,
    int max_parallel, const std::string& work_dir) {
  std::vector<absl::StatusOr<BuiltModule>> out(programs.size(),
                                               absl::UnknownError("not built"));
  if (options.backend == CpuBackend::kLlvm) {
    ParallelFor(static_cast<int>(programs.size()), max_parallel,
                [&](int i) { out[i] = BuildWithLlvm(*programs[i], options); });
    return out;
  }
  DeviceProfile cpu;  // GenerateCpuSource only checks that it is a CPU
  cpu.kind = DeviceKind::kCpu;
  std::vector<CpuKernelSource> sources;
  std::vector<size_t> owners;
  for (size_t i = 0; i < programs.size(); ++i) {
    absl::StatusOr<CpuKernelSource> source = GenerateCpuSource(*programs[i], cpu);
    if (!source.ok()) {
      out[i] = source.status();
      continue;
    }
    sources.push_back(*std::move(source));
    owners.push_back(i);
  }
  std::vector<absl::StatusOr<BuiltModule>> built =
      BuildPool(max_parallel).BuildAll(sources, options, work_dir);
  for (size_t k = 0; k < owners.size(); ++k) out[owners[k]] = std::move(built[k]);
  return out;
}

}  // namespace pruner
