#include "worker/worker_device.h"

#include <string>

#include "absl/strings/ascii.h"
#include "absl/strings/str_cat.h"
#include "common/base/absl_compat.h"
#include "common/base/status_macros.h"
#include "proto/wire_convert.h"
#include "worker/gpu_query.h"

namespace pruner {
namespace {

// The model each GPU profile stands for, as it appears in the driver's
// device name. Properties alone cannot tell an H200 from an H100 (same
// chip, SMs and clocks; only the memory differs), and their records must
// not share a key.
std::string_view ModelInDriverName(std::string_view profile) {
  if (profile == "a100-40gb") return "A100";
  if (profile == "h100-sxm") return "H100";
  if (profile == "h200-sxm") return "H200";
  if (profile == "jetson-orin") return "ORIN";
  if (profile == "titan-v") return "TITAN V";
  return "";
}

}  // namespace

absl::StatusOr<WorkerDevice> GpuDeviceFromProperties(const CudaDeviceProperties& p,
                                                     const DeviceProfile& builtin) {
  DeviceProfile reported;
  reported.name = builtin.name;
  reported.kind = DeviceKind::kGpu;
  reported.description = p.name;
  reported.clock_mhz = p.clock_khz / 1000.0;
  reported.l2_cache_bytes = p.l2_cache_bytes;
  reported.sm_count = p.sm_count;
  reported.warp_size = p.warp_size;
  reported.max_threads_per_block = p.max_threads_per_block;
  reported.max_threads_per_sm = p.max_threads_per_sm;
  reported.max_shared_memory_per_block = p.shared_memory_per_block;
  reported.max_shared_memory_per_block_optin = p.shared_memory_per_block_optin;
  reported.shared_memory_per_sm = p.shared_memory_per_sm;
  reported.registers_per_block = p.registers_per_block;
  reported.registers_per_sm = p.registers_per_sm;
  reported.compute_capability_major = p.compute_capability_major;
  reported.compute_capability_minor = p.compute_capability_minor;
  if (absl::Status compatible = CheckCompatible(reported, builtin); !compatible.ok()) {
    return absl::FailedPreconditionError(
        absl::StrCat("the GPU here (", p.name, ") cannot stand for profile '", builtin.name,
                     "': ", compatible.message()));
  }
  const std::string_view model = ModelInDriverName(builtin.name);
  if (!model.empty() && absl::AsciiStrToUpper(p.name).find(model) == std::string::npos) {
    return absl::FailedPreconditionError(
        absl::StrCat("the GPU here (", p.name, ") cannot stand for profile '", builtin.name,
                     "': that profile is for GPUs named *", ToAbsl(model),
                     "*; pick this GPU's profile (pruner devices lists them)"));
  }
  return WorkerDevice{FillUnknownFields(reported, builtin), p.total_memory_bytes};
}

absl::StatusOr<WorkerDevice> ResolveWorkerDevice(std::string_view name) {
  PRUNER_ASSIGN_OR_RETURN(auto builtin, GetDeviceProfile(name));
  if (!builtin.IsGpu()) return WorkerDevice{WithStableCpuKey(std::move(builtin)), 0};

  const std::string why = absl::StrCat("--device ", ToAbsl(name), " (", builtin.name,
                                       ") needs a CUDA GPU on this host: ");
  auto properties = QueryGpuInSandbox();
  if (!properties.ok()) {
    return absl::FailedPreconditionError(absl::StrCat(why, properties.status().message()));
  }
  return GpuDeviceFromProperties(*properties, builtin);
}

v1::Device WorkerDeviceToWire(const WorkerDevice& device) {
  v1::Device wire = DeviceToWire(device.profile);
  wire.set_memory_bytes(device.memory_bytes);
  return wire;
}

}  // namespace pruner
