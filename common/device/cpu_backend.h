// The code generator that builds a CPU kernel. Both the builders
// (common/codegen/cpu_compiler.h) and the analyzer, which counts the
// instructions each backend emits (common/analysis/analyzer_options.h),
// name it, so it lives below both.
#ifndef PRUNER_COMMON_DEVICE_CPU_BACKEND_H_
#define PRUNER_COMMON_DEVICE_CPU_BACKEND_H_

#include <optional>
#include <string_view>

namespace pruner {

enum class CpuBackend {
  kLlvm,  // LLVM in process (cpu_llvm_codegen.h): the default since 2026-11-27
  kGcc,   // generated C++ built by g++ (cpu_codegen.h): --backend gcc, Arm
          // workers, and every record measured before 2026-11-27
};

// "llvm", "gcc".
const char* CpuBackendName(CpuBackend backend);
// The inverse ("g++" reads as gcc); std::nullopt for any other text.
std::optional<CpuBackend> ParseCpuBackend(std::string_view name);

}  // namespace pruner

#endif  // PRUNER_COMMON_DEVICE_CPU_BACKEND_H_
