// The naive reference executor: runs a ComputeDag directly from its
// definition, one op after another, on host tensors. Every measured program
// is compared against it, so it favours obvious correctness over speed, yet
// compiles each body once (no tree walking per element) so that realistic
// workloads finish in a second or two.
#ifndef PRUNER_COMMON_IR_REFERENCE_H_
#define PRUNER_COMMON_IR_REFERENCE_H_

#include <cstdint>
#include <functional>
#include <vector>

#include "absl/status/statusor.h"
#include "common/ir/compute_dag.h"
#include "common/ir/expr.h"
#include "common/ir/tensor.h"

namespace pruner {

// Runs every compute op in order and returns the outputs, in
// dag.OutputIndices() order. `inputs` holds one tensor per placeholder, in
// dag.InputIndices() order, with matching dtype and shape.
//
// Float math happens in float (float16 too), reductions accumulate in float
// over the reduce axes in lexicographic order, as a naive loop nest would.
// A read outside its tensor, or an integer division by zero, is an error
// (it means the DAG is broken), never undefined behaviour.
absl::StatusOr<std::vector<Tensor>> RunReference(const ComputeDag& dag,
                                                 const std::vector<Tensor>& inputs);

// Like RunReference, but returns every op's tensor, indexed like dag.ops():
// placeholders hold copies of the inputs.
absl::StatusOr<std::vector<Tensor>> RunReferenceAll(const ComputeDag& dag,
                                                    const std::vector<Tensor>& inputs);

// One random tensor per placeholder (see FillRandom), seeded by `seed` and
// the placeholder's position, ready for RunReference. The packed weight of a
// Winograd convolution is the packing of random 3x3 weights
// (WinogradPackWeights), as in a model.
std::vector<Tensor> RandomInputs(const ComputeDag& dag, uint64_t seed);

// Resolves a read for EvaluateExpr: receives the kRead node and its evaluated
// indices and returns the element's value.
using ReadFn =
    std::function<absl::StatusOr<double>(const ExprNode& read, const std::vector<int64_t>& index)>;

// Evaluates one expression with variable i bound to var_values[i], using the
// same scalar semantics as the executor (float math in float; integer
// floordiv/floormod round toward negative infinity). Integer and bool results
// come back as doubles (bools as 0 or 1). Reads go through `read`; without it
// any read is an error.
absl::StatusOr<double> EvaluateExpr(const Expr& e, const std::vector<int64_t>& var_values,
                                    const ReadFn& read = nullptr);

}  // namespace pruner

#endif  // PRUNER_COMMON_IR_REFERENCE_H_
