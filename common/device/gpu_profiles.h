// The built-in NVIDIA GPU profiles. Numbers and their sources are in
// gpu_profiles.cc.
#ifndef PRUNER_COMMON_DEVICE_GPU_PROFILES_H_
#define PRUNER_COMMON_DEVICE_GPU_PROFILES_H_

#include "common/device/device_profile.h"

namespace pruner {

DeviceProfile A100Sxm40GbProfile();  // "a100-40gb"
DeviceProfile JetsonAgxOrinProfile();  // "jetson-orin"
DeviceProfile TitanVProfile();         // "titan-v"
DeviceProfile H100SxmProfile();        // "h100-sxm"
DeviceProfile H200SxmProfile();        // "h200-sxm"

}  // namespace pruner

#endif  // PRUNER_COMMON_DEVICE_GPU_PROFILES_H_
