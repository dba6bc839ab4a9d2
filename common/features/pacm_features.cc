#include "common/features/pacm_features.h"

#include "common/base/status_macros.h"
#include "common/lower/lower.h"

namespace pruner {

PaCMFeatures ExtractPaCMFeatures(const Program& program, const WorkloadTag& tag,
                                 const DeviceProfile& device) {
  PaCMFeatures out;
  out.tag = tag;
  out.dataflow = ExtractDataflowAndStatementFeatures(program, device, &out.statements);
  return out;
}

absl::StatusOr<PaCMFeatures> ExtractPaCMFeatures(const State& state, const DeviceProfile& device) {
  PRUNER_ASSIGN_OR_RETURN(Program program, Lower(state, device));
  return ExtractPaCMFeatures(program, ComputeWorkloadTag(*state.original_dag()), device);
}

}  // namespace pruner
