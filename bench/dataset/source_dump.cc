#include "bench/dataset/source_dump.h"

#include <cstdio>
#include <filesystem>
#include <memory>
#include <optional>

#include "absl/strings/str_cat.h"
#include "common/codegen/cpu_codegen.h"
#include "common/lower/lower.h"
#include "common/model/pacm_symbols.h"

namespace pruner::dataset {

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
  for (size_t j = 0; j < found->states.size(); ++j) {
    auto program = Lower(found->states[j], device);
    if (!program.ok()) continue;  // as --dump-lse, which leaves it out too
    auto source = GenerateCpuSource(*program, device);
    if (!source.ok()) return source.status();
    const std::string path = absl::StrCat(dir, "/j", j, ".cc");
    std::unique_ptr<FILE, int (*)(FILE*)> file(std::fopen(path.c_str(), "w"), &std::fclose);
    if (file == nullptr) return absl::UnavailableError(absl::StrCat("cannot write ", path));
    std::fprintf(file.get(), "// workload %s, schedule %zu: measured %.6g ms\n// %s\n",
                 found->key.c_str(), j, found->latency_s[j] * 1e3,
                 found->states[j].ToSentence().c_str());
    std::fputs(source->code.c_str(), file.get());
    if (!analyzer) continue;
    const auto estimate = analyzer->Analyze(*program);
    std::fprintf(file.get(), "\n/* the analyzer:\n%s\n*/\n",
                 estimate.ok() ? estimate->ToString(*program).c_str()
                               : std::string(estimate.status().message()).c_str());
  }
  return absl::OkStatus();
}

}  // namespace pruner::dataset
