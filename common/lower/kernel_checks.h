// The last steps of lowering: a kernel's launch configuration and facts read
// off its body, and the checks that reject schedules a device cannot run.
#ifndef PRUNER_COMMON_LOWER_KERNEL_CHECKS_H_
#define PRUNER_COMMON_LOWER_KERNEL_CHECKS_H_

#include "absl/status/status.h"
#include "common/device/device_profile.h"
#include "common/lower/program.h"

namespace pruner {

// Fills grid, block, stages, shared_bytes and local_bytes_per_thread from
// kernel->body. On GPUs the root stage's blockIdx/threadIdx loops give the
// launch dimensions; another stage of the kernel may bind a thread axis the
// root binds, with at most the root's extent (smaller extents are guarded by
// the For semantics, and must not enclose a barrier). Violations are
// InvalidArgument naming the stage.
absl::Status FinalizeKernel(const Program& program, Kernel* kernel);

// Device limits and target rules (see lower.h for the list).
absl::Status CheckProgramLimits(const Program& program, const DeviceProfile& device);

}  // namespace pruner

#endif  // PRUNER_COMMON_LOWER_KERNEL_CHECKS_H_
