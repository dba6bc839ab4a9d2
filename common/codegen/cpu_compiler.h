// Builds generated CPU sources into shared objects with the system compiler.
//
// Each build writes <work_dir>/<symbol>_<unique>.cc, runs the compiler as a
// child process in its own process group (posix_spawn, never system()) and
// kills the group when the build outlives its timeout.
//
// Error classes (status codes the measurement layer maps to its outcomes):
// - build error: the compiler failed. kInternal, "build error: <command>:
//   <exit>: <tail of the compiler's output>".
// - build timeout: kDeadlineExceeded, "build timeout: ...".
// - failing resource checks (binary size, stack use over the limits below):
//   kInvalidArgument, "invalid schedule: ...", the error class lowering uses
//   for schedules that cannot run.
// - the compiler could not be started: kFailedPrecondition.
#ifndef PRUNER_COMMON_CODEGEN_CPU_COMPILER_H_
#define PRUNER_COMMON_CODEGEN_CPU_COMPILER_H_

#include <cstdint>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "absl/status/statusor.h"
#include "absl/time/time.h"
#include "common/codegen/cpu_codegen.h"
#include "common/device/cpu_backend.h"

namespace pruner {

class JitCpuKernel;  // cpu_llvm_jit.h

// LLVM, except in builds without it (PRUNER_WORKER_ONLY: the cross-built
// workers of edge boards), where every kernel goes through the compiler.
#ifdef PRUNER_NO_LLVM
inline constexpr CpuBackend kDefaultCpuBackend = CpuBackend::kGcc;
#else
inline constexpr CpuBackend kDefaultCpuBackend = CpuBackend::kLlvm;
#endif

struct CpuBuildOptions {
  CpuBackend backend = kDefaultCpuBackend;
  // The g++ backend's compiler and flags (the LLVM backend reads the
  // optimization level from `opt` and the CPU from `march`).
  std::string compiler = "g++";
  std::string opt = "-O3";
  // -march=<march>: "native" for the host, or a named target ("skylake-avx512",
  // "znver3", "armv8.2-a"); empty passes no -march at all.
  std::string march = "native";
  std::vector<std::string> extra_flags;
  absl::Duration timeout = absl::Seconds(60);
  // Resource checks; 0 disables a check.
  int64_t max_binary_bytes = 64 << 20;
  int64_t max_stack_bytes = 512 << 10;
  // Keep the .cc and the compiler log next to the .so after a successful
  // build (they are always kept after a failed one).
  bool keep_source = false;
};

// A built kernel: a shared object whose file stays until the caller removes
// it (g++ backend), or code the JIT loaded into this process (LLVM backend:
// `jit` is set and `path` empty; a kernel built for another CPU has
// neither and cannot run here).
struct BuiltModule {
  std::string path;     // the .so
  std::string symbol;   // the entry point
  int64_t binary_bytes = 0;
  double build_seconds = 0;
  std::string command;  // the compiler command line, for reports
  std::shared_ptr<const JitCpuKernel> jit;
};

absl::StatusOr<BuiltModule> BuildCpuModule(const CpuKernelSource& source,
                                           const CpuBuildOptions& options,
                                           const std::string& work_dir);

// The assembly the compiler makes of `source` (same flags, with -S instead of
// -shared), for inspecting what the vectorizer did.
absl::StatusOr<std::string> CompileCpuAssembly(const CpuKernelSource& source,
                                               const CpuBuildOptions& options,
                                               const std::string& work_dir);

// Builds many sources with at most `max_parallel` compilers running at once.
class BuildPool {
 public:
  explicit BuildPool(int max_parallel) : max_parallel_(max_parallel < 1 ? 1 : max_parallel) {}
  // One result per source, in order.
  std::vector<absl::StatusOr<BuiltModule>> BuildAll(const std::vector<CpuKernelSource>& sources,
                                                    const CpuBuildOptions& options,
                                                    const std::string& work_dir) const;
  int max_parallel() const { return max_parallel_; }

 private:
  int max_parallel_;
};

}  // namespace pruner

#endif  // PRUNER_COMMON_CODEGEN_CPU_COMPILER_H_
