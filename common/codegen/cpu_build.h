// Building lowered CPU programs into runnable kernels with the backend that
// CpuBuildOptions::backend names: the one entry point measurement, the
// benchmarks and the checks use, so every caller can take either backend.
//
// - LLVM: each program is compiled in process (cpu_llvm_codegen.h) for the
//   x86-64 CPU that options.march names ("native": this host), up to
//   max_parallel at once, and loaded by the JIT (cpu_llvm_jit.h). Nothing is
//   written to work_dir.
// - g++: GenerateCpuSource, then BuildPool's compiler processes
//   (cpu_compiler.h), .so files in work_dir.
// Error classes are cpu_compiler.h's: a program the backend refuses is
// InvalidArgument ("invalid schedule"), a failed build Internal, a build
// over options.timeout DeadlineExceeded (LLVM: judged when it ends, since
// an in-process compile cannot be stopped).
#ifndef PRUNER_COMMON_CODEGEN_CPU_BUILD_H_
#define PRUNER_COMMON_CODEGEN_CPU_BUILD_H_

#include <optional>
#include <string>
#include <vector>

#include "absl/status/statusor.h"
#include "common/codegen/cpu_compiler.h"
#include "common/lower/program.h"

namespace pruner {

// One result per program, in order.
std::vector<absl::StatusOr<BuiltModule>> BuildCpuPrograms(
    const std::vector<const Program*>& programs, const CpuBuildOptions& options,
    int max_parallel, const std::string& work_dir);

// The LLVM backend's CPU for a g++-style -march value ("native" or "" for
// this host).
std::string LlvmCpuForMarch(const std::string& march);

// The x86-64 ISA level (an LLVM CPU name) whose code runs on every CPU with
// DeviceProfile::vector_isa `isa`: "avx512f" -> "x86-64-v4", "avx2" ->
// "x86-64-v3", "avx" and "sse4.2" -> "x86-64-v2", "sse2" -> "x86-64";
// std::nullopt for other ISAs (NEON: the g++ backend's cross compiler).
std::optional<std::string> LlvmCpuForIsa(const std::string& isa);

}  // namespace pruner

#endif  // PRUNER_COMMON_CODEGEN_CPU_BUILD_H_
