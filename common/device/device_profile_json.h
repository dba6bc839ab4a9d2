// JSON form of a DeviceProfile: how workers report their device to the
// scheduler. Keys are the struct's field names; "kind" is "cpu" or "gpu".
#ifndef PRUNER_COMMON_DEVICE_DEVICE_PROFILE_JSON_H_
#define PRUNER_COMMON_DEVICE_DEVICE_PROFILE_JSON_H_

#include <string>
#include <string_view>

#include <nlohmann/json_fwd.hpp>

#include "absl/status/statusor.h"
#include "common/device/device_profile.h"

namespace pruner {

// Every field, including those that are 0 (unknown).
nlohmann::json DeviceProfileToJson(const DeviceProfile& profile);

// "name" and "kind" are required. Absent fields stay 0 (unknown), so a
// worker may report only what it could query; keys we do not know are
// ignored, so newer workers can report more. A present field of the wrong
// type or out of range is InvalidArgument.
absl::StatusOr<DeviceProfile> DeviceProfileFromJson(const nlohmann::json& j);

// indent < 0: one line.
std::string DeviceProfileToJsonString(const DeviceProfile& profile,
                                      int indent = -1);
absl::StatusOr<DeviceProfile> DeviceProfileFromJsonString(
    std::string_view text);

}  // namespace pruner

#endif  // PRUNER_COMMON_DEVICE_DEVICE_PROFILE_JSON_H_
