// The LLVM kernels' runtime as source files, for exports: kernels exported
// as objects link with these (cpu_runtime.h/.cc, embedded at build time, with
// the include rewritten to the exported header's name).
#ifndef PRUNER_COMMON_CODEGEN_CPU_RUNTIME_SOURCE_H_
#define PRUNER_COMMON_CODEGEN_CPU_RUNTIME_SOURCE_H_

#include <string>

namespace pruner {

inline constexpr char kExportedRuntimeHeaderName[] = "pruner_cpu_runtime.h";
inline constexpr char kExportedRuntimeSourceName[] = "pruner_cpu_runtime.cc";

std::string CpuRuntimeHeaderText();
std::string CpuRuntimeSourceText();

// The compiled-model runtime (model_runtime.cc) and its C API header
// (pruner_model.h), with includes rewritten to the flat names below, so that
// the two runtime sources and two headers build from one directory.
inline constexpr char kModelApiHeaderName[] = "pruner_model.h";
inline constexpr char kModelRuntimeSourceName[] = "pruner_model_runtime.cc";
// The header-only C++ wrapper over the C API (pruner_model.hpp).
inline constexpr char kModelCppHeaderName[] = "pruner_model.hpp";
std::string ModelApiHeaderText();
std::string ModelCppHeaderText();
std::string ModelRuntimeSourceText();

// The command that links exported objects (*.o in the current directory)
// with the runtime into `library`.
std::string ExportedLibraryLinkCommand(const std::string& library);

}  // namespace pruner

#endif  // PRUNER_COMMON_CODEGEN_CPU_RUNTIME_SOURCE_H_
