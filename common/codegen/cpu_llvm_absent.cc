// The LLVM backend's entry points in builds without LLVM (PRUNER_WORKER_ONLY:
// the cross-built workers of edge boards, whose kernels go through the g++
// backend). Every call says so instead of failing to link; kDefaultCpuBackend
// is kGcc there, so nothing reaches these unless asked for by name.
#include "absl/status/status.h"
#include "common/codegen/cpu_llvm_codegen.h"
#include "common/codegen/cpu_llvm_jit.h"

namespace pruner {
namespace {

absl::Status NoLlvm() {
  return absl::FailedPreconditionError(
      "this build has no LLVM backend (built with PRUNER_WORKER_ONLY): use the gcc backend");
}

}  // namespace

absl::StatusOr<LlvmCpuObject> CompileCpuProgramLlvm(const Program&, const LlvmCpuTarget&) {
  return NoLlvm();
}

absl::StatusOr<std::string> CpuProgramLlvmIr(const Program&, const LlvmCpuTarget&, bool) {
  return NoLlvm();
}

absl::StatusOr<std::string> CpuProgramLlvmAssembly(const Program&, const LlvmCpuTarget&) {
  return NoLlvm();
}

JitCpuKernel::~JitCpuKernel() = default;

absl::StatusOr<std::shared_ptr<const JitCpuKernel>> LoadCpuObject(const LlvmCpuObject&) {
  return NoLlvm();
}

int LoadedJitCpuKernels() { return 0; }

}  // namespace pruner
