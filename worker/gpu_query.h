// Asks the CUDA driver about GPU 0 from a forked sandbox child, never from
// the worker process itself: a process that initialized the driver cannot
// use it in children it forks afterwards, and every GPU measurement runs in
// such a child (see common/measure/cuda_runner_sandboxed.h). Querying in the
// parent would leave the worker unable to run a single kernel.
#ifndef PRUNER_WORKER_GPU_QUERY_H_
#define PRUNER_WORKER_GPU_QUERY_H_

#include <string>

#include "absl/status/statusor.h"
#include "common/codegen/cuda_driver.h"

namespace pruner {

// Device 0's properties; FailedPrecondition with the driver's message ("no
// CUDA driver: ...", "no CUDA device") when there is none.
absl::StatusOr<CudaDeviceProperties> QueryGpuInSandbox();

// The child's reply, exposed for tests: Encode on one side of the pipe,
// Decode on the other (InvalidArgument for a garbled reply).
std::string EncodeGpuQueryReply(const absl::StatusOr<CudaDeviceProperties>& properties);
absl::StatusOr<CudaDeviceProperties> DecodeGpuQueryReply(const std::string& reply);

}  // namespace pruner

#endif  // PRUNER_WORKER_GPU_QUERY_H_
