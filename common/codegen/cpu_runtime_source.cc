#include "common/codegen/cpu_runtime_source.h"

#include "absl/strings/str_cat.h"
#include "absl/strings/str_replace.h"

namespace pruner {
namespace {
#include "cpu_runtime_embedded.inc"
#include "model_runtime_embedded.inc"
}  // namespace

std::string CpuRuntimeHeaderText() { return kRuntimeHeader; }

std::string CpuRuntimeSourceText() {
  return absl::StrReplaceAll(
      kRuntimeSource, {{"#include \"common/codegen/cpu_runtime.h\"",
                        absl::StrCat("#include \"", kExportedRuntimeHeaderName, "\"")}});
}

std::string ModelApiHeaderText() { return kModelHeader; }
std::string ModelCppHeaderText() { return kModelCppHeader; }

std::string ModelRuntimeSourceText() {
  return absl::StrReplaceAll(
      kModelSource,
      {{"#include \"common/codegen/cpu_runtime.h\"",
        absl::StrCat("#include \"", kExportedRuntimeHeaderName, "\"")},
       {"#include \"common/codegen/pruner_model.h\"",
        absl::StrCat("#include \"", kModelApiHeaderName, "\"")}});
}

std::string ExportedLibraryLinkCommand(const std::string& library) {
  return absl::StrCat("g++ -O2 -shared -fPIC -pthread -o ", library, " *.o ",
                      kExportedRuntimeSourceName);
}

}  // namespace pruner
