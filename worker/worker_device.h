// The device a worker measures on, resolved from its --device flag:
// - "cpu" (or any CPU alias): this machine's CPU as detected from /proc and
//   /sys, keyed by what it is ("cpu-amd-epyc-9b45-2t-avx512f") so that
//   records of different CPUs never mix.
// - a GPU profile name ("a100", "h100", "h200", "orin", "titan-v"): the built-in
//   profile, checked against and completed by what the CUDA driver reports
//   for device 0 (asked from a sandbox child: see gpu_query.h). Without a
//   driver or a GPU the worker refuses to start: a GPU worker that cannot
//   run kernels would turn every lease into device errors. The measurement
//   engine always uses device 0, so a host with several GPUs runs one
//   worker per GPU with CUDA_VISIBLE_DEVICES.
#ifndef PRUNER_WORKER_WORKER_DEVICE_H_
#define PRUNER_WORKER_WORKER_DEVICE_H_

#include <cstdint>
#include <string_view>

#include "absl/status/statusor.h"
#include "common/codegen/cuda_driver.h"
#include "common/device/device_profile.h"
#include "pruner/v1/types.pb.h"

namespace pruner {

struct WorkerDevice {
  DeviceProfile profile;     // profile.name is the key jobs target
  int64_t memory_bytes = 0;  // GPU global memory; 0 on CPUs
};

absl::StatusOr<WorkerDevice> ResolveWorkerDevice(std::string_view name);

// The GPU as the driver describes it, named after `builtin` and checked
// against it (FailedPrecondition listing the mismatches, e.g. an A100
// profile requested on an H100); fields the driver does not report keep the
// built-in values.
absl::StatusOr<WorkerDevice> GpuDeviceFromProperties(const CudaDeviceProperties& properties,
                                                     const DeviceProfile& builtin);

// DeviceToWire plus what the profile does not hold (memory).
v1::Device WorkerDeviceToWire(const WorkerDevice& device);

}  // namespace pruner

#endif  // PRUNER_WORKER_WORKER_DEVICE_H_
