// Runs a lowered Program on the CPU: the reference for GPU schedules on a
// machine without a GPU, and a check that lowering keeps a schedule's
// meaning.
//
// Semantics
// - Kernels run in order. A GPU kernel runs block by block; inside a block,
//   threads run one barrier phase at a time: a statement with no barrier
//   inside runs to completion for each thread in turn (thread x fastest); a
//   Seq runs its children in order; a loop with a barrier inside runs each
//   iteration for all threads before the next; an if with a barrier inside
//   must take the same branch in every thread. Local buffers are per thread,
//   shared buffers per block, everything else global.
// - A For bound to blockIdx/threadIdx sets its variable to the hardware index
//   and runs its body only where the index is below its extent. Parallel,
//   vectorized, unrolled and vthread loops run serially.
// - Newly allocated buffers (Allocate, intermediates) are filled with NaN so
//   that reading a value nobody wrote shows up in the results.
// - Every buffer access is bounds-checked; an out-of-bounds access, an
//   integer division by zero or a barrier in divergent code is an error
//   (OutOfRange / InvalidArgument), never undefined behaviour.
//
// Speed: compile once, run many times. Store nests compile into
// column-at-a-time evaluators over chunks of their innermost loops with
// precomputed affine offsets (see interp_expr.h).
#ifndef PRUNER_COMMON_LOWER_INTERPRETER_H_
#define PRUNER_COMMON_LOWER_INTERPRETER_H_

#include <memory>
#include <vector>

#include "absl/status/statusor.h"
#include "common/ir/tensor.h"
#include "common/lower/program.h"

namespace pruner {

class CompiledProgram {
 public:
  // Fails (InvalidArgument) on programs the interpreter cannot run:
  // mismatched index ranks, variables without a loop, type errors.
  static absl::StatusOr<CompiledProgram> Compile(const Program& program);

  CompiledProgram(CompiledProgram&&) noexcept;
  CompiledProgram& operator=(CompiledProgram&&) noexcept;
  ~CompiledProgram();

  // `inputs` in Program::inputs order (= ComputeDag::InputIndices() order)
  // with matching shapes; returns outputs in Program::outputs order (=
  // ComputeDag::OutputIndices() order). Thread-compatible: concurrent Runs on
  // one CompiledProgram are safe.
  absl::StatusOr<std::vector<Tensor>> Run(const std::vector<Tensor>& inputs) const;

 private:
  struct Impl;
  explicit CompiledProgram(std::unique_ptr<Impl> impl);
  std::unique_ptr<Impl> impl_;
};

// Compile and Run in one call.
absl::StatusOr<std::vector<Tensor>> RunProgram(const Program& program,
                                               const std::vector<Tensor>& inputs);

}  // namespace pruner

#endif  // PRUNER_COMMON_LOWER_INTERPRETER_H_
