#include "common/features/pacm_features.h"

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
  absl::StatusOr<Program> program = Lower(state, device);
  if (!program.ok()) return program.status();
  return ExtractPaCMFeatures(*program, ComputeWorkloadTag(*state.original_dag()), device);
}

}  // namespace pruner
