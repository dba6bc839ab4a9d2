// The x86-64 CPU an LLVM-backend kernel is built for: its name, its feature
// list, the widest vector it has, and a TargetMachine for it. Only the LLVM
// backend's own files include this (it carries LLVM types).
#ifndef PRUNER_COMMON_CODEGEN_CPU_LLVM_TARGET_H_
#define PRUNER_COMMON_CODEGEN_CPU_LLVM_TARGET_H_

#include <memory>
#include <string>

#include "absl/status/statusor.h"
#include "common/codegen/cpu_llvm_codegen.h"
#include "llvm/IR/Module.h"
#include "llvm/Target/TargetMachine.h"

namespace pruner {

struct ResolvedCpuTarget {
  std::string cpu;       // an LLVM CPU name
  std::string features;  // "+avx2,+fma,-avx512f,..." ("" for a named CPU's own)
  int vector_bits = 128; // 512 with AVX-512F, 256 with AVX, else 128
  std::unique_ptr<llvm::TargetMachine> machine;
};

// "native"/"" is this host as the kernel reports it. Other names must be
// x86-64 CPUs LLVM knows (InvalidArgument otherwise: other ISAs stay on the
// g++ path).
absl::StatusOr<ResolvedCpuTarget> ResolveCpuTarget(const LlvmCpuTarget& target);

// The machine code of a module ready for the target: an ELF object
// (llvm::CGFT_ObjectFile) or assembly text (llvm::CGFT_AssemblyFile).
absl::StatusOr<std::string> EmitMachineCode(llvm::Module& module, llvm::TargetMachine& machine,
                                            llvm::CodeGenFileType file_type);

}  // namespace pruner

#endif  // PRUNER_COMMON_CODEGEN_CPU_LLVM_TARGET_H_
