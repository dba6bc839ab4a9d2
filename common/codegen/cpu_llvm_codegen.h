// The LLVM CPU backend: a lowered CPU Program -> LLVM IR -> optimized ->
// machine code, all in this process (no compiler process, no header parsing).
//
// It says in the IR what the schedule says, instead of hoping a C++ compiler
// finds it (cpu_codegen.h is the g++ path, kept as a cross-check and for
// targets this one does not cover):
// - a vectorized loop becomes vector operations as wide as the loop, in
//   power-of-two pieces of at most kLlvmMaxVectorLanes lanes: contiguous accesses are vector loads and
//   stores with the alignment the index proves, other lane-varying accesses
//   gathers and scatters, lane-varying guards and select branches masks (a
//   masked-off lane never touches memory). A loop whose body is not a
//   straight list of stores, or whose iterations depend on each other in a
//   way lanes cannot honour, stays a loop and goes to LLVM's vectorizer;
// - unrolled loops (always), serial loops within an auto_unroll_max_step
//   budget (TVM's step count, as the g++ path counts it) and small serial
//   loops (16 steps, as -O3 fully unrolls small loops) are unrolled here, so a
//   register tile (a local buffer whose elements under the reduction loop
//   are a few vectors at fixed addresses) reaches LLVM as straight-line code
//   that its loop-invariant code motion keeps in registers across the
//   reduction;
// - every buffer gets its own alias scope (buffers never overlap), so loads
//   and stores of different buffers are known not to alias;
// - the outermost parallel loop is outlined and run on cpu_runtime.h's pool;
// - float arithmetic may contract into FMAs (as g++'s default
//   -ffp-contract=fast does) and is otherwise not reassociated.
// At opt level 3 the IR is optimized by the kernel pipeline of
// cpu_llvm_pipeline.h (LLVM's own -O3 on request, for comparison).
//
// The entry point and its argument contract are cpu_codegen.h's:
//   extern "C" int <symbol>(float* const* args);
// with the runtime's symbols (pruner_cpu_parallel_for, pruner_cpu_alloc,
// pruner_cpu_free) and libm's left for the loader to bind.
#ifndef PRUNER_COMMON_CODEGEN_CPU_LLVM_CODEGEN_H_
#define PRUNER_COMMON_CODEGEN_CPU_LLVM_CODEGEN_H_

#include <cstdint>
#include <string>

#include "absl/status/statusor.h"
#include "common/lower/program.h"
#include "common/lower/vector_pieces.h"

namespace pruner {

// The widest vector one piece of a vectorized loop becomes; a loop of up to
// kLlvmMaxVectorizedExtent iterations goes out as several pieces.
inline constexpr int64_t kLlvmMaxVectorLanes = kMaxVectorPieceLanes;
inline constexpr int64_t kLlvmMaxVectorizedExtent = 4 * kLlvmMaxVectorLanes;
// Programs whose IR before optimization exceeds this many instructions (or
// that unroll into more than 16,384 stores) are refused as invalid
// schedules: unrolling gone too far, which would stall the in-process
// compiler for seconds.
inline constexpr int64_t kLlvmMaxInstructions = 150000;

struct LlvmCpuTarget {
  // An LLVM CPU name ("skylake-avx512", "sapphirerapids", "znver3"), or
  // "native" for this host (its name and its feature list as the kernel
  // probes them); "" means "native".
  std::string cpu = "native";
  int opt_level = 3;  // 0..3
  // At opt level 3, the kernel pipeline (cpu_llvm_pipeline.h) unless this
  // asks for LLVM's own -O3 (to compare the two).
  bool llvm_default_pipeline = false;
};

// An object file in memory, ready for the JIT (cpu_llvm_jit.h) or a linker.
struct LlvmCpuObject {
  std::string symbol;
  std::string object;    // ELF relocatable object
  std::string cpu;       // the resolved CPU name
  std::string features;  // the target features it was built with
  double compile_seconds = 0;  // IR emission + optimization + machine code
  double emit_seconds = 0;      // of which: lowered program -> IR
  double optimize_seconds = 0;  //           the optimization pipeline
  double codegen_seconds = 0;   //           IR -> object file
  int64_t ir_instructions = 0;  // before optimization
};

// The symbol is cpu_codegen.h's pruner_cpu_<hash of the program text>.
// InvalidArgument for programs the backend cannot run (not CPU programs,
// malformed ones, over kLlvmMaxInstructions) and for unknown CPU names.
absl::StatusOr<LlvmCpuObject> CompileCpuProgramLlvm(const Program& program,
                                                    const LlvmCpuTarget& target);

// The optimized IR as text (what the machine code is made of), for
// inspecting what the backend did.
absl::StatusOr<std::string> CpuProgramLlvmIr(const Program& program, const LlvmCpuTarget& target,
                                             bool optimized);

// The machine code CompileCpuProgramLlvm builds, as assembly text (AT&T
// syntax): what a developer reads to see which loads, spills and FMAs a
// schedule became.
absl::StatusOr<std::string> CpuProgramLlvmAssembly(const Program& program,
                                                   const LlvmCpuTarget& target);

}  // namespace pruner

#endif  // PRUNER_COMMON_CODEGEN_CPU_LLVM_CODEGEN_H_
