#include "common/device/device_profile_json.h"

#include <array>
#include <cstdint>
#include <limits>
#include <type_traits>

#include <nlohmann/json.hpp>

#include "absl/strings/str_cat.h"
#include "common/device/profile_fields.h"
#include "common/base/absl_compat.h"

namespace pruner {
namespace {

using nlohmann::json;

struct WriteField {
  json& out;
  template <typename T>
  void operator()(std::string_view key, const T& value) const {
    out[std::string(key)] = value;
  }
};

// Reads one integer, rejecting non-integers and values outside T.
template <typename T>
absl::Status ReadInteger(std::string_view key, const json& value, T& field) {
  if (!value.is_number_integer()) {
    return absl::InvalidArgumentError(
        absl::StrCat("'", ToAbsl(key), "' must be an integer"));
  }
  bool fits = value.is_number_unsigned()
                  ? value.get<uint64_t>() <=
                        static_cast<uint64_t>(std::numeric_limits<T>::max())
                  : value.get<int64_t>() >= std::numeric_limits<T>::min() &&
                        value.get<int64_t>() <= std::numeric_limits<T>::max();
  if (!fits) {
    return absl::InvalidArgumentError(
        absl::StrCat("'", ToAbsl(key), "' is out of range"));
  }
  field = static_cast<T>(value.get<int64_t>());
  return absl::OkStatus();
}

// Reads every known key present in `in`; remembers the first error.
struct ReadField {
  const json& in;
  absl::Status status;

  template <typename T>
  void operator()(std::string_view key, T& field) {
    auto it = in.find(std::string(key));
    if (!status.ok() || it == in.end()) return;
    status = Read(key, *it, field);
  }

  static absl::Status Read(std::string_view key, const json& value,
                           std::string& field) {
    if (!value.is_string()) {
      return absl::InvalidArgumentError(
          absl::StrCat("'", ToAbsl(key), "' must be a string"));
    }
    field = value.get<std::string>();
    return absl::OkStatus();
  }
  static absl::Status Read(std::string_view key, const json& value,
                           double& field) {
    if (!value.is_number()) {
      return absl::InvalidArgumentError(
          absl::StrCat("'", ToAbsl(key), "' must be a number"));
    }
    field = value.get<double>();
    return absl::OkStatus();
  }
  static absl::Status Read(std::string_view key, const json& value,
                           int& field) {
    return ReadInteger(key, value, field);
  }
  static absl::Status Read(std::string_view key, const json& value,
                           int64_t& field) {
    return ReadInteger(key, value, field);
  }
  static absl::Status Read(std::string_view key, const json& value,
                           std::array<int64_t, 3>& field) {
    if (!value.is_array() || value.size() != field.size()) {
      return absl::InvalidArgumentError(
          absl::StrCat("'", ToAbsl(key), "' must be an array of 3 integers"));
    }
    for (size_t i = 0; i < field.size(); ++i) {
      absl::Status s = ReadInteger(key, value[i], field[i]);
      if (!s.ok()) return s;
    }
    return absl::OkStatus();
  }
};

}  // namespace

json DeviceProfileToJson(const DeviceProfile& profile) {
  json out = json::object();
  out["kind"] = std::string(DeviceKindName(profile.kind));
  device_internal::VisitProfileFields(WriteField{out}, profile);
  return out;
}

absl::StatusOr<DeviceProfile> DeviceProfileFromJson(const json& j) {
  if (!j.is_object()) {
    return absl::InvalidArgumentError("device profile must be a JSON object");
  }
  auto kind_it = j.find("kind");
  if (kind_it == j.end() || !kind_it->is_string()) {
    return absl::InvalidArgumentError(
        "device profile needs \"kind\": \"cpu\" or \"gpu\"");
  }
  std::optional<DeviceKind> kind =
      ParseDeviceKind(kind_it->get<std::string>());
  if (!kind) {
    return absl::InvalidArgumentError(absl::StrCat(
        "unknown device kind '", kind_it->get<std::string>(),
        "' (want \"cpu\" or \"gpu\")"));
  }
  DeviceProfile profile;
  profile.kind = *kind;
  ReadField reader{j, absl::OkStatus()};
  device_internal::VisitProfileFields(reader, profile);
  if (!reader.status.ok()) return reader.status;
  if (profile.name.empty()) {
    return absl::InvalidArgumentError("device profile needs a \"name\"");
  }
  return profile;
}

std::string DeviceProfileToJsonString(const DeviceProfile& profile,
                                      int indent) {
  return DeviceProfileToJson(profile).dump(indent);
}

absl::StatusOr<DeviceProfile> DeviceProfileFromJsonString(
    std::string_view text) {
  json parsed = json::parse(text, /*cb=*/nullptr, /*allow_exceptions=*/false);
  if (parsed.is_discarded()) {
    return absl::InvalidArgumentError("device profile is not valid JSON");
  }
  return DeviceProfileFromJson(parsed);
}

}  // namespace pruner
