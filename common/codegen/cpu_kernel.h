// Loading a built CPU module and running its entry point on host tensors.
#ifndef PRUNER_COMMON_CODEGEN_CPU_KERNEL_H_
#define PRUNER_COMMON_CODEGEN_CPU_KERNEL_H_

#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include "absl/status/statusor.h"
#include "common/codegen/cpu_compiler.h"
#include "common/ir/tensor.h"
#include "common/lower/program.h"

namespace pruner {

// The generated entry point; see cpu_codegen.h for the argument contract.
using CpuEntryFn = int (*)(float* const* args);

// Storage for one kernel argument as cpu_codegen.h's contract wants it:
// 64-byte aligned, with kCpuReadSlackBytes of readable memory on both sides.
// Null when out of memory.
struct KernelArgDeleter {
  void operator()(float* data) const;
};
using KernelArgBuffer = std::unique_ptr<float[], KernelArgDeleter>;
KernelArgBuffer AllocateKernelArg(int64_t elements);

// A runnable kernel: a dlopen'ed module (RTLD_NOW | RTLD_LOCAL, so modules
// with clashing symbols coexist; dlclose on destruction), or a reference to
// a JIT-loaded one (BuiltModule::jit). Move-only.
class LoadedKernel {
 public:
  static absl::StatusOr<LoadedKernel> Load(const BuiltModule& module);

  LoadedKernel(LoadedKernel&& other) noexcept;
  LoadedKernel& operator=(LoadedKernel&& other) noexcept;
  LoadedKernel(const LoadedKernel&) = delete;
  LoadedKernel& operator=(const LoadedKernel&) = delete;
  ~LoadedKernel();

  CpuEntryFn entry() const { return entry_; }
  const std::string& symbol() const { return symbol_; }

 private:
  LoadedKernel(void* handle, CpuEntryFn entry, std::string symbol,
               std::shared_ptr<const JitCpuKernel> jit = nullptr)
      : handle_(handle), entry_(entry), symbol_(std::move(symbol)), jit_(std::move(jit)) {}
  void* handle_ = nullptr;
  CpuEntryFn entry_ = nullptr;
  std::string symbol_;
  std::shared_ptr<const JitCpuKernel> jit_;
};

// Copies `inputs` (Program::inputs order) into kernel argument buffers, runs
// the kernel and returns the outputs in Program::outputs order. Shape
// mismatches are InvalidArgument; a non-zero return code of the kernel is
// ResourceExhausted (kCpuErrorOutOfMemory) or Internal.
absl::StatusOr<std::vector<Tensor>> RunCpuKernel(const LoadedKernel& kernel,
                                                 const Program& program,
                                                 const std::vector<Tensor>& inputs);

}  // namespace pruner

#endif  // PRUNER_COMMON_CODEGEN_CPU_KERNEL_H_
