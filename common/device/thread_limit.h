#ifndef PRUNER_COMMON_DEVICE_THREAD_LIMIT_H_
#define PRUNER_COMMON_DEVICE_THREAD_LIMIT_H_

#include "common/device/device_profile.h"

namespace pruner {

// The CPU `device` as a search sees it when its kernels run on `threads` of
// its hardware threads (TVM_NUM_THREADS, or `measure.num_threads`): num_cores
// and physical_cores at most `threads`, peak_gflops scaled by the share of
// threads kept. The name is kept: records, checkpoints and calibrations stay
// keyed by the device. Memory bandwidth is kept too: one core alone draws
// much more than its share of DRAM bandwidth. Without this, a tuner pinned to
// one thread of a 2-core machine drafts as if every parallel loop ran twice
// as fast, and its sketches size parallel loops for cores it never gets
// (Ansor's HardwareParams take num_cores from the thread pool's size for the
// same reason). `threads` <= 0 or >= num_cores, and GPUs: unchanged.
DeviceProfile WithThreadLimit(DeviceProfile device, int threads);

}  // namespace pruner

#endif  // PRUNER_COMMON_DEVICE_THREAD_LIMIT_H_
