// CUDA C text for the scalar expressions of a lowered GPU program: index
// arithmetic, buffer reads (flattened row-major), float math. Internal to the
// CUDA code generator (cuda_codegen.cc).
//
// Integer values are C `int`: the generator rejects buffers with 2^31 or
// more elements, so every in-bounds flat index fits. floordiv/floormod keep
// the IR's round-toward-negative-infinity meaning through small device
// helpers, except where both operands are provably non-negative (loop
// variables, positive constants and sums/products of them), where plain
// `/` and `%` agree with it and compile to cheaper code.
#ifndef PRUNER_COMMON_CODEGEN_CUDA_EXPR_H_
#define PRUNER_COMMON_CODEGEN_CUDA_EXPR_H_

#include <string>
#include <vector>

#include "absl/status/statusor.h"
#include "common/ir/expr.h"
#include "common/lower/program.h"

namespace pruner::cuda_internal {

// Device helpers the printed expressions call (pr_floordiv, pr_min, ...).
// Printed once at the top of every module.
const char* CudaHelperPreamble();

// Shortest decimal text that reads back as exactly `value` rounded to
// float32, as a CUDA float literal: "0.5f", "3.0f", "(-1e-05f)". Infinities
// and NaN print as bit patterns (__int_as_float(0x7f800000)), since CUDA C
// has no literal for them without headers.
std::string CudaFloatLiteral(double value);

class CudaExprPrinter {
 public:
  // var_names: C identifier per program loop variable (empty: not in
  // scope); buffer_names: C identifier per program buffer.
  CudaExprPrinter(const Program& program, const std::vector<std::string>& var_names,
                  const std::vector<std::string>& buffer_names)
      : program_(program), var_names_(var_names), buffer_names_(buffer_names) {}

  absl::StatusOr<std::string> Print(const Expr& e) const;
  // "name[flat index]" for buffer[indices], row-major.
  absl::StatusOr<std::string> BufferAccess(int buffer, const std::vector<Expr>& indices) const;

 private:
  const Program& program_;
  const std::vector<std::string>& var_names_;
  const std::vector<std::string>& buffer_names_;
};

}  // namespace pruner::cuda_internal

#endif  // PRUNER_COMMON_CODEGEN_CUDA_EXPR_H_
