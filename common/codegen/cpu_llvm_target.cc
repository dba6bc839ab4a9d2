#include "common/codegen/cpu_llvm_target.h"

#include <algorithm>
#include <memory>
#include <mutex>
#include <string>
#include <vector>

#include "absl/status/status.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "llvm/ADT/SmallVector.h"
#include "llvm/ADT/StringMap.h"
#include "llvm/IR/LegacyPassManager.h"
#include "llvm/MC/MCSubtargetInfo.h"
#include "llvm/MC/TargetRegistry.h"
#include "llvm/Support/Host.h"
#include "llvm/Support/TargetSelect.h"
#include "llvm/Support/raw_ostream.h"
#include "llvm/Target/TargetOptions.h"

namespace pruner {
namespace {

void InitializeLlvmOnce() {
  static std::once_flag once;
  std::call_once(once, [] {
    llvm::InitializeNativeTarget();
    llvm::InitializeNativeTargetAsmPrinter();
    llvm::InitializeNativeTargetAsmParser();
  });
}

std::string HostFeatures() {
  llvm::StringMap<bool> features;
  std::vector<std::string> parts;
  if (llvm::sys::getHostCPUFeatures(features)) {
    for (const auto& f : features) parts.push_back(absl::StrCat(f.second ? "+" : "-", f.first().str()));
  }
  std::sort(parts.begin(), parts.end());
  return absl::StrJoin(parts, ",");
}

}  // namespace

absl::StatusOr<ResolvedCpuTarget> ResolveCpuTarget(const LlvmCpuTarget& target) {
  InitializeLlvmOnce();
  ResolvedCpuTarget out;
  const bool native = target.cpu.empty() || target.cpu == "native";
  const std::string triple = llvm::sys::getProcessTriple();
  if (llvm::StringRef(triple).find("x86_64") != 0) {
    return absl::FailedPreconditionError(
        absl::StrCat("the LLVM CPU backend covers x86-64 hosts; this one is ", triple));
  }
  std::string error;
  const llvm::Target* llvm_target = llvm::TargetRegistry::lookupTarget(triple, error);
  if (llvm_target == nullptr) {
    return absl::FailedPreconditionError(absl::StrCat("LLVM has no target for ", triple, ": ", error));
  }
  if (native) {
    out.cpu = llvm::sys::getHostCPUName().str();
    out.features = HostFeatures();
  } else {
    out.cpu = target.cpu;
  }
  std::unique_ptr<llvm::MCSubtargetInfo> subtarget(
      llvm_target->createMCSubtargetInfo(triple, out.cpu, out.features));
  if (subtarget == nullptr || !subtarget->isCPUStringValid(out.cpu)) {
    return absl::InvalidArgumentError(absl::StrCat(
        "'", out.cpu, "' is not an x86-64 CPU LLVM knows (the LLVM backend covers x86-64; "
        "build other targets with the g++ backend)"));
  }
  if (subtarget->checkFeatures("+avx512f")) {
    out.vector_bits = 512;
  } else if (subtarget->checkFeatures("+avx")) {
    out.vector_bits = 256;
  }
  llvm::TargetOptions options;
  const llvm::CodeGenOpt::Level level =
      target.opt_level >= 3   ? llvm::CodeGenOpt::Aggressive
      : target.opt_level == 2 ? llvm::CodeGenOpt::Default
      : target.opt_level == 1 ? llvm::CodeGenOpt::Less
                              : llvm::CodeGenOpt::None;
  out.machine.reset(llvm_target->createTargetMachine(triple, out.cpu, out.features, options,
                                                     llvm::Reloc::PIC_, llvm::None, level));
  if (out.machine == nullptr) {
    return absl::InternalError(absl::StrCat("LLVM could not make a target machine for ", out.cpu));
  }
  return out;
}

absl::StatusOr<std::string> EmitMachineCode(llvm::Module& module, llvm::TargetMachine& machine,
                                            llvm::CodeGenFileType file_type) {
  llvm::SmallVector<char, 0> buffer;
  llvm::raw_svector_ostream os(buffer);
  llvm::legacy::PassManager codegen;
  if (machine.addPassesToEmitFile(codegen, os, nullptr, file_type)) {
    return absl::InternalError("LLVM cannot emit machine code of this kind for this target");
  }
  codegen.run(module);
  return std::string(buffer.begin(), buffer.end());
}

}  // namespace pruner
