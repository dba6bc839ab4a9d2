// Rules both CPU backends (the g++ path, cpu_codegen.h, and the LLVM path,
// cpu_llvm_codegen.h) apply to a lowered program, kept in one place so the
// two make the same choices for the same schedule.
#ifndef PRUNER_COMMON_CODEGEN_CPU_LOOP_RULES_H_
#define PRUNER_COMMON_CODEGEN_CPU_LOOP_RULES_H_

#include <cstdint>
#include <string>
#include <vector>

#include "absl/status/statusor.h"
#include "common/lower/index_simplify.h"
#include "common/lower/program.h"
#include "common/lower/unroll_rules.h"

// UnrollStepCount and WithinUnrollBudget: common/lower/unroll_rules.h.

namespace pruner {

// "pruner_cpu_<16 hex digits>": a hash of the program text, so equal programs
// get equal entry points and different ones (almost surely) different ones.
std::string CpuKernelSymbol(const Program& program);

// The flat row-major element offset of buffer[indices], simplified with
// `ranges` (the loops in scope). InvalidArgument for an unknown buffer or a
// wrong number of indices.
absl::StatusOr<Expr> FlatBufferOffset(const Program& program, int buffer,
                                      const std::vector<Expr>& indices, const VarRangeFn& ranges);

// True when the iterations of `loop` may run as lanes of one vector (all
// reads of a statement before its writes, statement after statement): each
// store writes a different element in each iteration (an index is affine in
// the loop variable with a non-zero coefficient), and a buffer written in the
// loop is read only by the accumulation of its own store, at the stored
// element.
bool IterationsIndependent(const StmtNode& loop);

}  // namespace pruner

#endif  // PRUNER_COMMON_CODEGEN_CPU_LOOP_RULES_H_
