#include "common/device/gpu_profiles.h"

#include <cstdint>
#include <limits>

// Sources:
//  [P]  Pruner's analyzer table (`psamodel_params` in task_scheduler.py, see
//       ../shared/specs/pruner.md §1.2). Where it has a device, its peak_gflops and
//       mem_bandwidth_gbps win, so our analyzer reproduces Pruner's scores.
//  [DS] NVIDIA datasheets / architecture whitepapers (A100, H100, Titan V,
//       Jetson AGX Orin technical brief).
//  [CG] CUDA C++ Programming Guide, "Technical Specifications per Compute
//       Capability" (threads, blocks, shared memory and registers per SM),
//       and the values cudaGetDeviceProperties reports for these parts.

namespace pruner {
namespace {

constexpr int64_t KiB = 1024;
constexpr int64_t MiB = 1024 * KiB;

// Everything NVIDIA parts from Volta (cc 7.0) to Hopper (cc 9.0) share, plus
// the Pruner analyzer's fixed assumptions and Ansor's CUDA HardwareParams.
DeviceProfile NvidiaGpuCommon() {
  DeviceProfile p;
  p.kind = DeviceKind::kGpu;
  p.warp_size = 32;
  p.max_threads_per_block = 1024;
  p.max_block_dims = {1024, 1024, 64};
  p.max_grid_dims = {std::numeric_limits<int32_t>::max(), 65535, 65535};
  // [CG] sharedMemPerBlock: the static limit without opt-in; TVM's verifier
  // queries exactly this value.
  p.max_shared_memory_per_block = 48 * KiB;
  // Ansor sets INT32_MAX on CUDA: local memory is never checked.
  p.max_local_memory_per_block = std::numeric_limits<int32_t>::max();
  p.registers_per_block = 64 * 1024;
  p.registers_per_sm = 64 * 1024;
  p.max_registers_per_thread = 255;
  // Pruner's PSAModelInternal defaults: reg_cap 128 (never overridden),
  // one active block per SM, four warp schedulers per SM.
  p.reg_cap = 128;
  p.active_blocks_per_sm = 1;
  p.sm_partitions = 4;
  // Ansor: max_vthread_extent = warp_size / 4.
  p.max_vthread_extent = p.warp_size / 4;
  // Ansor's CUDA HardwareParams: 16-byte vectors (float4), 64-byte lines.
  p.vector_unit_bytes = 16;
  p.cache_line_bytes = 64;
  // DRAM is accessed in 32-byte sectors (paper n_l2).
  p.dram_transaction_bytes = 32;
  return p;
}

}  // namespace

DeviceProfile A100Sxm40GbProfile() {
  DeviceProfile p = NvidiaGpuCommon();
  p.name = "a100-40gb";
  p.description = "NVIDIA A100-SXM4-40GB";
  // [P] a100_40: 19490 GFLOP/s, 1555 GB/s. [DS] 19.5 TFLOP/s
  // = 108 SMs x 64 fp32 lanes x 2 x 1.41 GHz; 1555 GB/s HBM2.
  p.peak_gflops = 19490;
  p.mem_bandwidth_gbps = 1555;
  p.clock_mhz = 1410;
  p.sm_count = 108;
  p.compute_capability_major = 8;
  p.compute_capability_minor = 0;
  p.max_threads_per_sm = 2048;
  p.max_blocks_per_sm = 32;
  p.shared_memory_per_sm = 164 * KiB;
  p.max_shared_memory_per_block_optin = 163 * KiB;
  p.l2_cache_bytes = 40 * MiB;
  p.notes =
      "peak/bandwidth: Pruner psamodel_params a100_40 (= datasheet). "
      "Pruner's key 'a100' is the 80 GB part (1935 GB/s); here 'a100' means "
      "this 40 GB profile, which every run in the Pruner repo uses.";
  return p;
}

DeviceProfile JetsonAgxOrinProfile() {
  DeviceProfile p = NvidiaGpuCommon();
  p.name = "jetson-orin";
  p.description = "NVIDIA Jetson AGX Orin 64GB (GA10B)";
  // [P] orin: 2660 GFLOP/s, 204 GB/s. [DS] 16 SMs = 2048 CUDA cores at
  // 1.3 GHz give 2048 x 2 x 1.3 = 5325 GFLOP/s, twice Pruner's number
  // (2660 matches ~650 MHz, a lower nvpmodel power mode, or counting an FMA
  // as one FLOP). We keep Pruner's number so its analyzer behaves as in the
  // paper; LPDDR5 peak is 204.8 GB/s.
  p.peak_gflops = 2660;
  p.mem_bandwidth_gbps = 204;
  p.clock_mhz = 1300;
  p.sm_count = 16;
  p.compute_capability_major = 8;
  p.compute_capability_minor = 7;
  // [CG] cc 8.7: 48 resident warps and 16 blocks per SM, 164 KiB shared
  // memory per SM, 163 KiB per block with opt-in.
  p.max_threads_per_sm = 1536;
  p.max_blocks_per_sm = 16;
  p.shared_memory_per_sm = 164 * KiB;
  p.max_shared_memory_per_block_optin = 163 * KiB;
  p.l2_cache_bytes = 4 * MiB;
  p.notes =
      "peak/bandwidth: Pruner psamodel_params orin (2660 GFLOP/s, 204 GB/s). "
      "Datasheet fp32 peak is 5325 GFLOP/s (2048 cores x 2 x 1.3 GHz); "
      "Pruner's value is kept on purpose.";
  return p;
}

DeviceProfile TitanVProfile() {
  DeviceProfile p = NvidiaGpuCommon();
  p.name = "titan-v";
  p.description = "NVIDIA TITAN V";
  // [P] titanv: 14900 GFLOP/s, 651 GB/s. [DS] 80 SMs x 64 lanes x 2 x
  // 1.455 GHz = 14899 GFLOP/s; 3072-bit HBM2 at 1.7 Gb/s = 652.8 GB/s.
  p.peak_gflops = 14900;
  p.mem_bandwidth_gbps = 651;
  p.clock_mhz = 1455;
  p.sm_count = 80;
  p.compute_capability_major = 7;
  p.compute_capability_minor = 0;
  // [CG] cc 7.0: 96 KiB shared memory per SM, all of it per block with
  // opt-in.
  p.max_threads_per_sm = 2048;
  p.max_blocks_per_sm = 32;
  p.shared_memory_per_sm = 96 * KiB;
  p.max_shared_memory_per_block_optin = 96 * KiB;
  p.l2_cache_bytes = 4608 * KiB;  // 4.5 MiB
  p.notes =
      "peak/bandwidth: Pruner psamodel_params titanv (datasheet: 652.8 "
      "GB/s). CUDA 13 NVRTC no longer targets sm_70: use an older toolkit.";
  return p;
}

DeviceProfile H100SxmProfile() {
  DeviceProfile p = NvidiaGpuCommon();
  p.name = "h100-sxm";
  p.description = "NVIDIA H100 SXM5 80GB HBM3";
  // Not in Pruner's table. [DS] 132 SMs x 128 lanes x 2 x 1.98 GHz
  // = 66.9 TFLOP/s fp32 (non-tensor); HBM3 3.35 TB/s; 50 MB L2.
  p.peak_gflops = 66900;
  p.mem_bandwidth_gbps = 3350;
  p.clock_mhz = 1980;
  p.sm_count = 132;
  p.compute_capability_major = 9;
  p.compute_capability_minor = 0;
  // [CG] cc 9.0: 228 KiB shared memory per SM, 227 KiB per block with
  // opt-in.
  p.max_threads_per_sm = 2048;
  p.max_blocks_per_sm = 32;
  p.shared_memory_per_sm = 228 * KiB;
  p.max_shared_memory_per_block_optin = 227 * KiB;
  p.l2_cache_bytes = 50 * MiB;
  p.notes =
      "peak/bandwidth: NVIDIA H100 SXM5 datasheet (not in Pruner's table). "
      "The H100 PCIe part differs: 114 SMs, 51 TFLOP/s, 2.0 TB/s.";
  return p;
}

DeviceProfile H200SxmProfile() {
  // The H100's chip (GH100, 132 SMs enabled, same clocks and per-SM
  // limits) with HBM3e: only memory size and bandwidth differ, so records
  // must still not mix with the H100's (memory-bound kernels run faster).
  DeviceProfile p = H100SxmProfile();
  p.name = "h200-sxm";
  p.description = "NVIDIA H200 SXM 141GB HBM3e";
  // [DS] H200 SXM: 67 TFLOP/s fp32 (132 x 128 x 2 x 1.98 GHz), 4.8 TB/s.
  p.mem_bandwidth_gbps = 4800;
  p.notes = "peak/bandwidth: NVIDIA H200 SXM datasheet (not in Pruner's table).";
  return p;
}

}  // namespace pruner
