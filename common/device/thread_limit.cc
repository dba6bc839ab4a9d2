#include "common/device/thread_limit.h"

namespace pruner {

DeviceProfile WithThreadLimit(DeviceProfile device, int threads) {
  if (device.IsGpu() || threads <= 0 || device.num_cores <= threads) return device;
  device.peak_gflops *= static_cast<double>(threads) / device.num_cores;
  device.num_cores = threads;
  if (device.physical_cores > threads) device.physical_cores = threads;
  return device;
}

}  // namespace pruner
