// Prints program expressions (common/ir Exprs over loop variables and buffer
// reads) as C++ expressions for the CPU code generator.
//
// Integer expressions are int64_t arithmetic, float ones float arithmetic,
// so the compiled code computes what the interpreter computes. Buffer reads
// print as flat row-major offsets into the buffer's pointer; floordiv and
// floormod print as plain '/' and '%' where the operand is provably
// non-negative and the divisor a positive constant (the common case, and the
// one the vectorizer handles), and as the pr_floordiv/pr_floormod helpers of
// the generated preamble otherwise.
#ifndef PRUNER_COMMON_CODEGEN_CPU_EXPR_PRINTER_H_
#define PRUNER_COMMON_CODEGEN_CPU_EXPR_PRINTER_H_

#include <cstdint>
#include <string>
#include <vector>

#include "absl/container/flat_hash_map.h"
#include "absl/status/statusor.h"
#include "common/ir/expr.h"
#include "common/lower/index_simplify.h"
#include "common/lower/program.h"

namespace pruner::cpu_codegen {

// A C identifier made of the letters and digits of `name` ('.', '@' and the
// like become '_'), prefixed so that it never starts with a digit or meets a
// keyword or a preamble helper.
std::string SanitizeName(const std::string& prefix, const std::string& name);

// An exact float literal: hex float with an 'f' suffix, or a builtin for
// infinities and NaN.
std::string FloatLiteral(double value);

// The helpers printed expressions may call; goes at the top of the unit.
std::string Preamble();

class ExprPrinter {
 public:
  ExprPrinter(const Program& program, std::vector<std::string> buffer_names)
      : program_(program), buffer_names_(std::move(buffer_names)) {}

  // Loop variables in scope and their ranges; printing a variable outside
  // every enclosing loop is an error.
  void EnterLoop(int var, int64_t extent);
  void ExitLoop(int var);
  std::string VarName(int var) const;

  // A C++ expression for e; InvalidArgument on variables without a loop,
  // unknown buffers or wrong index ranks.
  absl::StatusOr<std::string> Print(const Expr& e) const;
  // The flat element offset of buffer[indices], simplified with the loop
  // ranges in scope.
  absl::StatusOr<std::string> FlatOffset(int buffer, const std::vector<Expr>& indices) const;
  const std::string& BufferName(int buffer) const { return buffer_names_[buffer]; }

 private:
  VarRangeFn Ranges() const;
  bool ProvablyNonNegative(const Expr& e) const;
  absl::StatusOr<std::string> PrintBinary(const ExprNode& n) const;

  const Program& program_;
  std::vector<std::string> buffer_names_;
  absl::flat_hash_map<int, int64_t> extents_;  // loop variables in scope
};

}  // namespace pruner::cpu_codegen

#endif  // PRUNER_COMMON_CODEGEN_CPU_EXPR_PRINTER_H_
