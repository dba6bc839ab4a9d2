#include "common/codegen/cuda_driver.h"

#include <dlfcn.h>

#include <cstdlib>

#include "absl/status/status.h"
#include "absl/strings/str_cat.h"
#include "common/base/status_macros.h"

namespace pruner {
namespace {

// The slice of cuda.h we use; the driver's C ABI is stable, and the
// versioned entry points (_v2) are the ones cuda.h has mapped to since
// CUDA 4 / 11.
using CUresult = int;
using CUdevice = int;
using CUdeviceptr = unsigned long long;  // NOLINT(runtime/int): the ABI type
using CUcontext = void*;
using CUmodule = void*;
using CUfunction = void*;
using CUevent = void*;
using CUstream = void*;
constexpr CUresult kSuccess = 0;
constexpr CUresult kErrorStubLibrary = 34;
constexpr CUresult kErrorNoDevice = 100;

// CUdevice_attribute values.
enum Attribute : int {
  kMaxThreadsPerBlock = 1,
  kMaxSharedMemoryPerBlock = 8,
  kWarpSize = 10,
  kMaxRegistersPerBlock = 12,
  kClockRate = 13,
  kMultiprocessorCount = 16,
  kL2CacheSize = 38,
  kMaxThreadsPerMultiprocessor = 39,
  kComputeCapabilityMajor = 75,
  kComputeCapabilityMinor = 76,
  kMaxSharedMemoryPerMultiprocessor = 81,
  kMaxRegistersPerMultiprocessor = 82,
  kMaxSharedMemoryPerBlockOptin = 97,
};

struct DriverApi {
  CUresult (*Init)(unsigned) = nullptr;
  CUresult (*GetErrorString)(CUresult, const char**) = nullptr;
  CUresult (*DeviceGetCount)(int*) = nullptr;
  CUresult (*DeviceGet)(CUdevice*, int) = nullptr;
  CUresult (*DeviceGetName)(char*, int, CUdevice) = nullptr;
  CUresult (*DeviceGetAttribute)(int*, int, CUdevice) = nullptr;
  CUresult (*DeviceTotalMem)(size_t*, CUdevice) = nullptr;
  CUresult (*PrimaryCtxRetain)(CUcontext*, CUdevice) = nullptr;
  CUresult (*PrimaryCtxRelease)(CUdevice) = nullptr;
  CUresult (*CtxSetCurrent)(CUcontext) = nullptr;
  CUresult (*CtxSynchronize)() = nullptr;
  CUresult (*MemAlloc)(CUdeviceptr*, size_t) = nullptr;
  CUresult (*MemFree)(CUdeviceptr) = nullptr;
  CUresult (*MemcpyHtoD)(CUdeviceptr, const void*, size_t) = nullptr;
  CUresult (*MemcpyDtoH)(void*, CUdeviceptr, size_t) = nullptr;
  CUresult (*ModuleLoadData)(CUmodule*, const void*) = nullptr;
  CUresult (*ModuleUnload)(CUmodule) = nullptr;
  CUresult (*ModuleGetFunction)(CUfunction*, CUmodule, const char*) = nullptr;
  CUresult (*LaunchKernel)(CUfunction, unsigned, unsigned, unsigned, unsigned, unsigned, unsigned,
                           unsigned, CUstream, void**, void**) = nullptr;
  CUresult (*EventCreate)(CUevent*, unsigned) = nullptr;
  CUresult (*EventRecord)(CUevent, CUstream) = nullptr;
  CUresult (*EventSynchronize)(CUevent) = nullptr;
  CUresult (*EventElapsedTime)(float*, CUevent, CUevent) = nullptr;
  CUresult (*EventDestroy)(CUevent) = nullptr;
};

template <typename F>
bool Resolve(void* handle, const char* symbol, F* out) {
  *out = reinterpret_cast<F>(dlsym(handle, symbol));
  return *out != nullptr;
}

absl::StatusOr<DriverApi> LoadDriver() {
  const char* env = std::getenv("PRUNER_CUDA_DRIVER_LIBRARY");
  const std::string path = env != nullptr && *env != '\0' ? env : "libcuda.so.1";
  void* handle = dlopen(path.c_str(), RTLD_NOW | RTLD_LOCAL);
  if (handle == nullptr) {
    return absl::FailedPreconditionError(absl::StrCat("no CUDA driver: ", dlerror()));
  }
  DriverApi api;
  bool ok = Resolve(handle, "cuInit", &api.Init) &&
            Resolve(handle, "cuGetErrorString", &api.GetErrorString) &&
            Resolve(handle, "cuDeviceGetCount", &api.DeviceGetCount) &&
            Resolve(handle, "cuDeviceGet", &api.DeviceGet) &&
            Resolve(handle, "cuDeviceGetName", &api.DeviceGetName) &&
            Resolve(handle, "cuDeviceGetAttribute", &api.DeviceGetAttribute) &&
            Resolve(handle, "cuDeviceTotalMem_v2", &api.DeviceTotalMem) &&
            Resolve(handle, "cuDevicePrimaryCtxRetain", &api.PrimaryCtxRetain) &&
            Resolve(handle, "cuDevicePrimaryCtxRelease_v2", &api.PrimaryCtxRelease) &&
            Resolve(handle, "cuCtxSetCurrent", &api.CtxSetCurrent) &&
            Resolve(handle, "cuCtxSynchronize", &api.CtxSynchronize) &&
            Resolve(handle, "cuMemAlloc_v2", &api.MemAlloc) &&
            Resolve(handle, "cuMemFree_v2", &api.MemFree) &&
            Resolve(handle, "cuMemcpyHtoD_v2", &api.MemcpyHtoD) &&
            Resolve(handle, "cuMemcpyDtoH_v2", &api.MemcpyDtoH) &&
            Resolve(handle, "cuModuleLoadData", &api.ModuleLoadData) &&
            Resolve(handle, "cuModuleUnload", &api.ModuleUnload) &&
            Resolve(handle, "cuModuleGetFunction", &api.ModuleGetFunction) &&
            Resolve(handle, "cuLaunchKernel", &api.LaunchKernel) &&
            Resolve(handle, "cuEventCreate", &api.EventCreate) &&
            Resolve(handle, "cuEventRecord", &api.EventRecord) &&
            Resolve(handle, "cuEventSynchronize", &api.EventSynchronize) &&
            Resolve(handle, "cuEventDestroy_v2", &api.EventDestroy);
  // CUDA 12.8 added cuEventElapsedTime_v2 (what CUDA 13's cuda.h maps to);
  // older drivers only have the original, with the same signature.
  ok = ok && (Resolve(handle, "cuEventElapsedTime_v2", &api.EventElapsedTime) ||
              Resolve(handle, "cuEventElapsedTime", &api.EventElapsedTime));
  if (!ok) {
    return absl::FailedPreconditionError(
        absl::StrCat("no CUDA driver: ", path, " lacks ", dlerror()));
  }
  const CUresult init = api.Init(0);
  if (init == kErrorStubLibrary) {
    return absl::FailedPreconditionError(
        "no CUDA driver: libcuda.so.1 is the toolkit's link stub, not a driver");
  }
  if (init == kErrorNoDevice) return absl::FailedPreconditionError("no CUDA device");
  if (init != kSuccess) {
    const char* text = nullptr;
    api.GetErrorString(init, &text);
    return absl::FailedPreconditionError(
        absl::StrCat("no CUDA driver: cuInit failed: ", text != nullptr ? text : "unknown error"));
  }
  return api;
}

const absl::StatusOr<DriverApi>& Driver() {
  static const absl::StatusOr<DriverApi> api = LoadDriver();
  return api;
}

absl::Status Check(CUresult r, const char* what) {
  if (r == kSuccess) return absl::OkStatus();
  const char* text = nullptr;
  Driver()->GetErrorString(r, &text);
  return absl::InternalError(
      absl::StrCat(what, ": ", text != nullptr ? text : "unknown error", " (", r, ")"));
}

#define PRUNER_CU(call, what)                                    \
  do {                                                           \
    if (absl::Status st_ = Check((call), what); !st_.ok()) return st_; \
  } while (0)

}  // namespace

absl::StatusOr<int> CudaDeviceCount() {
  const absl::StatusOr<DriverApi>& api = Driver();
  if (!api.ok()) return api.status();
  int count = 0;
  PRUNER_CU(api->DeviceGetCount(&count), "cuDeviceGetCount");
  if (count == 0) return absl::FailedPreconditionError("no CUDA device");
  return count;
}

absl::StatusOr<CudaDeviceProperties> QueryCudaDevice(int ordinal) {
  PRUNER_ASSIGN_OR_RETURN(int count, CudaDeviceCount());
  if (ordinal < 0 || ordinal >= count) {
    return absl::InvalidArgumentError(
        absl::StrCat("CUDA device ", ordinal, " does not exist (", count, " present)"));
  }
  const DriverApi& api = *Driver();
  CUdevice dev = 0;
  PRUNER_CU(api.DeviceGet(&dev, ordinal), "cuDeviceGet");
  CudaDeviceProperties p;
  p.ordinal = ordinal;
  char name[256] = {};
  PRUNER_CU(api.DeviceGetName(name, sizeof(name) - 1, dev), "cuDeviceGetName");
  p.name = name;
  auto attr = [&](int which) {
    int v = 0;
    return api.DeviceGetAttribute(&v, which, dev) == kSuccess ? v : 0;
  };
  p.compute_capability_major = attr(kComputeCapabilityMajor);
  p.compute_capability_minor = attr(kComputeCapabilityMinor);
  p.sm_count = attr(kMultiprocessorCount);
  p.warp_size = attr(kWarpSize);
  p.max_threads_per_block = attr(kMaxThreadsPerBlock);
  p.max_threads_per_sm = attr(kMaxThreadsPerMultiprocessor);
  p.registers_per_block = attr(kMaxRegistersPerBlock);
  p.registers_per_sm = attr(kMaxRegistersPerMultiprocessor);
  p.shared_memory_per_block = attr(kMaxSharedMemoryPerBlock);
  p.shared_memory_per_block_optin = attr(kMaxSharedMemoryPerBlockOptin);
  p.shared_memory_per_sm = attr(kMaxSharedMemoryPerMultiprocessor);
  p.l2_cache_bytes = attr(kL2CacheSize);
  p.clock_khz = attr(kClockRate);
  size_t total = 0;
  PRUNER_CU(api.DeviceTotalMem(&total, dev), "cuDeviceTotalMem");
  p.total_memory_bytes = static_cast<int64_t>(total);
  return p;
}

absl::StatusOr<std::unique_ptr<CudaDevice>> CudaDevice::Open(int ordinal) {
  PRUNER_ASSIGN_OR_RETURN(CudaDeviceProperties props, QueryCudaDevice(ordinal));
  const DriverApi& api = *Driver();
  std::unique_ptr<CudaDevice> device(new CudaDevice());
  device->properties_ = props;
  PRUNER_CU(api.DeviceGet(&device->device_, ordinal), "cuDeviceGet");
  PRUNER_CU(api.PrimaryCtxRetain(&device->context_, device->device_), "cuDevicePrimaryCtxRetain");
  return device;
}

CudaDevice::~CudaDevice() {
  if (context_ != nullptr) Driver()->PrimaryCtxRelease(device_);
}

absl::Status CudaDevice::MakeCurrent() const {
  return Check(Driver()->CtxSetCurrent(context_), "cuCtxSetCurrent");
}

absl::StatusOr<uint64_t> CudaDevice::Alloc(size_t bytes) {
  PRUNER_RETURN_IF_ERROR(MakeCurrent());
  CUdeviceptr ptr = 0;
  PRUNER_CU(Driver()->MemAlloc(&ptr, bytes), "cuMemAlloc");
  return static_cast<uint64_t>(ptr);
}

absl::Status CudaDevice::Free(uint64_t ptr) {
  PRUNER_RETURN_IF_ERROR(MakeCurrent());
  return Check(Driver()->MemFree(ptr), "cuMemFree");
}

absl::Status CudaDevice::CopyToDevice(uint64_t dst, const void* src, size_t bytes) {
  PRUNER_RETURN_IF_ERROR(MakeCurrent());
  return Check(Driver()->MemcpyHtoD(dst, src, bytes), "cuMemcpyHtoD");
}

absl::Status CudaDevice::CopyToHost(void* dst, uint64_t src, size_t bytes) {
  PRUNER_RETURN_IF_ERROR(MakeCurrent());
  return Check(Driver()->MemcpyDtoH(dst, src, bytes), "cuMemcpyDtoH");
}

absl::StatusOr<std::unique_ptr<CudaDevice::Module>> CudaDevice::LoadModule(
    const std::string& image) {
  PRUNER_RETURN_IF_ERROR(MakeCurrent());
  // PTX must be NUL-terminated; std::string guarantees c_str() is.
  CUmodule module = nullptr;
  PRUNER_CU(Driver()->ModuleLoadData(&module, image.c_str()), "cuModuleLoadData");
  return std::unique_ptr<Module>(new Module(this, module));
}

CudaDevice::Module::~Module() {
  if (handle_ != nullptr && device_->MakeCurrent().ok()) Driver()->ModuleUnload(handle_);
}

absl::StatusOr<CudaFunction> CudaDevice::Module::Function(const std::string& name) const {
  CUfunction f = nullptr;
  PRUNER_CU(Driver()->ModuleGetFunction(&f, handle_, name.c_str()), "cuModuleGetFunction");
  return CudaFunction{f, name};
}

absl::Status CudaDevice::Enqueue(const CudaFunction& function, const std::array<int64_t, 3>& grid,
                                 const std::array<int64_t, 3>& block,
                                 const std::vector<uint64_t>& args) {
  std::vector<CUdeviceptr> values(args.begin(), args.end());
  std::vector<void*> params;
  for (CUdeviceptr& v : values) params.push_back(&v);
  return Check(Driver()->LaunchKernel(function.handle, static_cast<unsigned>(grid[0]),
                                      static_cast<unsigned>(grid[1]),
                                      static_cast<unsigned>(grid[2]),
                                      static_cast<unsigned>(block[0]),
                                      static_cast<unsigned>(block[1]),
                                      static_cast<unsigned>(block[2]), 0, nullptr,
                                      params.data(), nullptr),
               "cuLaunchKernel");
}

absl::Status CudaDevice::Launch(const CudaFunction& function, const std::array<int64_t, 3>& grid,
                                const std::array<int64_t, 3>& block,
                                const std::vector<uint64_t>& args) {
  PRUNER_RETURN_IF_ERROR(MakeCurrent());
  PRUNER_RETURN_IF_ERROR(Enqueue(function, grid, block, args));
  return Check(Driver()->CtxSynchronize(), "kernel execution");
}

absl::StatusOr<double> CudaDevice::TimeLaunches(const CudaFunction& function,
                                                const std::array<int64_t, 3>& grid,
                                                const std::array<int64_t, 3>& block,
                                                const std::vector<uint64_t>& args, int repeat) {
  if (repeat < 1) return absl::InvalidArgumentError("TimeLaunches: repeat must be positive");
  if (absl::Status st = Launch(function, grid, block, args); !st.ok()) return st;  // warm-up
  const DriverApi& api = *Driver();
  CUevent start = nullptr;
  CUevent stop = nullptr;
  PRUNER_CU(api.EventCreate(&start, 0), "cuEventCreate");
  if (absl::Status st = Check(api.EventCreate(&stop, 0), "cuEventCreate"); !st.ok()) {
    api.EventDestroy(start);
    return st;
  }
  absl::Status status = Check(api.EventRecord(start, nullptr), "cuEventRecord");
  for (int i = 0; i < repeat && status.ok(); ++i) status = Enqueue(function, grid, block, args);
  if (status.ok()) status = Check(api.EventRecord(stop, nullptr), "cuEventRecord");
  if (status.ok()) status = Check(api.EventSynchronize(stop), "kernel execution");
  float ms = 0;
  if (status.ok()) status = Check(api.EventElapsedTime(&ms, start, stop), "cuEventElapsedTime");
  api.EventDestroy(start);
  api.EventDestroy(stop);
  if (!status.ok()) return status;
  return static_cast<double>(ms) / repeat;
}

}  // namespace pruner
