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

namespace pruner {

// "pruner_cpu_<16 hex digits>": a hash of the program text, so equal programs
// get equal entry points and different ones (almost surely) different ones.
std::string CpuKernelSymbol(const Program& program);

// The flat row-major element offset of buffer[indices], simplified with
// `ranges` (the loops in scope). InvalidArgument for an unknown buffer or a
// wrong number of indices.
absl::StatusOr<Expr> FlatBufferOffset(const Program& program, int buffer,
                                      const std::vector<Expr>& indices, const VarRangeFn& ranges);

// TVM's unroll step count: one per store, times the extent of each loop. A
// vectorized loop counts once: TVM vectorizes before it unrolls, so by then
// the loop is one vector statement. (Counting its lanes kept a 14 x 16-lane
// conv2d register tile from being unrolled unless the schedule drew the
// largest auto_unroll_max_step, and without the unroll the tile stays in
// memory.) Saturates at 2^40.
int64_t UnrollStepCount(const Stmt& s);

// True when a serial loop inside the scope of auto_unroll_max_step = budget
// is unrolled: its steps, extent included, are within the budget.
bool WithinUnrollBudget(const StmtNode& loop, int64_t budget);

// True when the iterations of `loop` may run as lanes of one vector (all
// reads of a statement before its writes, statement after statement): each
// store writes a different element in each iteration (an index is affine in
// the loop variable with a non-zero coefficient), and a buffer written in the
// loop is read only by the accumulation of its own store, at the stored
// element.
bool IterationsIndependent(const StmtNode& loop);

}  // namespace pruner

#endif  // PRUNER_COMMON_CODEGEN_CPU_LOOP_RULES_H_
