// Loads objects of the LLVM CPU backend into this process (LLVM's ORC JIT
// linking the object in memory: no file, no dlopen) and hands out their
// entry points.
//
// Kernels are cached by symbol (a hash of the program text) and target CPU:
// loading an object that is already loaded returns the loaded kernel. Each
// kernel has its own JIT library, unloaded when its last JitCpuKernel
// reference goes.
//
// Measurement runs kernels in forked sandbox children (cpu_runner.h); the
// child inherits the loaded code, so a kernel that crashes or hangs takes
// down only the child. The runtime symbols (cpu_runtime.h) are bound to this
// process's functions, libm's and libc's to the process's libraries.
#ifndef PRUNER_COMMON_CODEGEN_CPU_LLVM_JIT_H_
#define PRUNER_COMMON_CODEGEN_CPU_LLVM_JIT_H_

#include <memory>
#include <string>

#include "absl/status/statusor.h"
#include "common/codegen/cpu_llvm_codegen.h"

namespace pruner {

class JitCpuKernel {
 public:
  using EntryFn = int (*)(float* const* args);
  JitCpuKernel(const JitCpuKernel&) = delete;
  JitCpuKernel& operator=(const JitCpuKernel&) = delete;
  ~JitCpuKernel();

  EntryFn entry() const { return entry_; }
  const std::string& symbol() const { return symbol_; }

 private:
  friend absl::StatusOr<std::shared_ptr<const JitCpuKernel>> LoadCpuObject(const LlvmCpuObject&);
  JitCpuKernel(EntryFn entry, std::string symbol, std::string cache_key, void* dylib)
      : entry_(entry), symbol_(std::move(symbol)), cache_key_(std::move(cache_key)), dylib_(dylib) {}
  EntryFn entry_;
  std::string symbol_;
  std::string cache_key_;  // symbol, CPU and features
  void* dylib_;  // the ORC JITDylib that owns the code, one per kernel
};

// Internal when linking fails (an unknown symbol, a bad object). An object
// built for another x86-64 CPU loads too: it runs where this host has its
// instructions and dies of SIGILL (in the sandbox) where it has not, as a
// g++ build for another -march does.
absl::StatusOr<std::shared_ptr<const JitCpuKernel>> LoadCpuObject(const LlvmCpuObject& object);

// Kernels loaded now (for tests of unloading).
int LoadedJitCpuKernels();

}  // namespace pruner

#endif  // PRUNER_COMMON_CODEGEN_CPU_LLVM_JIT_H_
