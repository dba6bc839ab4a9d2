#include "bench/dataset/source_dump.h"

#include <cstdio>
#include <filesystem>
#include <memory>
#include <optional>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_format.h"
#include "common/codegen/cpu_build.h"
#include "common/codegen/cpu_codegen.h"
#include "common/codegen/cpu_llvm_codegen.h"
#include "common/lower/lower.h"
#include "common/model/pacm_symbols.h"

namespace pruner::dataset {
namespace {

std::unique_ptr<FILE, int (*)(FILE*)> OpenForWriting(const std::string& path) {
  return {std::fopen(path.c_str(), "w"), &std::fclose};
}

}  // namespace

absl::Status DumpWorkloadSources(const ReplayedDataset& data, const DeviceProfile& device,
                                 const std::string& workload, const std::string& dir) {
  const ReplayedWorkload* found = nullptr;
  for (const ReplayedWorkload& w : data.workloads) {
    if (w.key == workload || w.name == workload) found = &w;
  }
  if (found == nullptr) return absl::NotFoundError(absl::StrCat("no workload ", workload));
  std::error_code made;
  std::filesystem::create_directories(dir, made);
  if (made) return absl::UnavailableError(absl::StrCat("cannot create ", dir, ": ", made.message()));
  // Its rows close each file: what the analyzer PaCM's branch reads
  // believes of the schedule.
  const std::optional<SymbolAnalyzer> analyzer = PaCMSymbolAnalyzer(device);
  const std::optional<std::string> llvm_cpu = LlvmCpuForIsa(device.vector_isa);
  for (size_t j = 0; j < found->states.size(); ++j) {
    auto program = Lower(found->states[j], device);
    if (!program.ok()) continue;  // as --dump-lse, which leaves it out too
    auto source = GenerateCpuSource(*program, device);
    if (!source.ok()) return source.status();
    const std::string heading =
        absl::StrFormat("workload %s, schedule %zu: measured %.6g ms\n%s", found->key, j,
                        found->latency_s[j] * 1e3, found->states[j].ToSentence());
    const std::string path = absl::StrCat(dir, "/j", j, ".cc");
    auto file = OpenForWriting(path);
    if (file == nullptr) return absl::UnavailableError(absl::StrCat("cannot write ", path));
    std::fprintf(file.get(), "/* %s */\n", heading.c_str());
    std::fputs(source->code.c_str(), file.get());
    if (analyzer) {
      const auto estimate = analyzer->Analyze(*program);
      std::fprintf(file.get(), "\n/* the analyzer:\n%s\n*/\n",
                   estimate.ok() ? estimate->ToString(*program).c_str()
                                 : std::string(estimate.status().message()).c_str());
    }
    // The LLVM backend's machine code for the records' ISA level (their
    // device's, not this host's: zmm for an AVX-512 dataset read on an AVX2
    // machine), as records of `--records-codegen llvm` were built. None for
    // ISAs the backend does not cover or a build without LLVM.
    if (!llvm_cpu.has_value()) continue;
    LlvmCpuTarget target;
    target.cpu = *llvm_cpu;
    const auto assembly = CpuProgramLlvmAssembly(*program, target);
    if (!assembly.ok()) continue;
    const std::string asm_path = absl::StrCat(dir, "/j", j, ".s");
    auto asm_file = OpenForWriting(asm_path);
    if (asm_file == nullptr) return absl::UnavailableError(absl::StrCat("cannot write ", asm_path));
    std::fprintf(asm_file.get(), "/* %s */\n", heading.c_str());
    std::fputs(assembly->c_str(), asm_file.get());
  }
  return absl::OkStatus();
}

}  // namespace pruner::dataset
