#include "common/codegen/cpu_llvm_jit.h"

#include <memory>
#include <mutex>
#include <string>
#include <utility>

#include "absl/container/flat_hash_map.h"
#include "absl/status/status.h"
#include "absl/strings/str_cat.h"
#include "common/codegen/cpu_llvm_target.h"
#include "common/codegen/cpu_runtime.h"
#include "llvm/ExecutionEngine/Orc/ExecutionUtils.h"
#include "llvm/ExecutionEngine/Orc/LLJIT.h"
#include "llvm/Support/Error.h"
#include "llvm/Support/MemoryBuffer.h"

namespace pruner {
namespace {

std::string ErrorText(llvm::Error error) { return llvm::toString(std::move(error)); }

// One JIT per process, never destroyed (kernels may be referenced until
// exit). Its mutex also guards the cache.
struct Jit {
  std::mutex mu;
  std::unique_ptr<llvm::orc::LLJIT> lljit;
  absl::flat_hash_map<std::string, std::weak_ptr<const JitCpuKernel>> loaded;
  absl::Status init_status;
  int64_t dylibs_made = 0;  // JITDylib names must be unique
};

Jit& TheJit() {
  static Jit* jit = [] {
    auto* j = new Jit;
    absl::StatusOr<ResolvedCpuTarget> host = ResolveCpuTarget(LlvmCpuTarget{});  // initializes LLVM
    if (!host.ok()) {
      j->init_status = host.status();
      return j;
    }
    auto lljit = llvm::orc::LLJITBuilder().create();
    if (!lljit) {
      j->init_status = absl::InternalError(absl::StrCat("LLJIT: ", ErrorText(lljit.takeError())));
      return j;
    }
    j->lljit = std::move(*lljit);
    llvm::orc::JITDylib& main = j->lljit->getMainJITDylib();
    const char prefix = j->lljit->getDataLayout().getGlobalPrefix();
    auto process = llvm::orc::DynamicLibrarySearchGenerator::GetForCurrentProcess(prefix);
    if (!process) {
      j->init_status = absl::InternalError(ErrorText(process.takeError()));
      return j;
    }
    main.addGenerator(std::move(*process));
    // The runtime binds to this binary's functions whether or not the
    // binary exports its symbols.
    const auto flags = llvm::JITSymbolFlags::Exported | llvm::JITSymbolFlags::Callable;
    llvm::orc::SymbolMap runtime;
    runtime[j->lljit->mangleAndIntern("pruner_cpu_parallel_for")] = llvm::JITEvaluatedSymbol(
        llvm::pointerToJITTargetAddress(&pruner_cpu_parallel_for), flags);
    runtime[j->lljit->mangleAndIntern("pruner_cpu_alloc")] = llvm::JITEvaluatedSymbol(
        llvm::pointerToJITTargetAddress(&pruner_cpu_alloc), flags);
    runtime[j->lljit->mangleAndIntern("pruner_cpu_free")] = llvm::JITEvaluatedSymbol(
        llvm::pointerToJITTargetAddress(&pruner_cpu_free), flags);
    if (llvm::Error e = main.define(llvm::orc::absoluteSymbols(std::move(runtime)))) {
      j->init_status = absl::InternalError(ErrorText(std::move(e)));
    }
    return j;
  }();
  return *jit;
}

}  // namespace

JitCpuKernel::~JitCpuKernel() {
  Jit& jit = TheJit();
  std::lock_guard<std::mutex> lock(jit.mu);
  auto* dylib = static_cast<llvm::orc::JITDylib*>(dylib_);
  llvm::consumeError(jit.lljit->getExecutionSession().removeJITDylib(*dylib));
  auto it = jit.loaded.find(cache_key_);
  if (it != jit.loaded.end() && it->second.expired()) jit.loaded.erase(it);
}

absl::StatusOr<std::shared_ptr<const JitCpuKernel>> LoadCpuObject(const LlvmCpuObject& object) {
  Jit& jit = TheJit();
  if (!jit.init_status.ok()) return jit.init_status;
  std::lock_guard<std::mutex> lock(jit.mu);
  // One program built for two CPUs is two kernels.
  const std::string key = absl::StrCat(object.symbol, "/", object.cpu, "/", object.features);
  auto it = jit.loaded.find(key);
  if (it != jit.loaded.end()) {
    if (std::shared_ptr<const JitCpuKernel> alive = it->second.lock()) return alive;
  }
  auto dylib = jit.lljit->createJITDylib(absl::StrCat("kernel", ++jit.dylibs_made));
  if (!dylib) return absl::InternalError(absl::StrCat("JIT: ", ErrorText(dylib.takeError())));
  // The runtime, libm and libc come from the main library.
  dylib->addToLinkOrder(jit.lljit->getMainJITDylib());
  auto buffer = llvm::MemoryBuffer::getMemBufferCopy(object.object, object.symbol);
  absl::Status status;
  if (llvm::Error e = jit.lljit->addObjectFile(*dylib, std::move(buffer))) {
    status = absl::InternalError(
        absl::StrCat("JIT: adding ", object.symbol, ": ", ErrorText(std::move(e))));
  }
  auto address = status.ok() ? jit.lljit->lookup(*dylib, object.symbol)
                             : llvm::Expected<llvm::orc::ExecutorAddr>(llvm::orc::ExecutorAddr());
  if (status.ok() && !address) {
    status = absl::InternalError(
        absl::StrCat("JIT: linking ", object.symbol, ": ", ErrorText(address.takeError())));
  }
  if (!status.ok()) {
    llvm::consumeError(jit.lljit->getExecutionSession().removeJITDylib(*dylib));
    return status;
  }
  std::shared_ptr<const JitCpuKernel> kernel(
      new JitCpuKernel(address->toPtr<JitCpuKernel::EntryFn>(), object.symbol, key, &*dylib));
  jit.loaded[key] = kernel;
  return kernel;
}

int LoadedJitCpuKernels() {
  Jit& jit = TheJit();
  std::lock_guard<std::mutex> lock(jit.mu);
  int alive = 0;
  for (const auto& [symbol, kernel] : jit.loaded) alive += kernel.expired() ? 0 : 1;
  return alive;
}

}  // namespace pruner
