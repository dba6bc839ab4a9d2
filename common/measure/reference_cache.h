// Random inputs and reference outputs per workload, computed once and
// shared by every schedule of that workload: the naive executor takes up to
// a second or two on realistic shapes, far more than a measured run.
#ifndef PRUNER_COMMON_MEASURE_REFERENCE_CACHE_H_
#define PRUNER_COMMON_MEASURE_REFERENCE_CACHE_H_

#include <cstdint>
#include <memory>
#include <vector>

#include "absl/status/statusor.h"
#include "common/ir/compute_dag.h"
#include "common/ir/tensor.h"

namespace pruner {

struct ReferenceData {
  std::vector<Tensor> inputs;   // RandomInputs(dag, seed): non-zero values
  std::vector<Tensor> outputs;  // RunReference(dag, inputs)
};

// Thread-safe and process-wide, keyed by (dag.WorkloadKey(), seed); holds
// at most a few dozen workloads (it is cleared when full, as a tuning
// session moves on from task to task).
absl::StatusOr<std::shared_ptr<const ReferenceData>> GetReferenceData(const ComputeDag& dag,
                                                                      uint64_t seed);

}  // namespace pruner

#endif  // PRUNER_COMMON_MEASURE_REFERENCE_CACHE_H_
