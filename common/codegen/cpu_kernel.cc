#include "common/codegen/cpu_kernel.h"

#include <dlfcn.h>

#include <algorithm>
#include <cstdlib>
#include <memory>
#include <mutex>
#include <utility>

#include "absl/status/status.h"
#include "absl/strings/str_cat.h"
#include "common/base/status_macros.h"
#include "common/codegen/cpu_codegen.h"
#include "common/codegen/cpu_llvm_jit.h"
#include "common/codegen/cpu_runtime.h"

namespace pruner {
namespace {

// Generated modules use OpenMP. If the last module holding libgomp were
// dlclosed, libgomp would be unmapped under its idle worker threads; loading
// it once with RTLD_NODELETE keeps it for the life of the process.
void PinOpenMpRuntime() {
  static std::once_flag once;
  std::call_once(once, [] { dlopen("libgomp.so.1", RTLD_NOW | RTLD_GLOBAL | RTLD_NODELETE); });
}

}  // namespace

void KernelArgDeleter::operator()(float* data) const { pruner_cpu_free(data); }

// The LLVM kernels' runtime allocator is the contract's allocator.
static_assert(kCpuRuntimeSlackBytes == kCpuReadSlackBytes);
KernelArgBuffer AllocateKernelArg(int64_t elements) {
  return KernelArgBuffer(pruner_cpu_alloc(elements));
}

absl::StatusOr<LoadedKernel> LoadedKernel::Load(const BuiltModule& module) {
  if (module.jit != nullptr) {
    return LoadedKernel(nullptr, module.jit->entry(), module.symbol, module.jit);
  }
  if (module.path.empty()) {
    return absl::FailedPreconditionError(absl::StrCat(
        "kernel ", module.symbol, " was built for another CPU (", module.command,
        ") and cannot run here"));
  }
  PinOpenMpRuntime();
  void* handle = dlopen(module.path.c_str(), RTLD_NOW | RTLD_LOCAL);
  if (handle == nullptr) {
    return absl::InternalError(absl::StrCat("dlopen ", module.path, ": ", dlerror()));
  }
  void* entry = dlsym(handle, module.symbol.c_str());
  if (entry == nullptr) {
    const std::string error = dlerror();
    dlclose(handle);
    return absl::InternalError(absl::StrCat("dlsym ", module.symbol, ": ", error));
  }
  // A library linked with the exported runtime carries its own thread pool,
  // whose detached workers run the library's code for the rest of the
  // process: it must never be unmapped (a dlclose under a spinning worker
  // is a segfault at some later moment).
  if (dlsym(handle, "pruner_cpu_parallel_for") != nullptr) {
    dlopen(module.path.c_str(), RTLD_NOW | RTLD_NOLOAD | RTLD_NODELETE);
  }
  return LoadedKernel(handle, reinterpret_cast<CpuEntryFn>(entry), module.symbol);
}

LoadedKernel::LoadedKernel(LoadedKernel&& other) noexcept
    : handle_(std::exchange(other.handle_, nullptr)),
      entry_(std::exchange(other.entry_, nullptr)),
      symbol_(std::move(other.symbol_)),
      jit_(std::move(other.jit_)) {}

LoadedKernel& LoadedKernel::operator=(LoadedKernel&& other) noexcept {
  if (this != &other) {
    if (handle_ != nullptr) dlclose(handle_);
    handle_ = std::exchange(other.handle_, nullptr);
    entry_ = std::exchange(other.entry_, nullptr);
    symbol_ = std::move(other.symbol_);
    jit_ = std::move(other.jit_);
  }
  return *this;
}

LoadedKernel::~LoadedKernel() {
  if (handle_ != nullptr) dlclose(handle_);
}

absl::StatusOr<std::vector<Tensor>> RunCpuKernel(const LoadedKernel& kernel,
                                                 const Program& program,
                                                 const std::vector<Tensor>& inputs) {
  if (inputs.size() != program.inputs.size()) {
    return absl::InvalidArgumentError(absl::StrCat("the program takes ", program.inputs.size(),
                                                   " inputs, got ", inputs.size()));
  }
  std::vector<KernelArgBuffer> storage;
  std::vector<float*> args;
  for (size_t i = 0; i < inputs.size(); ++i) {
    const Buffer& b = program.buffer(program.inputs[i]);
    PRUNER_ASSIGN_OR_RETURN(std::vector<float> data, InputInBufferLayout(b, inputs[i]));
    storage.push_back(AllocateKernelArg(b.num_elements()));
    if (storage.back() == nullptr) {
      return absl::ResourceExhaustedError("cannot allocate kernel arguments");
    }
    std::copy(data.begin(), data.end(), storage.back().get());
    args.push_back(storage.back().get());
  }
  for (int id : program.outputs) {
    storage.push_back(AllocateKernelArg(program.buffer(id).num_elements()));
    args.push_back(storage.back().get());
  }
  for (float* p : args) {
    if (p == nullptr) return absl::ResourceExhaustedError("cannot allocate kernel arguments");
  }
  const int rc = kernel.entry()(args.data());
  if (rc == kCpuErrorOutOfMemory) {
    return absl::ResourceExhaustedError(
        absl::StrCat("kernel ", kernel.symbol(), " could not allocate its buffers"));
  }
  if (rc != 0) {
    return absl::InternalError(absl::StrCat("kernel ", kernel.symbol(), " returned ", rc));
  }
  std::vector<Tensor> outputs;
  for (size_t k = 0; k < program.outputs.size(); ++k) {
    const Buffer& b = program.buffer(program.outputs[k]);
    Tensor t = Tensor::Zeros(b.shape, b.dtype);
    const float* data = args[inputs.size() + k];
    std::copy(data, data + t.num_elements(), t.data.begin());
    outputs.push_back(std::move(t));
  }
  return outputs;
}

}  // namespace pruner
