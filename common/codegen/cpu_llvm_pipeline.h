// The optimization pipeline of the LLVM CPU backend (cpu_llvm_codegen.h).
//
// The emitter already writes what the schedule decided: vector operations of
// the annotated width, unrolled loops unrolled, a noalias scope per buffer.
// LLVM's own -O3 module pipeline was made for C++ from a front end
// (inlining, interprocedural passes, instcombine eight times over, induction
// variable rewriting); on our kernels it was 62% of the in-process compile.
// The kernel pipeline runs each pass the kernels need once or twice:
// scalar replacement, CSE and instcombine on the index arithmetic, loop
// rotation and LICM (which keeps register-tile accumulators in registers
// across the reduction loop), GVN and dead-store elimination (without them
// instruction selection gets more to do than they cost), and LLVM's loop and
// SLP vectorizers for the loops the schedule left scalar, as g++ -O3 gives
// them. IndVarSimplify is left out: it was the most expensive pass on
// unrolled bodies (28% of the whole compile) and loop strength reduction in
// the code generator does the addressing.
#ifndef PRUNER_COMMON_CODEGEN_CPU_LLVM_PIPELINE_H_
#define PRUNER_COMMON_CODEGEN_CPU_LLVM_PIPELINE_H_

namespace llvm {
class Module;
class TargetMachine;
}  // namespace llvm

namespace pruner {

enum class LlvmPipeline {
  kKernel,      // the pipeline above at opt level 3; LLVM's own below it
  kLlvmDefault, // LLVM's -O<level> module pipeline (for comparison)
};

void OptimizeCpuModule(llvm::Module& module, llvm::TargetMachine* machine, int opt_level,
                       LlvmPipeline pipeline);

}  // namespace pruner

#endif  // PRUNER_COMMON_CODEGEN_CPU_LLVM_PIPELINE_H_
