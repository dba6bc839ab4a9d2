#include "common/device/cpu_backend.h"

namespace pruner {

const char* CpuBackendName(CpuBackend backend) {
  return backend == CpuBackend::kLlvm ? "llvm" : "gcc";
}

std::optional<CpuBackend> ParseCpuBackend(std::string_view name) {
  if (name == "llvm") return CpuBackend::kLlvm;
  if (name == "gcc" || name == "g++") return CpuBackend::kGcc;
  return std::nullopt;
}

}  // namespace pruner
