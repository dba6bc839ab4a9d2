// The CUDA driver API, loaded at run time with dlopen("libcuda.so.1"), so
// that binaries start on machines with no GPU and no driver; there every
// entry point returns a clean error instead ("no CUDA driver: ...",
// "no CUDA device"). No CUDA header is needed: the few driver types and
// constants are declared in the .cc.
//
// Scope: what a measurement worker needs for one kernel module: query the
// device, load PTX or a cubin (cuModuleLoadData), allocate and copy buffers,
// launch (cuLaunchKernel) and time launches with CUDA events.
#ifndef PRUNER_COMMON_CODEGEN_CUDA_DRIVER_H_
#define PRUNER_COMMON_CODEGEN_CUDA_DRIVER_H_

#include <array>
#include <cstddef>
#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include "absl/status/statusor.h"

namespace pruner {

// Number of CUDA devices. FailedPrecondition "no CUDA driver: ..." when
// libcuda.so.1 cannot be loaded or is only the link stub, "no CUDA device"
// when the driver sees none.
absl::StatusOr<int> CudaDeviceCount();

struct CudaDeviceProperties {
  int ordinal = 0;
  std::string name;
  int compute_capability_major = 0;
  int compute_capability_minor = 0;
  int sm_count = 0;
  int warp_size = 0;
  int max_threads_per_block = 0;
  int max_threads_per_sm = 0;
  int registers_per_block = 0;
  int registers_per_sm = 0;
  int64_t shared_memory_per_block = 0;        // static limit
  int64_t shared_memory_per_block_optin = 0;  // with cudaFuncSetAttribute
  int64_t shared_memory_per_sm = 0;
  int64_t l2_cache_bytes = 0;
  int64_t total_memory_bytes = 0;
  int clock_khz = 0;
};

absl::StatusOr<CudaDeviceProperties> QueryCudaDevice(int ordinal);

// A kernel of a loaded module; valid while its CudaModule lives.
struct CudaFunction {
  void* handle = nullptr;
  std::string name;
};

// One device's primary context, made current on the calling thread by every
// call. Device memory is addressed by uint64_t (CUdeviceptr).
class CudaDevice {
 public:
  static absl::StatusOr<std::unique_ptr<CudaDevice>> Open(int ordinal = 0);
  ~CudaDevice();
  CudaDevice(const CudaDevice&) = delete;
  CudaDevice& operator=(const CudaDevice&) = delete;

  const CudaDeviceProperties& properties() const { return properties_; }

  absl::StatusOr<uint64_t> Alloc(size_t bytes);
  absl::Status Free(uint64_t ptr);
  absl::Status CopyToDevice(uint64_t dst, const void* src, size_t bytes);
  absl::Status CopyToHost(void* dst, uint64_t src, size_t bytes);

  // Loads PTX text (JIT-compiled by the driver) or a cubin.
  class Module {
   public:
    ~Module();
    absl::StatusOr<CudaFunction> Function(const std::string& name) const;

   private:
    friend class CudaDevice;
    Module(CudaDevice* device, void* handle) : device_(device), handle_(handle) {}
    CudaDevice* device_;
    void* handle_;
  };
  absl::StatusOr<std::unique_ptr<Module>> LoadModule(const std::string& image);

  // args: one device pointer per kernel parameter. Waits for completion.
  absl::Status Launch(const CudaFunction& function, const std::array<int64_t, 3>& grid,
                      const std::array<int64_t, 3>& block, const std::vector<uint64_t>& args);
  // Milliseconds per launch, averaged over `repeat` launches timed with
  // CUDA events after one untimed warm-up launch.
  absl::StatusOr<double> TimeLaunches(const CudaFunction& function,
                                      const std::array<int64_t, 3>& grid,
                                      const std::array<int64_t, 3>& block,
                                      const std::vector<uint64_t>& args, int repeat);

 private:
  CudaDevice() = default;
  absl::Status MakeCurrent() const;
  absl::Status Enqueue(const CudaFunction& function, const std::array<int64_t, 3>& grid,
                       const std::array<int64_t, 3>& block, const std::vector<uint64_t>& args);

  int device_ = 0;       // CUdevice
  void* context_ = nullptr;  // CUcontext (primary)
  CudaDeviceProperties properties_;
};

}  // namespace pruner

#endif  // PRUNER_COMMON_CODEGEN_CUDA_DRIVER_H_
