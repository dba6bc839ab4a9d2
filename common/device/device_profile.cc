#include "common/device/device_profile.h"

#include <algorithm>
#include <cctype>
#include <string>
#include <type_traits>

#include "absl/strings/ascii.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "common/device/gpu_profiles.h"
#include "common/device/profile_fields.h"
#include "common/base/absl_compat.h"

namespace pruner {
namespace {


// Detecting reads a few dozen small files; once per process is enough.
DeviceProfile CachedLocalCpu() {
  static const DeviceProfile* const local = new DeviceProfile(DetectLocalCpu());
  return *local;
}

struct BuiltinProfile {
  const char* name;
  DeviceProfile (*make)();
  // Accepted spellings besides `name`, already normalised (lower case, '-').
  std::vector<const char*> aliases;
};

const std::vector<BuiltinProfile>& BuiltinProfiles() {
  static const auto* const profiles = new std::vector<BuiltinProfile>{
      // "a100-40" is Pruner's --psa key a100_40 after normalisation.
      {"a100-40gb", A100Sxm40GbProfile, {"a100", "a100-40", "a100-sxm4-40gb"}},
      {"jetson-orin", JetsonAgxOrinProfile,
       {"orin", "agx-orin", "jetson-agx-orin"}},
      {"titan-v", TitanVProfile, {"titanv"}},
      {"h100-sxm", H100SxmProfile, {"h100", "h100-sxm5"}},
      {"h200-sxm", H200SxmProfile, {"h200"}},
      {"cpu-local", CachedLocalCpu, {"cpu", "local"}},
  };
  return *profiles;
}

std::string NormaliseName(std::string_view name) {
  std::string out = absl::AsciiStrToLower(absl::StripAsciiWhitespace(ToAbsl(name)));
  std::replace(out.begin(), out.end(), '_', '-');
  return out;
}

std::string DescribeKnownProfiles() {
  std::vector<std::string> entries;
  for (const BuiltinProfile& builtin : BuiltinProfiles()) {
    entries.push_back(absl::StrCat(builtin.name, " (aliases: ",
                                   absl::StrJoin(builtin.aliases, ", "), ")"));
  }
  return absl::StrJoin(entries, "; ");
}

// True when both counts are known and one exceeds twice the other.
bool MoreThanTwiceApart(int a, int b) {
  return a > 0 && b > 0 && (a > 2 * b || b > 2 * a);
}

// FillUnknownFields' per-field rule: 0 / empty means "not reported".
struct TakeDefaultIfUnknown {
  template <typename T>
  void operator()(std::string_view, T& field, const T& fallback) const {
    if constexpr (std::is_arithmetic_v<T>) {
      if (field == 0) field = fallback;
    } else if constexpr (std::is_same_v<T, std::string>) {
      if (field.empty()) field = fallback;
    } else {  // std::array of dims
      if (std::all_of(field.begin(), field.end(),
                      [](auto v) { return v == 0; })) {
        field = fallback;
      }
    }
  }
};

}  // namespace

std::string_view DeviceKindName(DeviceKind kind) {
  return kind == DeviceKind::kGpu ? "gpu" : "cpu";
}

std::optional<DeviceKind> ParseDeviceKind(std::string_view name) {
  if (name == "cpu") return DeviceKind::kCpu;
  if (name == "gpu") return DeviceKind::kGpu;
  return std::nullopt;
}

std::vector<std::string> KnownDeviceProfiles() {
  std::vector<std::string> names;
  for (const BuiltinProfile& builtin : BuiltinProfiles()) {
    names.emplace_back(builtin.name);
  }
  return names;
}

absl::StatusOr<DeviceProfile> GetDeviceProfile(std::string_view name) {
  const std::string wanted = NormaliseName(name);
  for (const BuiltinProfile& builtin : BuiltinProfiles()) {
    bool match = wanted == builtin.name ||
                 std::any_of(builtin.aliases.begin(), builtin.aliases.end(),
                             [&](const char* a) { return wanted == a; });
    if (match) return builtin.make();
  }
  // The local CPU also answers to the key its records carry, so a key that
  // `pruner dataset stats` or `pruner records show` printed can be passed back.
  const DeviceProfile local = WithStableCpuKey(CachedLocalCpu());
  if (wanted == NormaliseName(local.name)) return local;
  if (wanted.rfind("cpu-", 0) == 0) {
    return absl::NotFoundError(absl::StrCat(
        "device '", ToAbsl(name), "' is not this machine's CPU, which is '", local.name,
        "' (a CPU is measured only on itself); built-in profiles: ", DescribeKnownProfiles()));
  }
  return absl::NotFoundError(absl::StrCat("unknown device profile '", ToAbsl(name),
                                          "'; known: ", DescribeKnownProfiles(),
                                          "; this machine's CPU: ", local.name));
}

absl::Status CheckCompatible(const DeviceProfile& reported,
                             const DeviceProfile& builtin) {
  if (reported.kind != builtin.kind) {
    return absl::FailedPreconditionError(absl::StrCat(
        "device '", reported.name, "' reports kind ",
        ToAbsl(DeviceKindName(reported.kind)), " but profile '", builtin.name,
        "' is ", ToAbsl(DeviceKindName(builtin.kind))));
  }
  std::vector<std::string> problems;
  if (builtin.IsGpu()) {
    if (reported.warp_size > 0 && reported.warp_size != builtin.warp_size) {
      problems.push_back(absl::StrCat("warp size ", reported.warp_size,
                                      " != ", builtin.warp_size));
    }
    if (reported.compute_capability_major > 0 &&
        reported.compute_capability_major !=
            builtin.compute_capability_major) {
      problems.push_back(absl::StrCat(
          "compute capability ", reported.compute_capability_major, ".",
          reported.compute_capability_minor, " has a different major than ",
          builtin.compute_capability_major, ".",
          builtin.compute_capability_minor));
    }
    if (MoreThanTwiceApart(reported.sm_count, builtin.sm_count)) {
      problems.push_back(absl::StrCat("SM count ", reported.sm_count,
                                      " is more than 2x from ",
                                      builtin.sm_count));
    }
  } else if (MoreThanTwiceApart(reported.num_cores, builtin.num_cores)) {
    problems.push_back(absl::StrCat("core count ", reported.num_cores,
                                    " is more than 2x from ",
                                    builtin.num_cores));
  }
  if (problems.empty()) return absl::OkStatus();
  return absl::FailedPreconditionError(
      absl::StrCat("device '", reported.name, "' does not match profile '",
                   builtin.name, "': ", absl::StrJoin(problems, "; ")));
}

DeviceProfile FillUnknownFields(const DeviceProfile& reported,
                                const DeviceProfile& defaults) {
  DeviceProfile out = reported;
  device_internal::VisitProfileFields(TakeDefaultIfUnknown{}, out, defaults);
  return out;
}

DeviceProfile WithStableCpuKey(DeviceProfile device) {
  if (device.IsGpu()) return device;
  std::string slug;
  for (char c : device.description) {
    if (std::isalnum(static_cast<unsigned char>(c))) {
      slug += static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
    } else if (!slug.empty() && slug.back() != '-') {
      slug += '-';
    }
  }
  while (!slug.empty() && slug.back() == '-') slug.pop_back();
  device.name = absl::StrCat("cpu-", slug.empty() ? "unknown" : slug, "-", device.num_cores, "t-",
                             device.vector_isa);
  return device;
}

bool IsEmulatedDevice(std::string_view device_key) {
  return device_key.rfind("cpu-emulated-", 0) == 0;
}

}  // namespace pruner
